// A synthetic but valid stream of charge events for the projector tests, and the check that the
// read model equals the fold of what the topic holds.
#pragma once

#include <string>
#include <vector>

#include "domain/ports/event_log.hpp"
#include "infra/kafka/kafka_consumer.hpp"

namespace duepay::tests {

// `invoices` charges of five records each: charge.created, payment_detected, then paid (even i)
// or payment_reorged (odd i), a re-emitted copy of the detection (same event id: a duplicate the
// projector must apply once), then settled (even) or expired (odd). Keys are the invoice ids.
std::vector<ports::LogRecord> make_event_stream(int invoices, const std::string& tag);

// Appends every record with the real producer; returns how many were acked as persisted.
std::size_t produce_all(const std::string& bootstrap, const std::string& topic,
                        const std::vector<ports::LogRecord>& records);

struct ReadModelCheck {
    std::size_t invoices = 0;             // distinct invoices in the topic
    std::size_t distinct_events = 0;      // distinct event ids in the topic
    std::size_t journal_rows = 0;         // charge_events rows of the topic
    std::size_t rows_checked = 0;         // charges rows compared
    std::vector<std::string> mismatches;  // human-readable, empty when equal
};

// Re-folds every invoice of `messages` (a fresh read of the topic) with domain::charge::fold and
// compares with the charges rows and charge_events journal in Postgres, row by row.
ReadModelCheck check_read_model(const std::string& database_url, const std::string& topic,
                                const std::vector<infra::kafka::ConsumedMessage>& messages);

// Sum of stored next offsets of `group` on `topic` (= messages applied, for a fresh topic).
long long stored_offset_sum(const std::string& database_url, const std::string& group,
                            const std::string& topic);

// charge_events rows journaled from `topic`.
long long journal_count(const std::string& database_url, const std::string& topic);

// The read model of `topic` as text, to compare two projections of it: every charges row of an
// invoice journaled from `topic` (row_to_json, by invoice id), then every charge_events row of
// `topic` without projected_at (by event id).
std::vector<std::string> read_model_rows(const std::string& database_url, const std::string& topic);

// Deletes that read model (the charges rows and the journal of `topic`), so that another consumer
// group can project the topic again from nothing.
void drop_read_model(const std::string& database_url, const std::string& topic);

}  // namespace duepay::tests
