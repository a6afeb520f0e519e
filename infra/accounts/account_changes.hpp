// Account changes made by a merchant (REST, with an API key) or an operator (`duepay admin`), each
// in the caller's transaction together with its account_audit row (migration 0170): key roll,
// project settings, payout wallet challenge and proof (docs/accounts.md, docs/adr/0170, 0171).
// Rejections are values with the API's meta.code; database failures are pqxx exceptions.
#pragma once

#include <initializer_list>
#include <optional>
#include <pqxx/pqxx>
#include <span>
#include <string>
#include <utility>

#include "domain/result.hpp"
#include "infra/postgres/account_store.hpp"

namespace duepay::infra::accounts {

// Who makes a change: an API key, a dashboard wallet, or an operator (`duepay admin`).
using Actor = postgres::AuditActor;

// A new key of the same project and mode replaces `key_id`, which keeps working for
// `expires_in_seconds` (0: stops now). The new key is 32 random bytes (`dp_test_`/`dp_live_` + 64
// hex), returned once and stored only as its SHA-256; a new test key is derived instead when
// `test_keys` is given (the dashboard's rolls). nullopt: the key is unknown, revoked, expired
// or already rolled (nothing changed).
struct NewKey {
    postgres::RolledKey rolled;
    std::string secret;  // the new key itself: shown once
};
// An audit row's changes: a JSON object of the given string fields.
std::string audit_changes(std::initializer_list<std::pair<const char*, std::string>> fields);

// A random id: `prefix` + 24 hex digits (prj_, key_, ses_, wch_).
std::string new_id(const std::string& prefix);

// The server secret test keys are derived from (DUEPAY_SERVER_SECRET, docs/adr/0080); empty: a
// new test key is random like a live one, and cannot be shown again.
using TestKeySecret = std::span<const std::uint8_t>;

// A new key of `project_id` in `mode` ("test" | "live"), stored as its SHA-256 only: a live key is
// 32 random bytes (shown once), a test key is derived from `test_keys` (shown again by deriving
// it). Audited as api_key.created.
struct CreatedKey {
    postgres::ApiKeyRecord key;
    std::string secret;
};
CreatedKey create_key(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                      const Actor& actor, TestKeySecret test_keys);

std::optional<NewKey> roll_key(pqxx::work& tx, const std::string& key_id, int expires_in_seconds,
                               const Actor& actor, TestKeySecret test_keys = {});

// Applies `changes` (validated by the caller: domain/accounts/project_settings) and writes an audit
// row of what actually changed (none if nothing did). The project after, or nullopt if unknown.
std::optional<postgres::ProjectRecord> update_project(pqxx::work& tx, const std::string& project_id,
                                                      const postgres::ProjectChanges& changes,
                                                      const Actor& actor);

// A challenge for (project, address) valid `ttl_seconds`: random id and nonce, message of
// domain::accounts::wallet_challenge_message. `address` is EIP-55.
postgres::WalletChallenge issue_wallet_challenge(pqxx::work& tx, const std::string& project_id,
                                                 const std::string& address, int ttl_seconds);

struct WalletVerification {
    std::string project_id;
    std::string address;                           // EIP-55
    std::string signature;                         // 0x + 130 hex, by `address`
    std::optional<std::string> nonce;              // which challenge; default the newest
    std::optional<std::string> current_signature;  // by the verified wallet being replaced
    bool require_current_wallet = true;            // false for duepay admin (ADR 0171)
    Actor actor;
};

// Checks the proof (domain::accounts::check_wallet_proof) and, when it holds: marks the challenge
// used, sets the payout address and writes the audit row. Errors: project_not_found,
// invalid_signature, challenge_not_found, and those of check_wallet_proof; nothing is written then.
domain::Result<postgres::ProjectRecord> verify_wallet(pqxx::work& tx,
                                                      const WalletVerification& request);

}  // namespace duepay::infra::accounts
