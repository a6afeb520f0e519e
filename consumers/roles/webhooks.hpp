// `duepay webhooks` (docs/design.md, docs/webhooks.md). Two loops in one process:
//  - the enqueuer: its own consumer group on the charge-event topic; journals each event, re-folds
//    the touched charges with domain/charge and, for each status change, stores the webhook event
//    and one delivery per subscribed endpoint in the SAME transaction as its offsets (a crash never
//    loses or doubles an enqueue);
//  - the dispatcher: claims due deliveries (FOR UPDATE SKIP LOCKED, a lease, at most N in flight
//  per
//    endpoint), sends them with libcurl multi, signs each attempt afresh, logs every attempt and
//    schedules retries with jitter; disables endpoints failing for 3 days; purges old attempts.
// Scale by running more processes: they share the consumer group and the queue.
#pragma once

#include <atomic>
#include <chrono>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

#include "domain/webhooks/retry_schedule.hpp"
#include "infra/kafka/kafka_consumer.hpp"

namespace duepay::consumers {

struct WebhooksSettings {
    std::string bootstrap;
    std::string topic;
    std::string group_id = "duepay-webhooks";
    std::string database_url;
    std::size_t batch_max = 500;
    int poll_timeout_ms = 100;
    bool allow_insecure = false;  // DUEPAY_WEBHOOK_ALLOW_INSECURE=1 (dev stack), test mode only
    domain::webhooks::RetrySchedule retry = domain::webhooks::default_retry_schedule();
    std::size_t max_in_flight = 256;  // per process
    std::size_t per_endpoint = 10;    // in flight per endpoint, across processes
    // A claim runs when a delivery became due now (the `webhook_deliveries` notification of
    // migration 0265), while the last claim found work, and otherwise once per this interval:
    // retries that came due, leases that ran out, endpoints enabled again.
    std::chrono::milliseconds idle_claim_interval{1000};
    std::chrono::milliseconds lease{30000};
    std::chrono::seconds disable_after{std::chrono::hours(72)};
    std::chrono::seconds keep_attempts{std::chrono::hours(24 * 30)};
    std::chrono::seconds housekeeping_interval{60};  // disable failing endpoints, purge attempts
    bool enqueue = true;                             // run the enqueuer loop
    bool dispatch = true;                            // run the dispatcher loop
    std::int64_t ready_max_lag = 1000;               // DUEPAY_READY_MAX_LAG
};

// A consumer group of this role: its name contains "webhooks" (duepay-webhooks by default).
bool is_webhooks_group(std::string_view group_id);

// From the environment (docs/webhooks.md "Configuration"); throws infra::config::ConfigError.
WebhooksSettings webhooks_settings_from_env();

// Runs until `stop` is set; returns the exit code.
int run_webhooks(const WebhooksSettings& settings, const std::atomic<bool>& stop);

}  // namespace duepay::consumers
