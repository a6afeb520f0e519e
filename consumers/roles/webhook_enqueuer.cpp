// The enqueuer of the webhooks role (webhook_loops.hpp): its own consumer group on the
// charge-event topic; journals each event, re-folds the touched charges with domain/charge and,
// for each status change, stores the webhook event and one delivery per subscribed endpoint in the
// SAME transaction as its offsets (a crash never loses or doubles an enqueue).
#include <map>
#include <pqxx/pqxx>
#include <set>
#include <thread>

#include "consumers/roles/consumer_loop.hpp"
#include "consumers/roles/webhook_loops.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/offset_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "infra/postgres/webhook_store.hpp"

namespace duepay::consumers {
namespace {

constexpr infra::log::Logger kLog{"webhooks"};
namespace ev = domain::events;
namespace pg = infra::postgres;

struct EnqueueStats {
    std::size_t messages = 0;
    std::size_t new_events = 0;
    std::size_t webhook_events = 0;
    std::size_t deliveries = 0;
};

// Journal, re-fold the touched charges, enqueue; with `consuming` also quarantine what cannot be
// decoded (ADR 0043: recorded with its raw bytes, the offset moves on) and store the offsets.
// Returns the first decoding error in `refused` (for a retry from the quarantine). The caller
// commits.
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

void detail::run_webhook_enqueuer(const WebhooksSettings& s, const std::atomic<bool>& stop) {
    LoopConnection db([&] { return std::make_unique<pqxx::connection>(s.database_url); });
    infra::kafka::KafkaConsumer consumer(
        infra::kafka::ConsumerSettings{s.bootstrap, s.group_id, s.topic, "duepay-webhooks"},
        stored_offsets(db, s.group_id));
    kLog.info() << "webhooks: enqueuer in group " << s.group_id << " on " << s.topic;
    ConsumerLoop loop{kLog, "webhooks", s.group_id, s.batch_max, s.poll_timeout_ms};
    EnqueueStats stats;
    loop.apply = [&](pqxx::work& tx, const std::vector<infra::kafka::ConsumedMessage>& batch) {
        stats = apply_messages(tx, s.group_id, batch, true);
    };
    loop.on_committed = [&] {
        if (stats.webhook_events == 0) return;
        kLog.info() << "webhooks: " << stats.webhook_events << " events, " << stats.deliveries
                    << " deliveries queued from " << stats.messages << " messages";
    };
    run_consumer_loop(loop, consumer, db, stop);
}

std::optional<std::string> reapply_webhook_message(pqxx::work& tx,
                                                   const infra::kafka::ConsumedMessage& message) {
    std::optional<std::string> refused;
    apply_messages(tx, "", {message}, false, &refused);
    return refused;
}

}  // namespace duepay::consumers
