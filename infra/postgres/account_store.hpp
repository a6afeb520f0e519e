// Projects and API keys (account data the spec leaves to the dashboard). Only SHA-256 hashes of
// keys are stored.
#pragma once

#include <optional>
#include <string>

#include <pqxx/pqxx>

#include "infra/random/key_material.hpp"

namespace duepay::infra::postgres {

struct KeyOwner {
    std::string key_id;
    std::string project_id;
    std::string mode;  // test | live
    std::string plan;
    int payment_window_seconds = 3600;
    std::optional<std::string> payout_address;  // verified payout wallet, EIP-55
    random::Digest32 key_hash{};
};

void prepare_account_statements(pqxx::connection& conn);

// The unrevoked key with this hash and its project, if any.
std::optional<KeyOwner> find_key_owner(pqxx::transaction_base& tx, const random::Digest32& key_hash);

struct ProjectSpec {
    std::string id;
    std::string name;
    std::string plan = "free";
    std::optional<std::string> payout_address;  // stored as verified
};
// Inserts or updates the project (name, plan, payout wallet).
void upsert_project(pqxx::work& tx, const ProjectSpec& project);

// Inserts or re-activates a key with this id (hash and prefix replaced).
void upsert_api_key(pqxx::work& tx, const std::string& key_id, const std::string& project_id,
                    const std::string& mode, const random::Digest32& key_hash, const std::string& key_prefix);

}  // namespace duepay::infra::postgres
