// The charge-creation rate limit (GCRA, per project, per minute by plan) and the Free plan's
// monthly quota, decided together in one call of the SQL function take_charge_creation
// (schemas/migrations/0030_guards.sql) on the database clock, so the limit holds across any number
// of api processes. docs/limits.md has the rules; ADR 0070 the reasons.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "domain/ports/api.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

struct CreationLimits {
    int per_minute = 30;
    std::optional<std::int64_t> monthly_quota;  // nullopt: unlimited
    bool unmetered = false;  // dev/ops plan `unmetered`: no rate limit, no quota, no database call
};

// Per plan: free 30/min and 8,000 a month; pro 60/min; scale 120/min (no quota). An unknown plan
// gets the free limits (the safe side). `unmetered` (set only by `duepay admin`, for the demo
// project and load benches) has no limit at all.
CreationLimits creation_limits_for_plan(std::string_view plan);

// The vocabulary is the port's (domain/ports/api.hpp, ADR 0182).
using ports::LimitDecision;
using ports::LimitOutcome;

// The Postgres adapter of the ports::CreationLimiter port: limits by plan
// (creation_limits_for_plan).
class RateLimiter final : public ports::CreationLimiter {
  public:
    explicit RateLimiter(ConnectionPool& pool) : pool_(pool) {}

    // Takes one creation for the project if both the quota and the rate allow it; changes nothing
    // on a refusal. `unmetered` limits are allowed without touching the database (month empty).
    // Throws DatabaseUnavailable.
    LimitDecision take_charge_creation(const std::string& project_id, const CreationLimits& limits);

    // Gives back the quota unit of an allowed creation that created no charge (it failed before
    // the event log acknowledged it). The rate token is kept: the limit counts attempts.
    void refund_quota(const domain::ProjectId& project, const std::string& month) override;

    // take_charge_creation with the limits of `plan`.
    LimitDecision take(const domain::ProjectId& project, const std::string& plan) override;

  private:
    ConnectionPool& pool_;
};

}  // namespace duepay::infra::postgres
