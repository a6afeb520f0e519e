#include "consumers/roles/projector.hpp"

#include <chrono>
#include <memory>
#include <thread>

#include "consumers/roles/consumer_loop.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/ops_server.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "projections/charges/charge_projector.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"projector"};

namespace {

namespace metrics = infra::metrics;

// The projector's series (ADR 0131), counted once a batch has committed.
struct ProjectorMetrics {
    explicit ProjectorMetrics(const std::string& group)
        : group_(group),
          batch_size(metrics::registry().histogram(
              "duepay_projector_batch_size", "Records per committed projector batch",
              {{"group", group}}, {1, 5, 10, 50, 100, 250, 500, 1000, 2500, 5000})),
          transaction_seconds(metrics::registry().histogram(
              "duepay_projector_transaction_seconds",
              "Time from the start of a batch's transaction to its commit", {{"group", group}})),
          failed_batches(metrics::registry().counter(
              "duepay_projector_batches_failed_total",
              "Batches rolled back (infrastructure failure) and read again from stored offsets",
              {{"group", group}})) {
        infra::postgres::quarantined_counter(group);  // 0 until the first quarantine
    }

    void committed(const projections::charges::BatchStats& stats, double seconds) {
        batch_size.observe(static_cast<double>(stats.messages));
        transaction_seconds.observe(seconds);
        for (const auto& [type, n] : stats.applied_by_type) {
            metrics::registry()
                .counter("duepay_events_processed_total",
                         "Events applied by a consumer, by consumer group and event type",
                         {{"group", group_}, {"type", type}})
                .inc(static_cast<double>(n));
        }
        for (const auto& [type, n] : stats.failed_by_type) {
            metrics::registry()
                .counter("duepay_events_failed_total",
                         "Events a consumer could not apply (quarantined), by group and type",
                         {{"group", group_}, {"type", type}})
                .inc(static_cast<double>(n));
        }
    }

    std::string group_;
    metrics::Histogram& batch_size;
    metrics::Histogram& transaction_seconds;
    metrics::Counter& failed_batches;
};

}  // namespace

ProjectorSettings projector_settings_from_env() {
    ProjectorSettings s;
    s.bootstrap = infra::config::require_env("KAFKA_BOOTSTRAP");
    s.database_url = infra::config::require_env("DATABASE_URL");
    s.topic = infra::config::env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
    s.group_id = infra::config::env_or("DUEPAY_PROJECTOR_GROUP", "duepay-projector");
    s.fetch_wait_max_ms = static_cast<int>(
        infra::config::env_int_or("DUEPAY_PROJECTOR_FETCH_WAIT_MS", s.fetch_wait_max_ms, 0, 60000));
    s.fetch_min_bytes = static_cast<int>(infra::config::env_int_or(
        "DUEPAY_PROJECTOR_FETCH_MIN_BYTES", s.fetch_min_bytes, 1, 100'000'000));
    s.trace = infra::config::env_or("DUEPAY_PROJECTOR_TRACE", "") == "1";
    s.ready_max_lag = infra::config::env_int_or("DUEPAY_READY_MAX_LAG", 1000, 0, 1'000'000'000);
    return s;
}

int run_projector(const ProjectorSettings& settings, const std::atomic<bool>& stop) {
    infra::postgres::PgTransactionRunner db(settings.database_url,
                                            infra::postgres::prepare_charge_statements);
    infra::kafka::ConsumerSettings consumer_settings{settings.bootstrap, settings.group_id,
                                                     settings.topic, "duepay-projector"};
    consumer_settings.fetch_wait_max_ms = settings.fetch_wait_max_ms;
    consumer_settings.fetch_min_bytes = settings.fetch_min_bytes;
    consumer_settings.ready_max_lag = settings.ready_max_lag;
    infra::kafka::KafkaConsumer consumer(consumer_settings, stored_offsets(db, settings.group_id));
    kLog.info() << "projector: group " << settings.group_id << " on " << settings.topic;
    ProjectorMetrics metrics(settings.group_id);
    std::atomic<bool> database_ok{true};  // false from a failed batch until Postgres answers again
    const auto database_check = infra::metrics::readiness().add(
        "postgres " + settings.group_id, [&database_ok]() -> std::optional<std::string> {
            if (database_ok) return std::nullopt;
            return "the last batch failed and Postgres has not answered since";
        });
    const bool trace = settings.trace;
    std::size_t total = 0;
    auto last_report = std::chrono::steady_clock::now();
    projections::charges::BatchStats stats;
    std::chrono::steady_clock::time_point started;

    ConsumerLoop loop{kLog, "projector", settings.group_id, settings.batch_max,
                      settings.poll_timeout_ms};
    loop.apply = [&](infra::postgres::Transaction& tx,
                     const std::vector<infra::kafka::ConsumedMessage>& batch) {
        started = std::chrono::steady_clock::now();
        projections::charges::ApplyOptions options;
        options.versions = settings.versions;
        stats = projections::charges::apply_batch(tx, settings.group_id, batch, options);
    };
    loop.on_committed = [&] {
        const auto now = std::chrono::steady_clock::now();
        metrics.committed(stats, std::chrono::duration<double>(now - started).count());
        total += stats.messages;
        if (trace) {
            kLog.info() << "projector: batch " << stats.messages << " msgs, " << stats.new_events
                        << " new, " << stats.charges << " rows, " << stats.quarantined
                        << " quarantined in "
                        << std::chrono::duration<double, std::milli>(now - started).count()
                        << " ms";
        }
        if (now - last_report > std::chrono::seconds(10)) {
            kLog.info() << "projector: " << total << " events applied so far";
            last_report = now;
        }
    };
    loop.on_failure = [&] {
        metrics.failed_batches.inc();
        database_ok = false;
    };
    loop.on_recovery = [&] { database_ok = true; };
    run_consumer_loop(loop, consumer, db, stop);
    kLog.info() << "projector: stopped after " << total << " events";
    return 0;
}

}  // namespace duepay::consumers
