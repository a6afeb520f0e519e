// The event log port: append one already-encoded event to the charge-event topic and learn whether
// the broker made it durable. KafkaEventLog (infra/kafka/kafka_event_log.hpp) is the adapter; unit
// tests of the API use an in-memory double.
#pragma once

#include <cstdint>
#include <functional>
#include <string>

namespace duepay::ports {

struct LogRecord {
    std::string key;    // the invoiceId (0x-hex): every event of a charge lands on one partition
    std::string value;  // the event JSON
};

// How an append ended. The distinction matters to the caller (docs/adr/0040-event-log-append.md):
// not_persisted is a clean failure (retry is safe, nothing was written); possibly_persisted means
// the broker may hold the record although no ack arrived.
enum class AppendStatus { persisted, not_persisted, possibly_persisted };

struct AppendResult {
    AppendStatus status = AppendStatus::not_persisted;
    std::int32_t partition = -1;
    std::int64_t offset = -1;
    std::string error;  // empty when persisted

    bool ok() const { return status == AppendStatus::persisted; }
};

class EventLog {
  public:
    virtual ~EventLog() = default;

    // Starts an append; `done` runs exactly once, on a thread of the adapter, when the outcome is
    // known (bounded by the adapter's delivery timeout). Must not block for long.
    virtual void append_async(LogRecord record, std::function<void(AppendResult)> done) = 0;
};

}  // namespace duepay::ports
