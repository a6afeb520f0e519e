// SQL of the events API (GET /v1/events, docs/events-api.md): the merchant-facing events that the
// webhooks role stores in webhook_events for every charge event, endpoint or not (migrations 0100
// and 0165). Only `invoice.*` types are merchant events (`webhook.test` belongs to one endpoint).
// Keyset pages on (occurred_at, id), newest first: an event committed while a merchant pages is
// either above the first page or met in order, never twice.
#pragma once

#include <cstdint>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace duepay::infra::postgres {

// A position in the listing: the last event of the previous page.
struct MerchantEventPosition {
    std::int64_t occurred_ms = 0;  // the event's createdAt, unix milliseconds
    std::string id;
};

struct MerchantEventQuery {
    std::string project_id;
    std::string mode;
    std::optional<std::string> type;             // one invoice.* type
    std::optional<std::int64_t> created_gte_ms;  // createdAt >= this
    std::optional<MerchantEventPosition> after;  // strictly older than this position
    std::size_t limit = 20;
};

struct MerchantEvent {
    MerchantEventPosition position;
    std::string body;  // {id, type, createdAt, mode, data}: the exact webhook body
};

std::vector<MerchantEvent> list_merchant_events(pqxx::work& tx, const MerchantEventQuery& query);

std::optional<MerchantEvent> find_merchant_event(pqxx::work& tx, const std::string& project_id,
                                                 const std::string& mode, const std::string& id);

}  // namespace duepay::infra::postgres
