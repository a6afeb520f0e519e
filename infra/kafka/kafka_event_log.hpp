// KafkaEventLog: the EventLog port over one idempotent librdkafka producer shared by every API
// thread. Appends are asynchronous; the delivery-report callback (run by a dedicated poller
// thread) completes each append's callback with the broker's verdict.
// Series (ADR 0131): duepay_kafka_produce_seconds{topic} (append to verdict) and
// duepay_kafka_produce_errors_total{topic,outcome} (not_persisted, possibly_persisted); readiness
// check "kafka producer <topic>": not ready when the producer is fatal or a metadata request gets
// no answer within 1 s (asked at each /readyz, on the ops thread).
#pragma once

#include <atomic>
#include <chrono>
#include <string>
#include <thread>

#include "domain/ports/event_log.hpp"
#include "infra/kafka/handles.hpp"
#include "infra/metrics/metrics.hpp"

namespace duepay::infra::kafka {

// The port's names (domain/ports/event_log.hpp, ADR 0207).
using ports::AppendResult;
using ports::AppendStatus;
using ports::EventLog;
using ports::LogRecord;

struct ProducerSettings {
    std::string bootstrap;  // host:port[,host:port]
    std::string topic;      // e.g. duepay.charge-events.v1
    int linger_ms = 0;      // send at once; under load batches form behind the in-flight requests
    int message_timeout_ms = 5000;    // bound on an append, retries included
    std::string compression = "lz4";  // librdkafka compression.type (docs/tuning.md)
};

class KafkaEventLog final : public EventLog {
  public:
    explicit KafkaEventLog(ProducerSettings settings);
    ~KafkaEventLog() override;  // stops the poller, flushes (bounded), destroys
    KafkaEventLog(const KafkaEventLog&) = delete;
    KafkaEventLog& operator=(const KafkaEventLog&) = delete;

    void append_async(LogRecord record, std::function<void(AppendResult)> done) override;

    // Waits until every pending append has its outcome, at most `timeout`; returns what is left.
    int flush(std::chrono::milliseconds timeout);

  private:
    static void on_delivery(rd_kafka_t* rk, const rd_kafka_message_t* msg, void* opaque);
    static void on_error(rd_kafka_t* rk, int err, const char* reason, void* opaque);
    void poll_loop();

    ProducerSettings settings_;
    detail::KafkaHandle producer_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> fatal_{false};
    std::thread poller_;
    metrics::Histogram& produce_seconds_;
    metrics::Counter& not_persisted_;
    metrics::Counter& possibly_persisted_;
    metrics::Registration ready_check_;  // last: unregistered first
};

}  // namespace duepay::infra::kafka
