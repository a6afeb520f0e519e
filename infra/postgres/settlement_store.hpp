// SQL of the `settlement_lines` read model (migration 0240, docs/reports.md, ADR 0240) and its
// per-day sums (`settlement_daily`, migration 0250, ADR 0250): the projector's insert (in its
// transaction) and the report's reads, keyset pages over the period index and the totals.
// PgSettlementReports is the adapter of ports::SettlementReports.
#pragma once

#include <pqxx/pqxx>
#include <vector>

#include "domain/ports/reports.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/postgres/settlement_row.hpp"

namespace duepay::infra::postgres {

// Inserts the rows that are not there yet (same invoice, kind, tx hash and log index) and adds
// them, and only them, to settlement_daily, in one statement; a row already there is kept as it
// is and adds nothing.
void insert_settlements(pqxx::transaction_base& tx, const std::vector<SettlementRow>& rows);

// Up to query.limit rows of the period after query.after, in the report's order.
std::vector<SettlementRow> settlement_page(pqxx::transaction_base& tx,
                                           const ports::SettlementQuery& query);

// The totals of the period, by SQL sums (exact numerics): its whole UTC days from
// settlement_daily, the rows of a partial first or last day from settlement_lines. Equal to the
// sums of the period's settlement_lines rows.
domain::reports::SettlementTotals settlement_totals(pqxx::transaction_base& tx,
                                                    const ports::SettlementQuery& query);

class PgSettlementReports final : public ports::SettlementReports {
  public:
    explicit PgSettlementReports(ConnectionPool& pool) : pool_(pool) {}
    std::vector<ports::SettlementLine> page(const ports::SettlementQuery& query) override;
    domain::reports::SettlementTotals totals(const ports::SettlementQuery& query) override;

  private:
    ConnectionPool& pool_;
};

}  // namespace duepay::infra::postgres
