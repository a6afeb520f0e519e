#include "infra/postgres/quarantine_store.hpp"

#include <mutex>

#include "domain/hex.hpp"
#include "domain/text.hpp"
#include "infra/error.hpp"
#include "infra/log/log.hpp"

namespace duepay::infra::postgres {

constexpr log::Logger kLog{"postgres"};
namespace {

std::mutex counter_mutex;
std::map<std::string, std::uint64_t> counters;

// Raw bytes travel as hex text: decode($n, 'hex') in, encode(col, 'hex') out.
std::string bytes_to_hex(std::string_view bytes) {
    const auto* p = reinterpret_cast<const std::uint8_t*>(bytes.data());
    return domain::to_hex(std::span<const std::uint8_t>(p, bytes.size())).substr(2);
}

std::string hex_to_bytes(std::string_view hex) {
    auto bytes = domain::from_hex(hex);
    if (!bytes) throw InfraError("quarantine: stored bytes are not hex", false);
    return std::string(bytes->begin(), bytes->end());
}

constexpr const char* kColumns =
    "id, consumer_group, topic, partition, \"offset\", encode(key, 'hex'), encode(value, 'hex'), "
    "error, attempts, "
    "to_char(first_seen_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
    "to_char(last_tried_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
    "to_char(resolved_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"')";

QuarantineEntry read_entry(const pqxx::row& r) {
    QuarantineEntry e;
    e.id = r[0].as<std::int64_t>();
    e.record.consumer_group = r[1].as<std::string>();
    e.record.topic = r[2].as<std::string>();
    e.record.partition = r[3].as<std::int32_t>();
    e.record.offset = r[4].as<std::int64_t>();
    if (!r[5].is_null()) e.record.key = hex_to_bytes(r[5].as<std::string>());
    e.record.value = hex_to_bytes(r[6].as<std::string>());
    e.record.error = r[7].as<std::string>();
    e.attempts = r[8].as<int>();
    e.first_seen_at = r[9].as<std::string>();
    e.last_tried_at = r[10].as<std::string>();
    if (!r[11].is_null()) e.resolved_at = r[11].as<std::string>();
    return e;
}

// Error text is stored and printed: keep it printable whatever bytes the failure quoted.
std::string storable_error(std::string_view error) { return domain::escape_for_log(error, 2000); }

}  // namespace

bool is_event_level_failure(const pqxx::sql_error& error) {
    const std::string& state = error.sqlstate();
    return state.starts_with("22") || state.starts_with("23") || state.starts_with("54");
}

std::int64_t quarantine_record(pqxx::transaction_base& tx, const QuarantinedRecord& record) {
    const std::string error = storable_error(record.error);
    std::optional<std::string> key_hex;
    if (record.key) key_hex = bytes_to_hex(*record.key);
    const auto row = tx.exec_params1(
        "insert into quarantined_events (consumer_group, topic, partition, \"offset\", key, value, "
        "error) "
        "values ($1, $2, $3, $4, decode($5, 'hex'), decode($6, 'hex'), $7) "
        "on conflict (consumer_group, topic, partition, \"offset\") do update set "
        "error = excluded.error, attempts = quarantined_events.attempts + 1, last_tried_at = "
        "now(), "
        "resolved_at = null returning id",
        record.consumer_group, record.topic, record.partition, record.offset, key_hex,
        bytes_to_hex(record.value), error);
    const auto id = row[0].as<std::int64_t>();
    std::uint64_t total = 0;
    {
        std::lock_guard lock(counter_mutex);
        total = ++counters[record.consumer_group];
    }
    quarantined_counter(record.consumer_group).inc();
    kLog.error() << "QUARANTINE " << record.consumer_group << ": event at " << record.topic << "/"
                 << record.partition << "@" << record.offset
                 << " cannot be applied and is quarantined as #" << id
                 << " (duepay admin quarantine list); quarantined_total=" << total << ": " << error;
    return id;
}

std::vector<QuarantineEntry> list_quarantined(pqxx::transaction_base& tx,
                                              const std::optional<std::string>& group,
                                              bool include_resolved, std::size_t limit) {
    const auto rows = tx.exec_params(
        std::string("select ") + kColumns +
            " from quarantined_events where ($1::text is null or consumer_group = $1) "
            "and ($2 or resolved_at is null) order by id limit $3",
        group, include_resolved, static_cast<std::int64_t>(limit));
    std::vector<QuarantineEntry> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(read_entry(r));
    return out;
}

std::optional<QuarantineEntry> find_quarantined(pqxx::transaction_base& tx, std::int64_t id) {
    const auto rows = tx.exec_params(
        std::string("select ") + kColumns + " from quarantined_events where id = $1", id);
    if (rows.empty()) return std::nullopt;
    return read_entry(rows[0]);
}

void mark_quarantine_resolved(pqxx::transaction_base& tx, std::int64_t id) {
    tx.exec_params(
        "update quarantined_events set resolved_at = now(), last_tried_at = now(), attempts = "
        "attempts + 1 "
        "where id = $1",
        id);
}

void mark_quarantine_failed(pqxx::transaction_base& tx, std::int64_t id, std::string_view error) {
    tx.exec_params(
        "update quarantined_events set error = $2, last_tried_at = now(), attempts = attempts + 1 "
        "where id = $1",
        id, storable_error(error));
}

std::int64_t QuarantineWriter::record(const QuarantinedRecord& record) {
    try {
        if (!conn_ || !conn_->is_open()) conn_ = std::make_unique<pqxx::connection>(url_);
        pqxx::work tx(*conn_);
        const auto id = quarantine_record(tx, record);
        tx.commit();
        return id;
    } catch (...) {
        conn_.reset();
        throw;
    }
}

metrics::Counter& quarantined_counter(const std::string& group) {
    return metrics::registry().counter(
        "duepay_quarantined_events_total",
        "Records a consumer could not apply and quarantined (ADR 0043), by consumer group",
        {{"group", group}});
}

std::map<std::string, std::uint64_t> quarantined_total() {
    std::lock_guard lock(counter_mutex);
    return counters;
}

}  // namespace duepay::infra::postgres
