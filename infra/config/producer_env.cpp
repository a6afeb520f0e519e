#include "infra/config/producer_env.hpp"

#include <string>

#include "infra/config/env.hpp"

namespace duepay::infra::config {

ProducerEnv producer_env() {
    ProducerEnv p;
    for (const char* ignored :
         {"DUEPAY_KAFKA_MESSAGE_TIMEOUT_MS", "DUEPAY_KAFKA_DELIVERY_TIMEOUT_MS"}) {
        if (env_is_set(ignored)) {
            throw ConfigError(std::string("environment variable ") + ignored +
                              " would be overridden by the producer: set "
                              "DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS instead");
        }
    }
    p.linger_ms = static_cast<int>(env_int_or("DUEPAY_PRODUCER_LINGER_MS", p.linger_ms, 0, 1000));
    p.message_timeout_ms =
        static_cast<int>(env_int_or("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", p.message_timeout_ms,
                                    kMinMessageTimeoutMs, kMaxMessageTimeoutMs));
    if (p.message_timeout_ms <= p.linger_ms) {
        throw ConfigError(
            "DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS=" + std::to_string(p.message_timeout_ms) +
            " must be greater than DUEPAY_PRODUCER_LINGER_MS=" + std::to_string(p.linger_ms) +
            " (librdkafka's rule)");
    }
    p.compression = env_or("DUEPAY_PRODUCER_COMPRESSION", p.compression);
    return p;
}

}  // namespace duepay::infra::config
