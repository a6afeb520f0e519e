// SQL of the stats read model (schemas/migrations/0245_project_stats.sql, ADR 0245): the
// projector's upserts of a batch's sums, in the caller's transaction (the charges rows and the
// offsets commit with them), and the overview's reads, bounded by key and day range.
#pragma once

#include <cstdint>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "domain/reports/stats_delta.hpp"

namespace duepay::infra::postgres {

// Adds `rows` to charge_stats_daily, charge_paid_seconds and charge_status_counts: one statement
// per table, rows in key order (two writers lock them in the same order).
void upsert_charge_stats(pqxx::transaction_base& tx, const domain::reports::StatsRows& rows);

// What the overview reads of one project and mode, days [first_day, last_day] ("YYYY-MM-DD").
struct StoredDaily {
    int day = 0;  // days after first_day
    std::int64_t chain_id = 0;
    std::string token;
    std::string fiat_currency;  // "" for charges priced in the token
    std::string token_symbol;
    int token_decimals = 0;
    std::int64_t created = 0;
    std::int64_t converted = 0;
    std::int64_t entered_paid = 0;
    std::int64_t payments = 0;
    std::string paid_volume;  // numeric text
    std::string paid_fiat;
    std::int64_t refunds = 0;
    std::string refunded_volume;
};
struct StoredStats {
    std::vector<StoredDaily> daily;  // by day, chain, token, currency (their bytes)
    std::vector<std::pair<std::string, std::int64_t>> statuses;  // status, charges
    std::vector<std::pair<int, std::int64_t>> paid_time;         // bucket, charges (summed)
    std::int64_t webhook_attempts = 0;
    std::int64_t webhook_succeeded = 0;
};
StoredStats read_project_stats(pqxx::transaction_base& tx, const std::string& project_id,
                               const std::string& mode, const std::string& first_day,
                               const std::string& last_day);

// Counts webhook attempts in webhook_attempt_stats: `outcomes_json` is the dispatcher's batch
// (jsonb_to_recordset with endpoint_id and delivered), attributed to each endpoint's project and
// mode on today's UTC day.
void count_webhook_attempts(pqxx::transaction_base& tx, const std::string& outcomes_json);

}  // namespace duepay::infra::postgres
