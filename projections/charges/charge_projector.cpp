#include "projections/charges/charge_projector.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <set>
#include <stdexcept>
#include <string_view>
#include <unordered_set>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/charge_stats_store.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/offset_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "infra/postgres/settlement_store.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::projections::charges {

constexpr infra::log::Logger kLog{"projector"};
namespace {

namespace ev = domain::events;
using infra::kafka::ConsumedMessage;

const ev::SchemaVersions& versions_of(const ApplyOptions& options) {
    return options.versions != nullptr ? *options.versions : ev::schema_versions();
}

// A decoded record, ready to journal.
struct Decoded {
    const ConsumedMessage* message = nullptr;
    infra::postgres::JournalEntry entry;
    ev::Event event;
};

// The journaled events of `ids`, decoded, per invoice in log order.
ChargeEvents load_charge_events(pqxx::transaction_base& tx, const std::vector<std::string>& ids,
                                const ev::SchemaVersions& versions) {
    const auto journal = infra::postgres::load_journal(tx, ids);
    ChargeEvents out;
    for (const auto& [invoice_id, payload] : journal) {
        if (out.empty() || out.back().first != invoice_id)
            out.emplace_back(invoice_id, std::vector<ev::Event>{});
        auto event = ev::decode_event(payload, versions);
        if (event) out.back().second.push_back(std::move(event).value());
    }
    return out;
}

// The records newly journaled: every record when the journal took them all (a COPY), else those
// whose event id the INSERT returned (`inserted`), the first of two same ids in the batch being
// the journaled one. In log order.
std::vector<const Decoded*> fresh_records(const std::vector<Decoded>& records,
                                          const std::set<std::string>* inserted) {
    std::vector<const Decoded*> fresh;
    fresh.reserve(records.size());
    std::unordered_set<std::string_view> taken;
    for (const auto& r : records) {
        const auto& id = r.entry.event_id;
        if (inserted == nullptr || (inserted->contains(id) && taken.insert(id).second))
            fresh.push_back(&r);
    }
    return fresh;
}

// The rows of the charges touched by the `fresh` records: folded in `memory`; or else, for a
// charge journaled for the first time by this batch (`first_journaled`), folded from its fresh
// records, whose journal they are; or else re-folded from the journal. Charges without
// charge.created: `deferred`.
ChargeMemory::Folded fold_touched(pqxx::transaction_base& tx,
                                  const std::vector<const Decoded*>& fresh,
                                  const std::set<std::string>& first_journaled,
                                  const ApplyOptions& options) {
    const auto& versions = versions_of(options);
    if (auto* memory = options.memory; memory != nullptr) {
        std::vector<const ev::Event*> events;
        events.reserve(fresh.size());
        for (const auto* r : fresh) events.push_back(&r->event);
        return memory->fold(events,
                            [&](const auto& ids) { return load_charge_events(tx, ids, versions); });
    }
    ChargeMemory::Folded out;
    // A brand-new charge (a create, under load nearly every charge of a batch) needs no journal
    // read-back (ADR 0186): the batch's fresh records of it, in log order.
    std::map<std::string, std::vector<const Decoded*>> new_charges;
    std::set<std::string> journaled;
    for (const auto* r : fresh) {
        const auto& id = r->entry.invoice_id;
        if (first_journaled.contains(id)) {
            new_charges[id].push_back(r);
        } else {
            journaled.insert(id);
        }
    }
    ChargeEvents charges =
        journaled.empty() ? ChargeEvents{}
                          : load_charge_events(tx, {journaled.begin(), journaled.end()}, versions);
    for (auto& [invoice_id, batch] : new_charges) {
        std::stable_sort(batch.begin(), batch.end(), [](const Decoded* a, const Decoded* b) {
            return std::pair(a->entry.partition, a->entry.offset) <
                   std::pair(b->entry.partition, b->entry.offset);
        });
        std::vector<ev::Event> events;
        events.reserve(batch.size());
        for (const auto* r : batch) events.push_back(r->event);
        charges.emplace_back(invoice_id, std::move(events));
    }
    std::unordered_set<std::string_view> fresh_ids;
    for (const auto* r : fresh) fresh_ids.insert(r->entry.event_id);
    const auto is_fresh = [&](const ev::Event& e) { return fresh_ids.contains(e.id); };
    for (const auto& [invoice_id, events] : charges) {
        // Every settlement row of the charge, not only the fresh events': the insert keeps the
        // rows already there, and a charge projected before migration 0240 gets its rows.
        if (auto projected = project_charge(events, is_fresh, out.stats)) {
            out.rows.push_back(std::move(projected->row));
            out.settlements.insert(out.settlements.end(),
                                   std::make_move_iterator(projected->settlements.begin()),
                                   std::make_move_iterator(projected->settlements.end()));
        } else {
            out.deferred.push_back(invoice_id);
        }
    }
    return out;
}

// Journals `records`, folds every charge they touch and upserts its row (no offsets).
void apply_decoded(pqxx::transaction_base& tx, const std::vector<Decoded>& records,
                   BatchStats& stats, ApplyOptions options) {
    std::vector<const infra::postgres::JournalEntry*> entries;
    entries.reserve(records.size());
    for (const auto& r : records) entries.push_back(&r.entry);
    const bool bulk = options.bulk && options.memory != nullptr;
    std::set<std::string> first_journaled;
    std::vector<const Decoded*> fresh;
    if (bulk && infra::postgres::copy_journal_entries(tx, entries)) {
        fresh = fresh_records(records, nullptr);
    } else {
        const auto inserted = infra::postgres::insert_journal_entries(
            tx, entries, options.memory == nullptr ? &first_journaled : nullptr);
        fresh = fresh_records(records, &inserted);
    }
    stats.new_events += fresh.size();
    stats.duplicates += records.size() - fresh.size();
    if (fresh.empty()) return;
    auto folded = fold_touched(tx, fresh, first_journaled, options);
    for (const auto& invoice_id : folded.deferred) {
        kLog.warn().with("invoice_id", invoice_id)
            << "projector: " << invoice_id << " has no charge.created yet; row deferred";
    }
    if (bulk) {
        infra::postgres::copy_charges(tx, folded.new_rows);
    } else {
        folded.rows.insert(folded.rows.end(), std::make_move_iterator(folded.new_rows.begin()),
                           std::make_move_iterator(folded.new_rows.end()));
    }
    infra::postgres::upsert_charges(tx, folded.rows);
    // The rows other writers share (per-day sums) always in this order, the stats first: a
    // transaction that applies records one by one (after a refused one) touches the stats of a
    // charge.created before another record's settlement sums, and the reverse order let it
    // deadlock with a worker applying a whole batch.
    infra::postgres::upsert_charge_stats(tx, folded.stats);
    infra::postgres::insert_settlements(tx, folded.settlements);
    stats.charges += folded.rows.size() + (bulk ? folded.new_rows.size() : 0);
    if (options.notify) {
        std::set<std::string> touched;
        for (const auto* r : fresh) touched.insert(r->entry.invoice_id);
        infra::postgres::notify_charges(tx, {touched.begin(), touched.end()});
    }
}

// Applies `records` in a savepoint of `tx`: nullopt when applied, else the event-level error (the
// savepoint is rolled back). Infrastructure errors propagate.
std::optional<std::string> try_apply(pqxx::work& tx, const std::vector<Decoded>& records,
                                     BatchStats& stats, ApplyOptions options = {}) {
    // A plain SAVEPOINT rather than pqxx::subtransaction: libpqxx 6.4 left the outer transaction
    // aborted after a failed statement in a subtransaction (seen in poison_test).
    BatchStats local;
    std::optional<std::string> error;
    tx.exec("savepoint apply_events");
    // The memory follows the savepoint: staged states kept on release, dropped on rollback.
    const auto discard = [&] {
        if (options.memory != nullptr) options.memory->discard();
    };
    try {
        apply_decoded(tx, records, local, options);
    } catch (const pqxx::sql_error& e) {
        discard();
        if (!infra::postgres::is_event_level_failure(e)) throw;
        error = std::string(e.what()) + " (SQLSTATE " + e.sqlstate() + ")";
    } catch (const pqxx::usage_error&) {
        discard();
        throw;  // our bug, not the event's
    } catch (const std::invalid_argument& e) {
        error = std::string("projection: ") + e.what();  // the pure mapping refused the event
    } catch (const std::out_of_range& e) {
        error = std::string("projection: ") + e.what();
    } catch (...) {
        discard();
        throw;
    }
    if (error) {
        discard();
        tx.exec("rollback to savepoint apply_events");
        return error;
    }
    tx.exec("release savepoint apply_events");
    if (options.memory != nullptr) options.memory->keep();
    stats.new_events += local.new_events;
    stats.duplicates += local.duplicates;
    stats.charges += local.charges;
    return std::nullopt;
}

domain::Result<Decoded> decode(const ConsumedMessage& message, const ev::SchemaVersions& versions) {
    auto event = ev::decode_event(message.value, versions);
    if (!event) return event.error();
    Decoded d;
    d.message = &message;
    d.entry.event_id = event->id;
    d.entry.invoice_id = domain::to_hex(event->invoice_id);
    d.entry.topic = message.topic;
    d.entry.partition = message.partition;
    d.entry.offset = message.offset;
    d.entry.type = std::string(ev::event_type(*event));
    d.entry.payload = message.value;
    d.event = std::move(event).value();
    return d;
}

void quarantine(pqxx::transaction_base& tx, const std::string& group_id,
                const ConsumedMessage& message, const std::string& error, BatchStats& stats) {
    infra::postgres::QuarantinedRecord record;
    record.consumer_group = group_id;
    record.topic = message.topic;
    record.partition = message.partition;
    record.offset = message.offset;
    record.key = message.key;
    record.value = message.value;
    record.error = error;
    infra::postgres::quarantine_record(tx, record);
    ++stats.quarantined;
}

}  // namespace

