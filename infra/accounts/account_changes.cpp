#include "infra/accounts/account_changes.hpp"

#include "domain/accounts/payout_wallet.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip191.hpp"
#include "domain/hex.hpp"
#include "domain/ports/signer.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"

namespace duepay::infra::accounts {
namespace {

namespace pg = postgres;
using domain::json::opt_str;
using domain::json::str;
using domain::json::Writer;

std::string random_hex_id(const std::string& prefix) { return new_id(prefix); }

std::string text_of(const rapidjson::StringBuffer& b) { return {b.GetString(), b.GetSize()}; }

// {"field": {"from": a, "to": b}} for one changed field.
void change(Writer& w, const char* field, const std::optional<std::string>& from,
            const std::optional<std::string>& to) {
    w.Key(field);
    w.StartObject();
    opt_str(w, "from", from);
    opt_str(w, "to", to);
    w.EndObject();
}

domain::Result<domain::Address> recover(const std::string& message, const std::string& text) {
    auto signature = domain::evm::parse_signature(text);
    if (!signature) return signature.error();
    return crypto::recover_signer(domain::evm::personal_message_hash(message), *signature);
}

// A random key, or for a test key with a server secret the derived one.
std::string new_secret(const std::string& mode, const std::string& key_id,
                       TestKeySecret test_keys) {
    if (mode == "test" && !test_keys.empty()) return random::derive_test_key(test_keys, key_id);
    return "dp_" + mode + "_" + domain::to_hex(random::random_bytes<32>()).substr(2);
}

}  // namespace

std::string audit_changes(std::initializer_list<std::pair<const char*, std::string>> fields) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    for (const auto& [name, value] : fields) str(w, name, value);
    w.EndObject();
    return text_of(b);
}

std::string new_id(const std::string& prefix) {
    return prefix + domain::to_hex(random::random_bytes<12>()).substr(2);
}

CreatedKey create_key(pqxx::work& tx, const std::string& project_id, const std::string& mode,
                      const Actor& actor, TestKeySecret test_keys) {
    const auto id = random_hex_id("key_");
    const auto secret = new_secret(mode, id, test_keys);
    pg::upsert_api_key(tx, id, project_id, mode, random::sha256(secret), secret.substr(0, 12));
    pg::insert_account_audit(tx, project_id, actor, "api_key.created",
                             audit_changes({{"keyId", id}, {"mode", mode}}));
    return CreatedKey{*pg::find_api_key(tx, id), secret};
}

std::optional<NewKey> roll_key(pqxx::work& tx, const std::string& key_id, int expires_in_seconds,
                               const Actor& actor, TestKeySecret test_keys) {
    auto old = pg::find_api_key(tx, key_id);
    if (!old) return std::nullopt;
    const auto new_key_id = random_hex_id("key_");
    const auto secret = new_secret(old->mode, new_key_id, test_keys);
    auto rolled = pg::roll_api_key(tx, key_id, new_key_id, random::sha256(secret),
                                   secret.substr(0, 12), expires_in_seconds);
    if (!rolled) return std::nullopt;
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "newKeyId", rolled->key.id);
    opt_str(w, "expiresAt", rolled->previous.expires_at);
    w.EndObject();
    pg::insert_account_audit(tx, rolled->previous.project_id, actor, "api_key.rolled", text_of(b));
    return NewKey{std::move(*rolled), secret};
}

std::optional<pg::ProjectRecord> update_project(pqxx::work& tx, const std::string& project_id,
                                                const pg::ProjectChanges& changes,
                                                const Actor& actor) {
    auto before = pg::find_project(tx, project_id);
    if (!before || !pg::update_project(tx, project_id, changes)) return std::nullopt;
    auto after = pg::find_project(tx, project_id);
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    bool any = false;
    auto field = [&](const char* name, const std::optional<std::string>& from,
                     const std::optional<std::string>& to) {
        if (from == to) return;
        change(w, name, from, to);
        any = true;
    };
    field("name", before->name, after->name);
    field("plan", before->plan, after->plan);
    if (before->payment_window_seconds != after->payment_window_seconds) {
        w.Key("paymentWindowSeconds");
        w.StartObject();
        w.Key("from");
        w.Int(before->payment_window_seconds);
        w.Key("to");
        w.Int(after->payment_window_seconds);
        w.EndObject();
        any = true;
    }
    field("logoUrl", before->logo_url, after->logo_url);
    field("accentColor", before->accent_color, after->accent_color);
    w.EndObject();
    if (any) pg::insert_account_audit(tx, project_id, actor, "project.updated", text_of(b));
    return after;
}

pg::WalletChallenge issue_wallet_challenge(pqxx::work& tx, const std::string& project_id,
                                           const std::string& address, int ttl_seconds) {
    const auto nonce = domain::to_hex(random::random_bytes<16>()).substr(2);
    return pg::insert_wallet_challenge(tx, random_hex_id("wch_"), project_id, address, nonce,
                                       ttl_seconds, [&](const std::string& expires) {
                                           return domain::accounts::wallet_challenge_message(
                                               project_id, address, nonce, expires);
                                       });
}

domain::Result<pg::ProjectRecord> verify_wallet(pqxx::work& tx, const WalletVerification& r) {
    // The signature's form first: a malformed one is a 400 whatever the challenge's state.
    if (auto s = domain::evm::parse_signature(r.signature); !s) return s.error();
    // The project row first: two proofs verified at once must not both pass against the same
    // "current wallet" (a first wallet set by a key must not race past the merchant's).
    if (!pg::lock_project(tx, r.project_id)) {
        return domain::make_error("project_not_found", "no project " + r.project_id);
    }
    auto project = pg::find_project(tx, r.project_id);
    auto c = pg::find_wallet_challenge(tx, r.project_id, r.address, r.nonce);
    if (!c) {
        return domain::make_error("challenge_not_found",
                                  "no challenge for this project and address; request one");
    }
    auto address = domain::evm::parse_address(r.address);
    if (!address) return address.error();
    domain::accounts::WalletProof proof{
        .challenge_used = c->used,
        .challenge_expired = c->expired,
        .challenge_expires_at = c->expires_at,
        .address = *address,
        .signer = recover(c->message, r.signature),
        .current_wallet = std::nullopt,
        .current_signer = std::nullopt,
        .require_current_wallet = r.require_current_wallet,
    };
    if (project->payout_address) {
        auto current = domain::evm::parse_address(*project->payout_address);
        if (current) proof.current_wallet = *current;
    }
    if (r.current_signature) proof.current_signer = recover(c->message, *r.current_signature);
    if (auto refused = domain::accounts::check_wallet_proof(proof)) return *refused;

    pg::mark_challenge_used(tx, c->id);
    pg::set_payout_address(tx, r.project_id, r.address);
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    change(w, "payoutAddress", project->payout_address, r.address);
    str(w, "challengeId", c->id);
    w.Key("currentWalletSigned");
    w.Bool(proof.current_signer.has_value() && proof.current_signer->ok());
    w.EndObject();
    pg::insert_account_audit(tx, r.project_id, r.actor, "payout_wallet.verified", text_of(b));
    return *pg::find_project(tx, r.project_id);
}

}  // namespace duepay::infra::accounts
