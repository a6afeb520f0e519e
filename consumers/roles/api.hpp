// The api role: the REST API (api/http) wired to Postgres, Kafka, the chain registry, the signer
// and the rate sources, all built from the environment (var/dev.env). `duepay api`.
#pragma once

#include <atomic>
#include <string>

namespace duepay::consumers {

// Flag overrides of the environment; empty or 0 keeps the environment's value.
struct ApiOptions {
    std::string topic;   // DUEPAY_TOPIC (duepay.charge-events.v1)
    std::string listen;  // DUEPAY_LISTEN (127.0.0.1:8080)
    int threads = 0;     // DUEPAY_API_THREADS (2)
};

// Serves until `stop` is set, then stops taking requests and waits (bounded) for the outcome of
// pending appends. Throws ConfigError on a missing or bad setting.
int run_api(const ApiOptions& options, const std::atomic<bool>& stop);

}  // namespace duepay::consumers
