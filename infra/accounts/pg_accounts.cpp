#include "infra/accounts/pg_accounts.hpp"

#include <utility>

#include "infra/accounts/account_changes.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_store.hpp"

namespace duepay::infra::accounts {
namespace pg = postgres;

ports::ProjectView project_view(pg::ProjectRecord p) {
    ports::ProjectView v;
    v.id = ports::ProjectId{std::move(p.id)};
    v.name = std::move(p.name);
    v.plan = std::move(p.plan);
    v.payment_window_seconds = p.payment_window_seconds;
    v.payout_address = std::move(p.payout_address);
    v.payout_verified_at = std::move(p.payout_verified_at);
    v.logo_url = std::move(p.logo_url);
    v.accent_color = std::move(p.accent_color);
    v.created_at = std::move(p.created_at);
    return v;
}

namespace {

std::optional<ports::ProjectView> view_of(std::optional<pg::ProjectRecord> p) {
    if (!p) return std::nullopt;
    return project_view(std::move(*p));
}

ports::ProjectView view_of(pg::ProjectRecord p) { return project_view(std::move(p)); }

}  // namespace

std::optional<ports::ProjectView> PgAccounts::find_project(const ports::ProjectId& project) {
    return view_of(pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) { return pg::find_project(tx, project.value); }));
}

ports::KeyRoll key_roll(NewKey rolled) {
    auto& k = rolled.rolled.key;
    ports::KeyRoll r;
    r.key_id = std::move(k.id);
    r.secret = std::move(rolled.secret);
    r.project_id = ports::ProjectId{std::move(k.project_id)};
    r.mode = pg::stored_mode(k.mode);
    r.prefix = std::move(k.prefix);
    r.created_at = std::move(k.created_at);
    r.previous_key_id = std::move(rolled.rolled.previous.id);
    r.previous_expires_at = std::move(rolled.rolled.previous.expires_at);
    return r;
}

std::optional<ports::KeyRoll> PgAccounts::roll_key(const std::string& key_id,
                                                   int expires_in_seconds) {
    auto rolled = pool_.with_transaction([&](pqxx::work& tx) {
        return accounts::roll_key(tx, key_id, expires_in_seconds, Actor::key(key_id));
    });
    if (!rolled) return std::nullopt;
    return key_roll(std::move(*rolled));
}

std::optional<ports::ProjectView> PgAccounts::update_project(const ports::ProjectId& project,
                                                             const ports::ProjectUpdate& update,
                                                             const std::string& key_id) {
    pg::ProjectChanges c;
    c.name = update.name;
    c.payment_window_seconds = update.payment_window_seconds;
    c.logo_url = update.logo_url;
    c.accent_color = update.accent_color;
    return view_of(pool_.with_transaction([&](pqxx::work& tx) {
        return accounts::update_project(tx, project.value, c, Actor::key(key_id));
    }));
}

ports::IssuedChallenge PgAccounts::issue_wallet_challenge(const ports::ProjectId& project,
                                                          const std::string& address,
                                                          int ttl_seconds) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto p = pg::find_project(tx, project.value);
        auto c = accounts::issue_wallet_challenge(tx, project.value, address, ttl_seconds);
        return ports::IssuedChallenge{std::move(c.id),      std::move(c.address),
                                      std::move(c.nonce),   std::move(c.expires_at),
                                      std::move(c.message), p ? p->payout_address : std::nullopt};
    });
}

domain::Result<ports::ProjectView> PgAccounts::verify_wallet(const ports::WalletProofRequest& proof,
                                                             const std::string& key_id) {
    WalletVerification v;
    v.project_id = proof.project_id.value;
    v.address = proof.address;
    v.signature = proof.signature;
    v.nonce = proof.nonce;
    v.current_signature = proof.current_signature;
    v.require_current_wallet = true;  // a key always proves the current wallet (ADR 0171)
    v.actor = Actor::key(key_id);
    auto p = pool_.with_transaction([&](pqxx::work& tx) { return accounts::verify_wallet(tx, v); });
    if (!p) return p.error();
    return view_of(std::move(p).value());
}

}  // namespace duepay::infra::accounts
