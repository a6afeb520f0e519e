#include "infra/postgres/rate_limiter.hpp"

#include "infra/error.hpp"

namespace duepay::infra::postgres {

CreationLimits creation_limits_for_plan(std::string_view plan) {
    if (plan == "pro") return CreationLimits{60, std::nullopt};
    if (plan == "scale") return CreationLimits{120, std::nullopt};
    if (plan == "unmetered") return CreationLimits{0, std::nullopt, true};
    return CreationLimits{30, 8000};
}

LimitDecision RateLimiter::take_charge_creation(const std::string& project_id,
                                                const CreationLimits& limits) {
    if (limits.unmetered) return LimitDecision{};
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto rows = tx.exec_params(
            "select outcome, retry_after_ms, month::text, month_count, decided_at::text "
            "from take_charge_creation($1, $2, $3)",
            project_id, limits.per_minute, limits.monthly_quota);
        if (rows.size() != 1) throw InfraError("take_charge_creation returned no row", false);
        const auto& r = rows[0];
        LimitDecision d;
        const auto outcome = r[0].as<std::string>();
        if (outcome == "allowed") {
            d.outcome = LimitOutcome::allowed;
        } else if (outcome == "rate_limited") {
            d.outcome = LimitOutcome::rate_limited;
        } else if (outcome == "quota_exceeded") {
            d.outcome = LimitOutcome::quota_exceeded;
        } else {
            throw InfraError("take_charge_creation: unknown outcome " + outcome, false);
        }
        d.retry_after_ms = r[1].as<std::int64_t>();
        d.month = r[2].as<std::string>();
        d.month_count = r[3].as<std::int64_t>();
        d.decided_at = r[4].as<std::string>();
        return d;
    });
}

LimitDecision RateLimiter::take(const domain::ProjectId& project, const std::string& plan) {
    return take_charge_creation(project.value, creation_limits_for_plan(plan));
}

void RateLimiter::refund_quota(const domain::ProjectId& project, const std::string& month) {
    if (month.empty()) return;  // an unmetered plan counted nothing
    pool_.with_transaction([&](pqxx::work& tx) {
        tx.exec_params(
            "update monthly_usage set count = count - 1 where project_id = $1 and month = $2::date "
            "and count > 0",
            project.value, month);
    });
}

}  // namespace duepay::infra::postgres
