// The Postgres adapter of ports::ProjectStats (domain/ports/project_stats.hpp): the overview's
// reads of the stats read model (charge_stats_store), translated into the port's vocabulary. An
// unreachable database is DatabaseUnavailable (the port's StoreUnavailable); text the projection
// cannot have written is an InfraError that names it.
#pragma once

#include "domain/ports/project_stats.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

class PgProjectStats final : public ports::ProjectStats {
  public:
    explicit PgProjectStats(ConnectionPool& pool) : pool_(pool) {}
    ports::ProjectStatsView read(const ports::StatsQuery& query) override;

  private:
    ConnectionPool& pool_;
};

}  // namespace duepay::infra::postgres
