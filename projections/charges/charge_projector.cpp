#include "projections/charges/charge_projector.hpp"

#include <iostream>
#include <map>
#include <set>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/offset_store.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::projections::charges {

namespace ev = domain::events;

BatchStats apply_batch(pqxx::work& tx, const std::string& group_id,
                       const std::vector<infra::kafka::ConsumedMessage>& batch) {
    BatchStats stats;
    stats.messages = batch.size();
    // The read model can be rebuilt from the log and the offsets commit atomically with it, so a
    // commit lost in a Postgres crash is simply projected again: no need to wait for the WAL flush.
    tx.exec("set local synchronous_commit = off");
    std::map<std::pair<std::string, std::int32_t>, std::int64_t> next_offsets;
    std::vector<infra::postgres::JournalEntry> entries;
    entries.reserve(batch.size());
    for (const auto& message : batch) {
        auto& next = next_offsets[{message.topic, message.partition}];
        next = std::max(next, message.offset + 1);
        auto event = ev::decode_event(message.value);
        if (!event) {
            ++stats.malformed;
            std::cerr << "projector: skipping malformed event at " << message.topic << "/" << message.partition
                      << "@" << message.offset << ": " << event.error().message << std::endl;
            continue;
        }
        infra::postgres::JournalEntry entry;
        entry.event_id = event->id;
        entry.invoice_id = domain::to_hex(event->invoice_id);
        entry.topic = message.topic;
        entry.partition = message.partition;
        entry.offset = message.offset;
        entry.type = std::string(ev::event_type(*event));
        entry.payload = message.value;
        entries.push_back(std::move(entry));
    }
    const auto inserted = infra::postgres::insert_journal_entries(tx, entries);
    stats.new_events = inserted.size();
    stats.duplicates = entries.size() - inserted.size();
    std::set<std::string> touched;
    for (const auto& entry : entries) {
        if (inserted.contains(entry.event_id)) touched.insert(entry.invoice_id);
    }
    if (!touched.empty()) {
        const std::vector<std::string> ids(touched.begin(), touched.end());
        const auto journal = infra::postgres::load_journal(tx, ids);
        std::vector<infra::postgres::ChargeRow> rows;
        rows.reserve(ids.size());
        std::size_t i = 0;
        while (i < journal.size()) {
            const std::string& invoice_id = journal[i].first;
            std::vector<ev::Event> events;
            for (; i < journal.size() && journal[i].first == invoice_id; ++i) {
                auto event = ev::decode_event(journal[i].second);
                if (event) events.push_back(std::move(event).value());
            }
            if (auto row = project_charge(events)) {
                rows.push_back(std::move(*row));
            } else {
                std::cerr << "projector: " << invoice_id << " has no charge.created yet; row deferred" << std::endl;
            }
        }
        infra::postgres::upsert_charges(tx, rows);
        stats.charges = rows.size();
        infra::postgres::notify_charges(tx, ids);
    }
    for (const auto& [tp, next] : next_offsets) {
        infra::postgres::store_next_offset(tx, group_id, tp.first, tp.second, next);
    }
    return stats;
}

}  // namespace duepay::projections::charges
