#include "domain/webhooks/endpoint_fields.hpp"

#include <algorithm>

#include "domain/text.hpp"
#include "domain/webhooks/webhook_event.hpp"

namespace duepay::domain::webhooks {

Result<std::vector<std::string>> check_event_types(const std::vector<std::string_view>& types) {
    if (types.empty()) {
        return make_error("invalid_webhook_events",
                          "events must be a non-empty array of event types");
    }
    std::vector<std::string> out;
    for (const auto t : types) {
        if (!is_webhook_event_type(t)) {
            return make_error(
                "invalid_webhook_events",
                "unknown event type; known: invoice.paid, invoice.confirming, invoice.underpaid, "
                "invoice.expired, invoice.late_payment, invoice.refunded, invoice.failed, "
                "invoice.exception_resolved, webhook.test");
        }
        if (std::find(out.begin(), out.end(), t) == out.end()) out.emplace_back(t);
    }
    return out;
}

Result<std::string> check_description(std::string_view description) {
    if (description.size() > kMaxDescriptionLength || !is_storable_text(description)) {
        return make_error("invalid_description",
                          "description must be a string of at most 255 characters");
    }
    return std::string(description);
}

Result<long long> check_secret_overlap(long long seconds) {
    if (seconds < 0 || seconds > kMaxSecretOverlapSeconds) {
        return make_error("invalid_expires_in",
                          "expiresInSeconds must be an integer from 0 to 604800");
    }
    return seconds;
}

}  // namespace duepay::domain::webhooks
