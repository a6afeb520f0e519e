// The Postgres adapter of the API's Accounts port (api/http/ports.hpp, ADR 0198): each call is
// one transaction of the pool running the shared account rules of account_changes.hpp (the same
// ones `duepay admin` runs) with its audit row. It lives beside those rules rather than in
// infra/postgres, which they depend on. Rows are translated into the port's vocabulary; an
// unreachable database is DatabaseUnavailable (the pool's retry, then the throw), never a driver
// exception.
#pragma once

#include <optional>
#include <string>

#include "api/http/ports.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::accounts {

class PgAccounts final : public api::Accounts {
  public:
    explicit PgAccounts(postgres::ConnectionPool& pool) : pool_(pool) {}

    std::optional<api::ProjectView> find_project(const api::ProjectId& project) override;
    std::optional<api::KeyRoll> roll_key(const std::string& key_id,
                                         int expires_in_seconds) override;
    std::optional<api::ProjectView> update_project(const api::ProjectId& project,
                                                   const api::ProjectUpdate& update,
                                                   const std::string& key_id) override;
    api::IssuedChallenge issue_wallet_challenge(const api::ProjectId& project,
                                                const std::string& address,
                                                int ttl_seconds) override;
    domain::Result<api::ProjectView> verify_wallet(const api::WalletProofRequest& proof,
                                                   const std::string& key_id) override;

  private:
    postgres::ConnectionPool& pool_;
};

}  // namespace duepay::infra::accounts