BatchStats apply_batch(infra::postgres::Transaction& tx, const std::string& group_id,
                       const std::vector<ConsumedMessage>& batch, ApplyOptions options) {
    return apply_batch(tx.work(), group_id, batch, options);
}

BatchStats apply_batch(pqxx::work& tx, const std::string& group_id,
                       const std::vector<ConsumedMessage>& batch, ApplyOptions options) {
    BatchStats stats;
    stats.messages = batch.size();
    // The read model can be rebuilt from the log and the offsets commit atomically with it, so a
    // commit lost in a Postgres crash is simply projected again: no need to wait for the WAL flush.
    tx.exec("set local synchronous_commit = off");
    infra::postgres::NextOffsets next_offsets;
    std::vector<Decoded> records;
    records.reserve(batch.size());
    for (const auto& message : batch) {
        auto& next = next_offsets[{message.topic, message.partition}];
        next = std::max(next, message.offset + 1);
        auto decoded = decode(message, versions_of(options));
        if (!decoded) {
            quarantine(tx, group_id, message, decoded.error().message, stats);
            ++stats.failed_by_type["undecodable"];
            continue;
        }
        records.push_back(std::move(decoded).value());
    }
    if (!records.empty() && try_apply(tx, records, stats, options)) {
        // Some event of the batch is refused: apply them one by one, quarantine the refused ones.
        for (const auto& record : records) {
            if (auto error = try_apply(tx, {record}, stats, options)) {
                quarantine(tx, group_id, *record.message, *error, stats);
                ++stats.failed_by_type[record.entry.type];
            } else {
                ++stats.applied_by_type[record.entry.type];
            }
        }
    } else {
        for (const auto& record : records) ++stats.applied_by_type[record.entry.type];
    }
    infra::postgres::store_next_offsets(tx, group_id, next_offsets);
    return stats;
}

std::optional<std::string> reapply_message(pqxx::work& tx, const ConsumedMessage& message) {
    auto decoded = decode(message, ev::schema_versions());
    if (!decoded) return decoded.error().message;
    BatchStats stats;
    return try_apply(tx, {std::move(decoded).value()}, stats);
}

}  // namespace duepay::projections::charges
