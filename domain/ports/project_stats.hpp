// What the dashboard's overview reads (docs/dashboard.md "Overview", ADR 0245): the stats read
// model of one project and mode over a range of UTC days, never the charges themselves. The
// Postgres adapter is infra/postgres/project_stats (rows by key and day range: at most 90 days x
// tokens x currencies); unit tests use tests/doubles/project_stats_double.hpp. Throws
// StoreUnavailable when the store cannot be reached.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "domain/ports/api.hpp"
#include "domain/reports/stats_delta.hpp"

namespace duepay::ports {

using domain::reports::BigInt;

// Days first_day .. last_day ("YYYY-MM-DD", UTC, both included).
struct StatsQuery {
    ProjectId project;
    Mode mode = Mode::test;
    std::string first_day;
    std::string last_day;
};

// One day of one token (and one quote currency) as domain/reports/stats_delta.hpp defines it,
// with what the overview shows of it (not the fiat value of the refunds).
struct DailyStats {
    int day = 0;  // days after the query's first_day: 0 .. the period's length - 1
    domain::ChainId chain_id;
    domain::Address token;
    std::optional<domain::money::FiatCurrency> currency;  // none: charges priced in the token
    std::string token_symbol;
    unsigned token_decimals = 0;
    std::int64_t created = 0;
    std::int64_t converted = 0;  // of the charges created this day, those paid since
    std::int64_t entered_paid = 0;
    std::int64_t payments = 0;
    BigInt paid;       // smallest unit of the token
    BigInt paid_fiat;  // minor units of `currency`
    std::int64_t refunds = 0;
    BigInt refunded;
};

struct ProjectStatsView {
    std::vector<DailyStats> days;                            // the period's rows, by day
    std::vector<std::pair<Status, std::int64_t>> by_status;  // now, whatever the period
    // Charges paid in the period per bucket of domain/reports/paid_time.hpp (kPaidTimeBuckets).
    std::vector<std::int64_t> paid_time;
    std::int64_t webhook_attempts = 0;  // in the period
    std::int64_t webhook_succeeded = 0;
};

class ProjectStats {
  public:
    virtual ~ProjectStats() = default;
    virtual ProjectStatsView read(const StatsQuery& query) = 0;
};

}  // namespace duepay::ports
