// The event log producer's knobs (api and dashboard), read once at start through the table of
// env_table.cpp (ADR 0205) and checked together, so a bad combination stops the role at start
// with a ConfigError naming the variable instead of a librdkafka error (or a silent override)
// later. docs/operations.md ("The producer's delivery timeout") says what each bound trades.
#pragma once

#include <string>

namespace duepay::infra::config {

struct ProducerEnv {
    int linger_ms = 0;                // DUEPAY_PRODUCER_LINGER_MS: librdkafka linger.ms
    int message_timeout_ms = 5000;    // DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS: message.timeout.ms
    std::string compression = "lz4";  // DUEPAY_PRODUCER_COMPRESSION: compression.type
};

// The bounds of DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS: 1 s (below it a broker's leader change, which
// takes about a second, turns every append in flight into an unknown outcome) to 5 min
// (librdkafka's own default; beyond it an API request waits longer than any client does).
inline constexpr int kMinMessageTimeoutMs = 1000;
inline constexpr int kMaxMessageTimeoutMs = 300000;

// Reads DUEPAY_PRODUCER_LINGER_MS (0..1000), DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS (the bounds above)
// and DUEPAY_PRODUCER_COMPRESSION. Throws ConfigError when a value is not an integer in its range,
// when the delivery timeout is not above the linger (librdkafka refuses message.timeout.ms <=
// linger.ms at the producer's creation), and when DUEPAY_KAFKA_MESSAGE_TIMEOUT_MS or its alias
// DUEPAY_KAFKA_DELIVERY_TIMEOUT_MS is set (the producer sets message.timeout.ms after the
// DUEPAY_KAFKA_* properties: that value would be ignored). request.timeout.ms is not compared:
// it is the acknowledgement wait the broker is sent, librdkafka's default (30 s) is above this
// default delivery timeout, and a record the producer gave up on that the broker still writes is
// the possibly_persisted outcome the API already answers (docs/operations.md).
ProducerEnv producer_env();

}  // namespace duepay::infra::config
