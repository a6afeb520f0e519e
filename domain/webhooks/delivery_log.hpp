// What the delivery log keeps of an attempt and says about an endpoint (docs/webhooks.md
// "Delivery log", docs/adr/0235-webhook-delivery-log-in-the-dashboard.md). Pure.
//
// The response excerpt: the first bytes of a receiver's answer, kept as safe text so that any page
// may show it (escaped as usual) and no terminal or log reader is fooled by it. Invalid UTF-8
// becomes U+FFFD, tab, CR, LF and the line and paragraph separators become a space, every other
// control character (C0, DEL, C1) and every bidirectional formatting character is dropped; the
// result is cut at a character boundary to at most kResponseExcerptBytes bytes. Only the
// response is ever kept: never the request body, a header or a secret.
//
// The health: the share of an endpoint's attempts of the last 24 hours that were delivered (a 2xx
// answer), counted over at most kHealthAttemptCap of the newest (a bounded query), in permille
// rounded down, so that one failure among many never reads as 100 %.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace duepay::domain::webhooks {

inline constexpr std::size_t kResponseExcerptBytes = 256;

std::string response_excerpt(std::string_view body, std::size_t max_bytes = kResponseExcerptBytes);

inline constexpr int kHealthWindowHours = 24;
inline constexpr std::int64_t kHealthAttemptCap = 1000;

struct AttemptCounts {
    std::int64_t attempts = 0;   // in the window, at most kHealthAttemptCap
    std::int64_t delivered = 0;  // of those, answered 2xx
};

// delivered / attempts in permille, rounded down; nullopt when there was no attempt.
std::optional<int> success_permille(const AttemptCounts& counts);
// "97.5 %", "100 %", "0 %"; empty when there was no attempt.
std::string success_rate_text(const AttemptCounts& counts);

enum class EndpointHealth {
    disabled_failing,  // disabled by the dispatcher: no success for the disable period
    disabled,          // disabled by hand
    failing,           // the last attempt failed (failing_since is set)
    idle,              // no attempt in the window
    degraded,          // under 95 % delivered in the window
    healthy,
};

struct HealthInputs {
    bool enabled = true;
    bool disabled_for_failing = false;  // disabled_reason = 'failing'
    bool failing = false;               // failing_since is set
    AttemptCounts counts;
};
EndpointHealth endpoint_health(const HealthInputs& in);
// "disabled_failing", "disabled", "failing", "idle", "degraded", "healthy".
std::string_view to_string(EndpointHealth h);

}  // namespace duepay::domain::webhooks
