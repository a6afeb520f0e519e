// The quarantine of consumer events (ADR 0043, migration 0050): a record a consumer cannot apply
// is stored with its raw bytes and the error, in the consumer's own transaction (so the quarantine
// row and the partition offset commit together), and the consumer moves on. Shared by every
// consumer role (projector, chainwatch, webhooks); `duepay admin quarantine list|retry` reads it.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <string_view>
#include <vector>

#include "infra/metrics/metrics.hpp"

namespace duepay::infra::postgres {

// One record that could not be applied, as consumed.
struct QuarantinedRecord {
    std::string consumer_group;
    std::string topic;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    std::optional<std::string> key;  // raw bytes
    std::string value;               // raw bytes
    std::string error;               // escaped before storing (domain::escape_for_log)
};

// A stored row.
struct QuarantineEntry {
    std::int64_t id = 0;
    QuarantinedRecord record;
    int attempts = 0;
    std::string first_seen_at;  // RFC 3339 UTC
    std::string last_tried_at;
    std::optional<std::string> resolved_at;
};

// True for a Postgres error caused by the data of one event, which no retry can fix: SQLSTATE class
// 22 (data exception: invalid byte sequence, NUL in text or jsonb, value too long...), 23
// (integrity constraint violation: check, not null...) and 54 (program limit exceeded). Everything
// else (connection lost, serialization failure, admin shutdown...) is infrastructure: retry, never
// skip.
bool is_event_level_failure(const pqxx::sql_error& error);

// Stores `record` (or, if its group and position are already there, bumps attempts, renews the
// error and reopens it); returns its id. Logs a loud line and counts it (quarantined_total).
std::int64_t quarantine_record(pqxx::transaction_base& tx, const QuarantinedRecord& record);

// Rows in id order, open ones only unless `include_resolved`; of one group when given.
std::vector<QuarantineEntry> list_quarantined(pqxx::transaction_base& tx,
                                              const std::optional<std::string>& group,
                                              bool include_resolved, std::size_t limit = 1000);

std::optional<QuarantineEntry> find_quarantined(pqxx::transaction_base& tx, std::int64_t id);

// After a retry: resolved (resolved_at = now) or failed again (error renewed). Both bump attempts.
void mark_quarantine_resolved(pqxx::transaction_base& tx, std::int64_t id);
void mark_quarantine_failed(pqxx::transaction_base& tx, std::int64_t id, std::string_view error);

// For a consumer without its own transaction (chainwatch): records in a transaction of its own on
// a connection opened at first use and reopened after a failure. Throws what Postgres throws.
class QuarantineWriter {
  public:
    explicit QuarantineWriter(std::string database_url) : url_(std::move(database_url)) {}
    std::int64_t record(const QuarantinedRecord& record);

  private:
    std::string url_;
    std::unique_ptr<pqxx::connection> conn_;
};

// Process-wide counter of records quarantined (by consumer group) since start, for /metrics
// (duepay_quarantined_events_total{group}). Counted when quarantine_record is called; a caller
// whose transaction then fails meets the record again and counts it again.
std::map<std::string, std::uint64_t> quarantined_total();

// The same count as a series, duepay_quarantined_events_total{group} (ADR 0131); a consumer
// touches its own at start so the series shows 0 before any quarantine.
metrics::Counter& quarantined_counter(const std::string& group);

}  // namespace duepay::infra::postgres
