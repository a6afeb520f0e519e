// The webhooks role's entry (webhooks.hpp): its settings from the environment and the two loops
// of webhook_loops.hpp run side by side, the dispatcher on its own thread.
#include "consumers/roles/webhooks.hpp"

#include <thread>

#include "consumers/roles/webhook_loops.hpp"
#include "infra/config/env.hpp"
#include "infra/log/log.hpp"

namespace duepay::consumers {

namespace {

constexpr infra::log::Logger kLog{"webhooks"};
using infra::config::env_int_or;
using infra::config::env_or;

}  // namespace

bool is_webhooks_group(std::string_view group_id) {
    return group_id.find("webhooks") != std::string_view::npos;
}

WebhooksSettings webhooks_settings_from_env() {
    WebhooksSettings s;
    s.bootstrap = infra::config::require_env("KAFKA_BOOTSTRAP");
    s.database_url = infra::config::require_env("DATABASE_URL");
    s.topic = env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
    s.group_id = env_or("DUEPAY_WEBHOOKS_GROUP", "duepay-webhooks");
    s.allow_insecure = env_or("DUEPAY_WEBHOOK_ALLOW_INSECURE", "0") == "1";
    if (const auto text = env_or("DUEPAY_WEBHOOK_RETRY_SCHEDULE", ""); !text.empty()) {
        auto parsed = domain::webhooks::parse_retry_schedule(text);
        if (!parsed)
            throw infra::config::ConfigError("DUEPAY_WEBHOOK_RETRY_SCHEDULE: " +
                                             parsed.error().message);
        s.retry = *parsed;
    }
    s.max_in_flight =
        static_cast<std::size_t>(env_int_or("DUEPAY_WEBHOOK_MAX_IN_FLIGHT", 256, 1, 10000));
    s.per_endpoint =
        static_cast<std::size_t>(env_int_or("DUEPAY_WEBHOOK_PER_ENDPOINT", 10, 1, 1000));
    s.housekeeping_interval =
        std::chrono::seconds(env_int_or("DUEPAY_WEBHOOK_HOUSEKEEPING_SECONDS", 60, 1, 86400));
    s.disable_after = std::chrono::seconds(
        env_int_or("DUEPAY_WEBHOOK_DISABLE_AFTER_SECONDS", 259200, 1, 31536000));
    s.ready_max_lag = env_int_or("DUEPAY_READY_MAX_LAG", 1000, 0, 1'000'000'000);
    return s;
}

int run_webhooks(const WebhooksSettings& settings, const std::atomic<bool>& stop) {
    std::atomic<bool> failed{false};
    std::atomic<bool> halt{false};  // the enqueuer failed: stop the dispatcher too
    std::thread dispatcher;
    if (settings.dispatch) {
        dispatcher = std::thread([&] {
            try {
                detail::run_webhook_dispatcher(settings, stop, halt);
            } catch (const std::exception& e) {
                kLog.error() << "webhooks: dispatcher stopped: " << e.what();
                failed = true;
            }
        });
    }
    int rc = 0;
    try {
        if (settings.enqueue) {
            detail::run_webhook_enqueuer(settings, stop);
        } else {
            while (!stop && !failed) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    } catch (const std::exception& e) {
        kLog.error() << "webhooks: enqueuer stopped: " << e.what();
        rc = 1;
        halt = true;
    }
    if (dispatcher.joinable()) dispatcher.join();
    kLog.info() << "webhooks: stopped";
    return failed ? 1 : rc;
}

}  // namespace duepay::consumers
