// The Postgres adapter of the dashboard's store (domain/ports/dashboard.hpp; tables of migration
// 0210): a read of one statement runs outside an explicit transaction (one round trip), every
// other call in one transaction of the pool; account changes run the shared rules of
// account_changes.hpp (the ones the REST API and `duepay admin` run) with an audit row naming the
// wallet and its session. An unreachable database is DatabaseUnavailable (a
// ports::StoreUnavailable), never a driver exception.
#pragma once

#include <cstdint>
#include <span>
#include <vector>

#include "domain/ports/dashboard.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::accounts {

// The dashboard pool's on_connect hook, which PgDashboard needs: prepares the API's statements
// (postgres::prepare_api_statements: the charge reader's) and those every signed-in page runs (the
// session touch, the membership, the keys list) on a connection.
void prepare_dashboard_statements(pqxx::connection& conn);

class PgDashboard final : public ports::DashboardStore {
  public:
    // `pool`: its on_connect hook runs prepare_dashboard_statements. `test_keys`: the server secret
    // test keys are derived from (DUEPAY_SERVER_SECRET, ADR 0080), so a test key is shown again by
    // deriving it; nothing secret is stored.
    PgDashboard(postgres::ConnectionPool& pool, std::vector<std::uint8_t> test_keys)
        : pool_(pool), test_keys_(std::move(test_keys)) {}

    void put_nonce(const std::string& nonce, int ttl_seconds) override;
    ports::NonceTake take_nonce(const std::string& nonce) override;

    ports::DashboardSession open_session(const ports::TokenHash& token, const std::string& address,
                                         const std::string& csrf,
                                         const ports::SessionLimits& limits) override;
    std::optional<ports::DashboardSession> touch_session(
        const ports::TokenHash& token, const ports::SessionLimits& limits) override;
    void end_session(const std::string& session_id) override;
    int end_sessions_of(const std::string& address) override;

    std::vector<ports::ProjectMembership> projects_of(const std::string& address) override;
    ports::ProjectMembership create_project(const std::string& name,
                                            const ports::DashboardActor& actor) override;
    std::vector<std::pair<ports::ProjectId, ports::Mode>> charge_scopes(
        const std::vector<std::string>& invoice_ids) override;
    std::optional<ports::ProjectMembership> membership(const ports::ProjectId& project,
                                                       const std::string& address) override;
    std::vector<ports::Member> members(const ports::ProjectId& project) override;
    domain::Result<ports::Member> put_member(const ports::ProjectId& project,
                                             const std::string& address, ports::MemberRole role,
                                             const ports::DashboardActor& actor) override;
    bool remove_member(const ports::ProjectId& project, const std::string& address,
                       const ports::DashboardActor& actor) override;

    std::vector<ports::KeySummary> keys(const ports::ProjectId& project) override;
    ports::CreatedKey create_key(const ports::ProjectId& project, ports::Mode mode,
                                 const ports::DashboardActor& actor) override;
    std::optional<std::string> reveal_test_key(const ports::ProjectId& project,
                                               const std::string& key_id,
                                               const ports::DashboardActor& actor) override;
    bool revoke_key(const ports::ProjectId& project, const std::string& key_id,
                    const ports::DashboardActor& actor) override;
    std::optional<ports::KeyRoll> roll_key(const ports::ProjectId& project,
                                           const std::string& key_id, int expires_in_seconds,
                                           const ports::DashboardActor& actor) override;

    std::optional<ports::ProjectView> find_project(const ports::ProjectId& project) override;
    std::optional<ports::ProjectView> update_project(const ports::ProjectId& project,
                                                     const ports::ProjectUpdate& update,
                                                     const ports::DashboardActor& actor) override;
    ports::IssuedChallenge issue_wallet_challenge(const ports::ProjectId& project,
                                                  const std::string& address,
                                                  int ttl_seconds) override;
    domain::Result<ports::ProjectView> verify_wallet(const ports::WalletProofRequest& proof,
                                                     const ports::DashboardActor& actor) override;
    std::vector<ports::AuditEntry> audit(const ports::ProjectId& project,
                                         std::size_t limit) override;

  private:
    // Whether `hash` is the SHA-256 of the test key derived for `key_id`.
    bool derivable(const std::string& key_id, std::span<const std::uint8_t> hash) const;

    postgres::ConnectionPool& pool_;
    std::vector<std::uint8_t> test_keys_;
};

}  // namespace duepay::infra::accounts
