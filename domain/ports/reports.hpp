// The settlement report's port (docs/reports.md, ADR 0240): the rows of `settlement_lines` of one
// project and mode over a period, in keyset pages, and their totals. The REST report
// (api/http/reports_api) and the dashboard's reports page read through it; the Postgres adapter
// is infra/postgres/settlement_store (PgSettlementReports). Every call throws StoreUnavailable
// when the store cannot be reached.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/events/event.hpp"
#include "domain/ports/errors.hpp"
#include "domain/reports/settlement_totals.hpp"
#include "domain/types.hpp"

namespace duepay::ports {

// One row of the report, as stored (the projection wrote it: projections/charges).
struct SettlementLine {
    std::string invoice_id;  // 0x + 64 lower-case hex
    std::string kind;        // payment | refund
    std::string tx_hash;     // 0x + 64 lower-case hex
    std::int64_t log_index = 0;
    std::string project_id;
    std::string mode;  // test | live
    std::uint64_t chain_id = 0;
    std::string token;  // EIP-55
    std::optional<std::string> token_symbol;
    int token_decimals = 0;
    std::uint64_t block_number = 0;
    std::string confirmed_at;  // RFC 3339 UTC with milliseconds (the event's occurredAt)
    std::optional<std::string> reference;
    std::optional<std::string> metadata_json;  // JSON object text; null when the charge has none
    std::string amount;  // signed decimal integer in the token's smallest unit (refunds < 0)
    std::string fee;
    std::string net;
    std::optional<std::string> fiat_currency;  // THB | USD; the four below with it
    std::optional<std::string> fiat_rate;      // exact ("35.12" or "10001/278")
    std::optional<std::string> fiat_amount;    // signed decimal, 2 fraction digits
    std::optional<std::string> fiat_fee;
    std::optional<std::string> fiat_net;
    std::optional<std::string> refund_id;  // refunds
    std::int64_t confirmed_us = 0;         // confirmed_at in unix microseconds (read side only)

    bool operator==(const SettlementLine&) const = default;
};

// Where a page ends: the row's place in the report's order (confirmed_at, invoice_id, kind,
// tx_hash, log_index).
struct SettlementPosition {
    std::int64_t confirmed_us = 0;
    std::string invoice_id;
    std::string kind;
    std::string tx_hash;
    std::int64_t log_index = 0;
};
SettlementPosition position_of(const SettlementLine& line);

struct SettlementQuery {
    domain::ProjectId project_id;
    domain::events::Mode mode = domain::events::Mode::test;
    std::int64_t from_ms = 0;                 // confirmed_at >= from
    std::int64_t to_ms = 0;                   // confirmed_at < to
    std::optional<SettlementPosition> after;  // the next page: rows after this one
    std::size_t limit = 1000;
};

class SettlementReports {
  public:
    virtual ~SettlementReports() = default;
    // Up to query.limit rows of the period after query.after, in the report's order.
    virtual std::vector<SettlementLine> page(const SettlementQuery& query) = 0;
    // The totals of every row of the period (query.after and query.limit are ignored).
    virtual domain::reports::SettlementTotals totals(const SettlementQuery& query) = 0;
};

inline SettlementPosition position_of(const SettlementLine& line) {
    return {line.confirmed_us, line.invoice_id, line.kind, line.tx_hash, line.log_index};
}

}  // namespace duepay::ports
