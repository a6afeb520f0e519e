// The webhook events of a charge event (docs/design.md, docs/webhooks.md): one per status change of
// the fold (`invoice.<status>`, none for a return to pending), `invoice.late_payment` for a late
// deposit, `invoice.refunded` for every recorded refund, partial ones included, and
// `invoice.exception_resolved` for every recorded resolution (ADR 0230). Body {id, type,
// createdAt, mode, data}; the id is stable per (charge event, type), so a replay of the topic or a
// retry carries the same id and receivers can de-duplicate on it.
#pragma once

#include <array>
#include <string>
#include <string_view>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"

namespace duepay::domain::webhooks {

inline constexpr std::string_view kTestEventType = "webhook.test";

// Every type an endpoint may subscribe to, in documentation order.
inline constexpr auto kWebhookEventTypes = std::to_array<std::string_view>(
    {"invoice.paid", "invoice.confirming", "invoice.underpaid", "invoice.expired",
     "invoice.late_payment", "invoice.refunded", "invoice.failed", "invoice.exception_resolved",
     kTestEventType});

bool is_webhook_event_type(std::string_view type);

struct WebhookEvent {
    std::string id;    // evt_ + 48 hex
    std::string type;  // one of kWebhookEventTypes
    std::string body;  // the exact JSON that is signed and sent
};

// "evt_" + the first 24 bytes (hex) of keccak-256("duepay.webhook|<charge event id>|<type>").
std::string webhook_event_id(std::string_view charge_event_id, std::string_view type);

// What applying `event` to `before` (giving `after`) must tell the merchant. `created` is the
// charge's charge.created event (reference, token, amount, fiat breakdown). Empty when nothing
// a merchant sees changed (duplicates, settlement, a reorg back to pending).
std::vector<WebhookEvent> webhook_events_for(const charge::ChargeState& before,
                                             const charge::ChargeState& after,
                                             const events::Event& event,
                                             const events::Event& created);

// The body of a `webhook.test` event sent to one endpoint.
WebhookEvent test_event(std::string id, std::string_view created_at, events::Mode mode,
                        std::string_view endpoint_id);

}  // namespace duepay::domain::webhooks
