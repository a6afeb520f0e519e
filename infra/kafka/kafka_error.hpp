// The Kafka adapter's failures: KafkaError (an InfraError) for every librdkafka client, producer,
// consumer, reader and topic admin alike, and UnknownTopic for a topic the broker does not have.
// Kept free of librdkafka so that callers can catch them without its headers.
#pragma once

#include <string>

#include "infra/error.hpp"

namespace duepay::infra::kafka {

// A client that cannot be made (a setting librdkafka refuses: not retryable), or a broker that
// does not answer in time or refuses a request; retryable() by librdkafka's error code (a
// timeout, a transport error, a leader or coordinator in transit: true).
class KafkaError : public InfraError {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
    KafkaError(const std::string& what, bool retryable) : InfraError(what, retryable) {}
};

// The topic named does not exist on the broker (a caller's input: `duepay events export` answers
// unknown_topic, exit 2). Not retryable.
class UnknownTopic : public KafkaError {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
    explicit UnknownTopic(const std::string& what) : KafkaError(what, false) {}
};

}  // namespace duepay::infra::kafka
