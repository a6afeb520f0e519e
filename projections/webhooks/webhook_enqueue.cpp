// The webhooks role's enqueue (webhook_enqueue.hpp).
#include "projections/webhooks/webhook_enqueue.hpp"

#include <algorithm>
#include <set>
#include <variant>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/postgres/offset_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "infra/postgres/webhook_store.hpp"

namespace duepay::projections::webhooks {
namespace {

namespace ev = domain::events;
namespace pg = infra::postgres;

// Journal, re-fold the touched charges, enqueue; with `consuming` also quarantine what cannot be
// decoded and store the offsets. Returns the first decoding error in `refused` (for a retry from
// the quarantine). The caller commits.
EnqueueStats apply_messages(pqxx::work& tx, const std::string& group_id,
                            const std::vector<infra::kafka::ConsumedMessage>& batch, bool consuming,
                            std::optional<std::string>* refused = nullptr) {
    EnqueueStats stats;
    stats.messages = batch.size();
    pg::NextOffsets next_offsets;
    std::vector<pg::WebhookJournalEntry> entries;
    for (const auto& m : batch) {
        auto& next = next_offsets[{m.topic, m.partition}];
        next = std::max(next, m.offset + 1);
        auto event = ev::decode_event(m.value);
        if (!event) {
            if (refused != nullptr && !*refused) *refused = event.error().message;
            if (consuming) {
                // logs loudly and counts
                pg::quarantine_record(tx, {group_id, m.topic, m.partition, m.offset, m.key, m.value,
                                           event.error().message});
            }
            continue;
        }
        entries.push_back(
            {event->id, domain::to_hex(event->invoice_id), m.partition, m.offset, m.value});
    }
    const auto inserted = pg::insert_webhook_journal(tx, entries);
    stats.new_events = inserted.size();
    std::set<std::string> touched;
    for (const auto& e : entries) {
        if (inserted.contains(e.event_id)) touched.insert(e.invoice_id);
    }
    const auto journal =
        pg::load_webhook_journal(tx, std::vector<std::string>(touched.begin(), touched.end()));
    std::size_t i = 0;
    while (i < journal.size()) {
        const std::string invoice_id = journal[i].first;
        auto state = domain::charge::initial_state();
        std::optional<ev::Event> created;
        for (; i < journal.size() && journal[i].first == invoice_id; ++i) {
            auto event = ev::decode_event(journal[i].second);
            if (!event) continue;
            if (!created && std::holds_alternative<ev::ChargeCreated>(event->data))
                created = *event;
            auto before = state;
            domain::charge::apply(state, *event);
            if (!inserted.contains(event->id) || !created) continue;
            for (auto& w : domain::webhooks::webhook_events_for(before, state, *event, *created)) {
                pg::WebhookEventRow row;
                row.id = std::move(w.id);
                row.type = std::move(w.type);
                row.project_id = event->project_id;
                row.mode = std::string(ev::to_string(event->mode));
                row.invoice_id = invoice_id;
                row.charge_event_id = event->id;
                row.body = std::move(w.body);
                stats.deliveries += pg::enqueue_webhook_event(tx, row);
                ++stats.webhook_events;
            }
        }
    }
    if (consuming) pg::store_next_offsets(tx, group_id, next_offsets);
    return stats;
}

}  // namespace

EnqueueStats enqueue_batch(infra::postgres::Transaction& tx, const std::string& group_id,
                           const std::vector<infra::kafka::ConsumedMessage>& batch) {
    return apply_messages(tx.work(), group_id, batch, true);
}

std::optional<std::string> reapply_webhook_message(pqxx::work& tx,
                                                   const infra::kafka::ConsumedMessage& message) {
    std::optional<std::string> refused;
    apply_messages(tx, "", {message}, false, &refused);
    return refused;
}

}  // namespace duepay::projections::webhooks
