// The Postgres adapter of the API's Accounts port (domain/ports/api.hpp, ADR 0198): each call is
// one transaction of the pool (find_project, one statement, runs outside one) running the shared
// account rules of account_changes.hpp (the same ones `duepay admin` runs) with its audit row. It
// lives beside those rules rather than in infra/postgres, which they depend on. Rows are translated
// into the port's vocabulary; an unreachable database is DatabaseUnavailable (the pool's retry,
// then the throw), never a driver exception.
#pragma once

#include <optional>
#include <string>

#include "domain/ports/api.hpp"
#include "infra/accounts/account_changes.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::accounts {

// A project row, and a roll, in the ports' vocabulary.
ports::ProjectView project_view(postgres::ProjectRecord project);
ports::KeyRoll key_roll(NewKey rolled);

class PgAccounts final : public ports::Accounts {
  public:
    explicit PgAccounts(postgres::ConnectionPool& pool) : pool_(pool) {}

    std::optional<ports::ProjectView> find_project(const ports::ProjectId& project) override;
    std::optional<ports::KeyRoll> roll_key(const std::string& key_id,
                                           int expires_in_seconds) override;
    std::optional<ports::ProjectView> update_project(const ports::ProjectId& project,
                                                     const ports::ProjectUpdate& update,
                                                     const std::string& key_id) override;
    ports::IssuedChallenge issue_wallet_challenge(const ports::ProjectId& project,
                                                  const std::string& address,
                                                  int ttl_seconds) override;
    domain::Result<ports::ProjectView> verify_wallet(const ports::WalletProofRequest& proof,
                                                     const std::string& key_id) override;

  private:
    postgres::ConnectionPool& pool_;
};

}  // namespace duepay::infra::accounts
