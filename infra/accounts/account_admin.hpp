// What `duepay admin demo|project|key|wallet` asks of the account data (docs/accounts.md): one
// connection per command, each call one transaction. The rules (plan, window, branding, proof)
// are checked by the caller or by account_changes; SQL is infra/postgres/account_store. Here so
// consumers/ names no libpqxx type (ADR 0205). Throws postgres::DatabaseUnavailable when the
// connection is lost or cannot be opened (the admin's `database_unavailable`), what Postgres
// throws otherwise.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "domain/result.hpp"
#include "infra/accounts/account_changes.hpp"
#include "infra/postgres/account_store.hpp"

namespace duepay::infra::accounts {

class AccountAdmin {
  public:
    explicit AccountAdmin(const std::string& database_url);
    ~AccountAdmin();
    AccountAdmin(const AccountAdmin&) = delete;
    AccountAdmin& operator=(const AccountAdmin&) = delete;

    // Inserts the project (owned in the dashboard by `owner`, an EIP-55 address, when given) and
    // reads it back. Audited as the operator's, as every change below.
    postgres::ProjectRecord create_project(const postgres::ProjectRecord& project,
                                           const std::optional<std::string>& owner = {});
    std::optional<postgres::ProjectRecord> find_project(const std::string& project_id);
    // account_changes' update_project by an operator; nullopt: no such project.
    std::optional<postgres::ProjectRecord> update_project(const std::string& project_id,
                                                          const postgres::ProjectChanges& changes);

    // A key of an existing project (nullopt: no such project, nothing stored).
    std::optional<postgres::ApiKeyRecord> create_key(const std::string& key_id,
                                                     const std::string& project_id,
                                                     const std::string& mode,
                                                     const random::Digest32& key_hash,
                                                     const std::string& key_prefix);
    std::optional<postgres::ApiKeyRecord> find_key(const std::string& key_id);
    // nullopt: no such project.
    std::optional<std::vector<postgres::ApiKeyRecord>> list_keys(const std::string& project_id);
    std::optional<postgres::ApiKeyRecord> revoke_key(const std::string& key_id);

    // nullopt: no such project.
    std::optional<postgres::WalletChallenge> issue_wallet_challenge(const std::string& project_id,
                                                                    const std::string& address,
                                                                    int ttl_seconds);
    domain::Result<postgres::ProjectRecord> verify_wallet(const WalletVerification& request);

    // The demo project and its key (upserted); false, and nothing changed, when the key was
    // revoked or rolled (it stays so).
    bool ensure_demo(const postgres::ProjectSpec& project, const std::string& key_id,
                     const std::string& mode, const random::Digest32& key_hash,
                     const std::string& key_prefix);

  private:
    struct Connection;
    std::unique_ptr<Connection> conn_;
};

}  // namespace duepay::infra::accounts
