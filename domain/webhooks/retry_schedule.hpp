// When a failed delivery is tried again (docs/webhooks.md). The default schedule starts fast and
// backs off: ~5 s, ~5 min, ~30 min, ~2 h, ~5 h, ~10 h, then every ~10 h, until 3 days after the
// first attempt; each delay is spread by +-20 % jitter so retries of many events to one endpoint do
// not arrive in lock-step. DUEPAY_WEBHOOK_RETRY_SCHEDULE may replace it (tests shorten it):
// "<d>,<d>,...[/<give up after>]" with durations such as 500ms, 5s, 5m, 2h, 3d.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>
#include <vector>

#include "domain/result.hpp"

namespace duepay::domain::webhooks {

struct RetrySchedule {
    std::vector<std::chrono::milliseconds>
        delays;  // after the 1st, 2nd, ... failure; the last repeats
    std::chrono::milliseconds give_up_after{std::chrono::hours(72)};  // since the first attempt
};

RetrySchedule default_retry_schedule();

// Code "invalid_retry_schedule" for anything but the grammar above.
Result<RetrySchedule> parse_retry_schedule(std::string_view text);

// The delay before the next attempt after `failures` failed attempts (>= 1), or nullopt when the
// delivery has been failing for longer than give_up_after (then it is marked failed).
// `jitter` in [0, 1) scales the delay by 0.8 + 0.4 * jitter.
std::optional<std::chrono::milliseconds> next_retry_delay(
    const RetrySchedule& schedule, int failures, std::chrono::milliseconds since_first_attempt,
    double jitter);

}  // namespace duepay::domain::webhooks
