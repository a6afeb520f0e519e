// The projector role (docs/style.md): one loop that polls the charge-event topic with a short
// timeout, applies each batch to Postgres in one transaction (events, rows, offsets), and only
// then polls again. Offsets live in Postgres; Kafka never gets a commit from this role.
#pragma once

#include <atomic>
#include <cstddef>
#include <string>

#include "domain/events/upcast.hpp"

namespace duepay::consumers {

struct ProjectorSettings {
    std::string bootstrap;
    std::string topic;
    std::string group_id = "duepay-projector";
    std::string database_url;
    std::size_t batch_max = 1000;
    int poll_timeout_ms = 100;
    int fetch_wait_max_ms = 100;  // idle long poll; a new record is fetched at once (ADR 0140)
    int fetch_min_bytes = 1;
    bool trace = false;                 // DUEPAY_PROJECTOR_TRACE=1: log every committed batch
    std::int64_t ready_max_lag = 1000;  // DUEPAY_READY_MAX_LAG
    // The event versions records are read with; null: this build's (a test injects its own table,
    // tests/integration/analysts/schema_versions_test.cpp; never set from the environment).
    const domain::events::SchemaVersions* versions = nullptr;
};

// KAFKA_BOOTSTRAP, DATABASE_URL, DUEPAY_TOPIC, DUEPAY_PROJECTOR_GROUP, the tuning knobs
// DUEPAY_PROJECTOR_FETCH_WAIT_MS and DUEPAY_PROJECTOR_FETCH_MIN_BYTES (docs/tuning.md) and
// DUEPAY_PROJECTOR_TRACE; throws on a missing required one.
ProjectorSettings projector_settings_from_env();

// Runs until `stop` is set; returns the process exit code. A failed transaction is retried (the
// batch is re-read from the stored offsets after a short back-off), never skipped.
int run_projector(const ProjectorSettings& settings, const std::atomic<bool>& stop);

}  // namespace duepay::consumers
