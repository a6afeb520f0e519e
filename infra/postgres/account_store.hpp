// Projects and API keys (account data left to a dashboard; docs/product.md, Accounts). Only SHA-256
// hashes of keys are stored.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "domain/ports/api.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::infra::postgres {

using ports::KeyOwner;  // the port's vocabulary (domain/ports/api.hpp, ADR 0182)

void prepare_account_statements(pqxx::connection& conn);

// The SQL of `column` (a timestamptz) as RFC 3339 UTC text, to the second.
std::string iso_utc(const std::string& column);

// The unrevoked, unexpired key with this hash and its project, if any.
std::optional<KeyOwner> find_key_owner(pqxx::transaction_base& tx,
                                       const random::Digest32& key_hash);

struct ProjectSpec {
    std::string id;
    std::string name;
    std::string plan = "free";
    std::optional<std::string> payout_address;  // stored as verified
};
// Inserts or updates the project (name, plan, payout wallet).
void upsert_project(pqxx::work& tx, const ProjectSpec& project);

// Inserts a key with this id, or replaces the hash, prefix and mode of an active one. A revoked or
// rolled key stays so (nothing changes): returns false then, true when the key is active.
bool upsert_api_key(pqxx::work& tx, const std::string& key_id, const std::string& project_id,
                    const std::string& mode, const random::Digest32& key_hash,
                    const std::string& key_prefix);

// ---- Administration (`duepay admin`, docs/accounts.md) ----

struct ProjectRecord {
    std::string id;
    std::string name;
    std::string plan;
    int payment_window_seconds = 3600;
    std::optional<std::string> payout_address;
    std::optional<std::string> payout_verified_at;  // ISO 8601 UTC
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;
    std::string created_at;
};

// Changes for `project update`: unset fields stay; an empty string clears logo/accent.
struct ProjectChanges {
    std::optional<std::string> name;
    std::optional<std::string> plan;
    std::optional<int> payment_window_seconds;
    std::optional<std::string> logo_url;
    std::optional<std::string> accent_color;
};

void insert_project(pqxx::work& tx, const ProjectRecord& project);
std::optional<ProjectRecord> find_project(pqxx::transaction_base& tx,
                                          const std::string& project_id);
// False when no such project.
bool update_project(pqxx::work& tx, const std::string& project_id, const ProjectChanges& changes);
void set_payout_address(pqxx::work& tx, const std::string& project_id, const std::string& address);
// Locks the project's row until the transaction ends (serialises payout wallet changes); false
// when no such project.
bool lock_project(pqxx::work& tx, const std::string& project_id);

struct ApiKeyRecord {
    std::string id;
    std::string project_id;
    std::string mode;
    std::string prefix;
    random::Digest32 key_hash{};
    std::string created_at;
    std::optional<std::string> revoked_at;
    std::optional<std::string> expires_at;   // set by a roll (ISO 8601 UTC)
    std::optional<std::string> replaced_by;  // the key id that replaced it
};

std::optional<ApiKeyRecord> find_api_key(pqxx::transaction_base& tx, const std::string& key_id);
std::vector<ApiKeyRecord> list_api_keys(pqxx::transaction_base& tx, const std::string& project_id);
// Sets revoked_at (kept if already revoked); the key's record after, or nullopt if unknown.
std::optional<ApiKeyRecord> revoke_api_key(pqxx::work& tx, const std::string& key_id);

// A roll (POST /v1/api-keys/roll): the active, not yet rolled key `old_key_id` gets expires_at =
// now + `expires_in_seconds` and replaced_by = `new_key_id`; the new key (same project and mode) is
// inserted with only its hash. Returns {new, old} after the change, or nullopt (nothing changed)
// when the old key is unknown, revoked, expired or was already rolled.
struct RolledKey {
    ApiKeyRecord key;
    ApiKeyRecord previous;
};
std::optional<RolledKey> roll_api_key(pqxx::work& tx, const std::string& old_key_id,
                                      const std::string& new_key_id,
                                      const random::Digest32& new_key_hash,
                                      const std::string& new_key_prefix, int expires_in_seconds);

// Who made an account change (account_audit, migrations 0170 and 0210): an API key, a wallet
// signed in to the dashboard (with its session), or an operator (`duepay admin`).
struct AuditActor {
    std::string kind = "operator";          // key | wallet | operator
    std::optional<std::string> id;          // the key id or the wallet address (EIP-55)
    std::optional<std::string> session_id;  // the dashboard session of a wallet

    static AuditActor key(std::string key_id) { return {"key", std::move(key_id), std::nullopt}; }
    static AuditActor wallet(std::string address, std::string session) {
        return {"wallet", std::move(address), std::move(session)};
    }
    static AuditActor admin_operator() { return {}; }
};

// One row of account_audit: `action` one of the migration's list (api_key.rolled,
// project.updated, payout_wallet.verified, member.added, ...); `changes_json` a JSON object.
void insert_account_audit(pqxx::work& tx, const std::string& project_id, const AuditActor& actor,
                          const std::string& action, const std::string& changes_json);

struct WalletChallenge {
    std::string id;
    std::string project_id;
    std::string address;  // EIP-55
    std::string nonce;
    std::string message;
    std::string expires_at;  // ISO 8601 UTC
    bool expired = false;    // against the database clock at read time
    bool used = false;
};

// Stores a challenge expiring `ttl_seconds` after now (database clock); `message_for(expires_at)`
// builds the text (it needs the expiry). Returns the stored challenge.
WalletChallenge insert_wallet_challenge(
    pqxx::work& tx, const std::string& id, const std::string& project_id,
    const std::string& address, const std::string& nonce, int ttl_seconds,
    const std::function<std::string(const std::string&)>& message_for);
// The newest challenge for (project, address), or the one with `nonce` if given; locked FOR UPDATE.
std::optional<WalletChallenge> find_wallet_challenge(pqxx::work& tx, const std::string& project_id,
                                                     const std::string& address,
                                                     const std::optional<std::string>& nonce);
void mark_challenge_used(pqxx::work& tx, const std::string& challenge_id);

}  // namespace duepay::infra::postgres
