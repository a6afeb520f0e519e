// The operator's account calls (account_admin.hpp).
#include "infra/accounts/account_admin.hpp"

#include <pqxx/pqxx>

#include "infra/accounts/account_changes.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::accounts {

namespace pg = infra::postgres;

struct AccountAdmin::Connection {
    std::unique_ptr<pqxx::connection> conn;

    // Runs `work` in a transaction of type Tx, committing a read-write one when `work` returns
    // (a rejection thrown by the caller's callback rolls it back). A lost connection is
    // DatabaseUnavailable.
    template <class Tx, class F>
    auto run(F&& work) {
        try {
            Tx tx(*conn);
            if constexpr (std::is_void_v<decltype(work(tx))>) {
                work(tx);
                if constexpr (std::is_same_v<Tx, pqxx::work>) tx.commit();
            } else {
                auto out = work(tx);
                if constexpr (std::is_same_v<Tx, pqxx::work>) tx.commit();
                return out;
            }
        } catch (const pqxx::broken_connection& e) {
            throw pg::DatabaseUnavailable(e.what());
        }
    }
};

namespace {

std::unique_ptr<pqxx::connection> open(const std::string& url) {
    try {
        return std::make_unique<pqxx::connection>(url);
    } catch (const pqxx::broken_connection& e) {
        throw pg::DatabaseUnavailable(e.what());
    }
}

}  // namespace

AccountAdmin::AccountAdmin(const std::string& database_url)
    : conn_(new Connection{open(database_url)}) {}

AccountAdmin::~AccountAdmin() = default;

pg::ProjectRecord AccountAdmin::create_project(const pg::ProjectRecord& project,
                                               const std::optional<std::string>& owner) {
    return conn_->run<pqxx::work>([&](pqxx::work& tx) {
        pg::insert_project(tx, project);
        if (owner) {
            tx.exec_params(
                "insert into project_members (project_id, address, role) values ($1, $2, "
                "'owner')",
                project.id, *owner);
        }
        pg::insert_account_audit(tx, project.id, Actor::admin_operator(), "project.created",
                                 owner ? audit_changes({{"name", project.name}, {"owner", *owner}})
                                       : audit_changes({{"name", project.name}}));
        return *pg::find_project(tx, project.id);
    });
}

std::optional<pg::ProjectRecord> AccountAdmin::find_project(const std::string& project_id) {
    return conn_->run<pqxx::read_transaction>(
        [&](pqxx::read_transaction& tx) { return pg::find_project(tx, project_id); });
}

std::optional<pg::ProjectRecord> AccountAdmin::update_project(const std::string& project_id,
                                                              const pg::ProjectChanges& changes) {
    return conn_->run<pqxx::work>(
        [&](pqxx::work& tx) { return accounts::update_project(tx, project_id, changes, Actor{}); });
}

std::optional<pg::ApiKeyRecord> AccountAdmin::create_key(const std::string& key_id,
                                                         const std::string& project_id,
                                                         const std::string& mode,
                                                         const random::Digest32& key_hash,
                                                         const std::string& key_prefix) {
    return conn_->run<pqxx::work>([&](pqxx::work& tx) -> std::optional<pg::ApiKeyRecord> {
        if (!pg::find_project(tx, project_id)) return std::nullopt;
        pg::upsert_api_key(tx, key_id, project_id, mode, key_hash, key_prefix);
        pg::insert_account_audit(tx, project_id, Actor::admin_operator(), "api_key.created",
                                 audit_changes({{"keyId", key_id}, {"mode", mode}}));
        return pg::find_api_key(tx, key_id);
    });
}

std::optional<pg::ApiKeyRecord> AccountAdmin::find_key(const std::string& key_id) {
    return conn_->run<pqxx::read_transaction>(
        [&](pqxx::read_transaction& tx) { return pg::find_api_key(tx, key_id); });
}

std::optional<std::vector<pg::ApiKeyRecord>> AccountAdmin::list_keys(
    const std::string& project_id) {
    return conn_->run<pqxx::read_transaction>(
        [&](pqxx::read_transaction& tx) -> std::optional<std::vector<pg::ApiKeyRecord>> {
            if (!pg::find_project(tx, project_id)) return std::nullopt;
            return pg::list_api_keys(tx, project_id);
        });
}

std::optional<pg::ApiKeyRecord> AccountAdmin::revoke_key(const std::string& key_id) {
    return conn_->run<pqxx::work>([&](pqxx::work& tx) {
        auto before = pg::find_api_key(tx, key_id);
        auto after = pg::revoke_api_key(tx, key_id);
        if (before && after && !before->revoked_at) {
            pg::insert_account_audit(tx, after->project_id, Actor::admin_operator(),
                                     "api_key.revoked", audit_changes({{"keyId", key_id}}));
        }
        return after;
    });
}

std::optional<pg::WalletChallenge> AccountAdmin::issue_wallet_challenge(
    const std::string& project_id, const std::string& address, int ttl_seconds) {
    return conn_->run<pqxx::work>([&](pqxx::work& tx) -> std::optional<pg::WalletChallenge> {
        if (!pg::find_project(tx, project_id)) return std::nullopt;
        return accounts::issue_wallet_challenge(tx, project_id, address, ttl_seconds);
    });
}

domain::Result<pg::ProjectRecord> AccountAdmin::verify_wallet(const WalletVerification& request) {
    try {
        pqxx::work tx(*conn_->conn);
        auto verified = accounts::verify_wallet(tx, request);
        if (verified) tx.commit();  // a rejection wrote nothing: rolled back
        return verified;
    } catch (const pqxx::broken_connection& e) {
        throw pg::DatabaseUnavailable(e.what());
    }
}

bool AccountAdmin::ensure_demo(const pg::ProjectSpec& project, const std::string& key_id,
                               const std::string& mode, const random::Digest32& key_hash,
                               const std::string& key_prefix) {
    try {
        pqxx::work tx(*conn_->conn);
        pg::upsert_project(tx, project);
        if (!pg::upsert_api_key(tx, key_id, project.id, mode, key_hash, key_prefix)) {
            tx.abort();
            return false;
        }
        tx.commit();
        return true;
    } catch (const pqxx::broken_connection& e) {
        throw pg::DatabaseUnavailable(e.what());
    }
}

}  // namespace duepay::infra::accounts
