// The dispatcher of the webhooks role (webhook_loops.hpp): claims due deliveries (FOR UPDATE SKIP
// LOCKED, a lease, at most N in flight per endpoint), sends them with libcurl multi, signs each
// attempt afresh, logs every attempt and schedules retries with jitter; disables endpoints failing
// for too long; purges old attempts.
#include <condition_variable>
#include <mutex>
#include <thread>
#include <unordered_map>
#include <utility>

#include "consumers/roles/webhook_loops.hpp"
#include "domain/webhooks/delivery_log.hpp"
#include "domain/webhooks/retry_schedule.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/metrics.hpp"
#include "infra/postgres/notify_listener.hpp"
#include "infra/postgres/webhook_queue.hpp"
#include "infra/random/random.hpp"
#include "infra/webhooks/http_sender.hpp"
#include "infra/webhooks/signing.hpp"

namespace duepay::consumers {
namespace {

constexpr infra::log::Logger kLog{"webhooks"};
namespace pg = infra::postgres;

double jitter_unit() {
    const auto b = infra::random::random_bytes<4>();
    const std::uint32_t v = (std::uint32_t{b[0]} << 24) | (std::uint32_t{b[1]} << 16) |
                            (std::uint32_t{b[2]} << 8) | b[3];
    return static_cast<double>(v) / 4294967296.0;
}

// Names one claim: only it may record the outcome of what it claimed.
std::int64_t lease_token() {
    const auto b = infra::random::random_bytes<8>();
    std::uint64_t v = 0;
    for (auto byte : b) v = (v << 8) | byte;
    return static_cast<std::int64_t>(v >> 1);
}

std::int64_t unix_now() {
    return std::chrono::duration_cast<std::chrono::seconds>(
               std::chrono::system_clock::now().time_since_epoch())
        .count();
}

pg::AttemptOutcome outcome_of(const WebhooksSettings& s, const pg::ClaimedDelivery& d,
                              const infra::webhooks::HttpResult& r) {
    pg::AttemptOutcome o;
    o.endpoint_id = d.endpoint_id;
    o.event_id = d.event_id;
    o.event_type = d.event_type;
    o.attempt = d.attempts + 1;
    o.lease_token = d.lease_token;
    o.latency_ms = static_cast<int>(r.latency.count());
    if (r.error.empty()) {
        o.response_status = static_cast<int>(r.status);
        o.response_excerpt = domain::webhooks::response_excerpt(r.body);
    }
    o.delivered = r.error.empty() && r.status >= 200 && r.status < 300;
    if (!o.delivered) {
        o.error = r.error.empty() ? "HTTP " + std::to_string(r.status) : r.error;
        const auto since_first = std::chrono::milliseconds(d.since_first_attempt_ms) + r.latency;
        o.retry_in =
            domain::webhooks::next_retry_delay(s.retry, o.attempt, since_first, jitter_unit());
    }
    return o;
}

// The dispatcher's series (ADR 0131): queue depth (refreshed every 5 s), in flight, and every
// attempt by outcome (delivered, http_error: a non-2xx answer, transport_error: no answer).
struct DispatcherMetrics {
    infra::metrics::Gauge& due = depth("due");
    infra::metrics::Gauge& later = depth("later");
    infra::metrics::Gauge& in_flight = infra::metrics::registry().gauge(
        "duepay_webhook_in_flight", "Webhook requests sent and not answered yet");
    std::chrono::steady_clock::time_point last_depth{};

    static infra::metrics::Gauge& depth(const char* when) {
        return infra::metrics::registry().gauge(
            "duepay_webhook_queue_depth",
            "Pending webhook deliveries: due now, or waiting for a later retry", {{"when", when}});
    }
    static infra::metrics::Counter& attempts(const char* outcome) {
        return infra::metrics::registry().counter("duepay_webhook_attempts_total",
                                                  "Webhook delivery attempts by outcome",
                                                  {{"outcome", outcome}});
    }
    static void attempt(const pg::AttemptOutcome& o) {
        attempts(o.delivered ? "delivered" : (o.response_status ? "http_error" : "transport_error"))
            .inc();
    }
    DispatcherMetrics() {
        for (const char* outcome : {"delivered", "http_error", "transport_error"}) {
            attempts(outcome);  // each outcome shows 0 before its first attempt
        }
    }
    void refresh_depth(pg::WebhookQueue& queue) {
        const auto now = std::chrono::steady_clock::now();
        if (now - last_depth < std::chrono::seconds(5)) return;
        last_depth = now;
        const auto d = queue.depth();
        due.set(static_cast<double>(d.due));
        later.set(static_cast<double>(d.later));
    }
};

// A flag set by the listener's thread and taken by the dispatcher's loop, which can wait for it.
class Wakeup {
  public:
    void set() {
        {
            std::lock_guard lock(mutex_);
            set_ = true;
        }
        changed_.notify_one();
    }
    // Whether it was set since the last take; clears it.
    bool take() {
        std::lock_guard lock(mutex_);
        return std::exchange(set_, false);
    }
    // Returns when it is set, or after `at_most`; leaves it set for take().
    void wait(std::chrono::milliseconds at_most) {
        std::unique_lock lock(mutex_);
        changed_.wait_for(lock, at_most, [&] { return set_; });
    }

  private:
    std::mutex mutex_;
    std::condition_variable changed_;
    bool set_ = true;  // the first pass claims
};

}  // namespace

void detail::run_webhook_dispatcher(const WebhooksSettings& s, const std::atomic<bool>& stop_flag,
                                    const std::atomic<bool>& halt) {
    DispatcherMetrics metrics;
    auto stopping = [&] { return stop_flag.load() || halt.load(); };
    infra::webhooks::SenderSettings sender_settings;
    sender_settings.allow_insecure = s.allow_insecure;
    infra::webhooks::HttpSender sender(sender_settings);
    pg::WebhookQueue queue(s.database_url);
    std::unordered_map<std::uint64_t, pg::ClaimedDelivery> in_flight;
    std::vector<pg::AttemptOutcome> unrecorded;
    std::uint64_t next_tag = 1;
    std::uint64_t sent = 0;  // requests this process sent (logged at stop: several share a queue)
    auto last_claim = std::chrono::steady_clock::time_point{};
    // The last claim found work: claim again as soon as a slot is free instead of waiting for the
    // idle interval, which only paces the polling of an empty (or fully leased) queue.
    bool queue_had_work = false;
    // A delivery became due now (a new event, a redelivery, a test event): claim at once. A lost
    // listener connection counts as a wake-up, since a notification may have been missed.
    Wakeup woken;
    pg::NotifyListener due_now(
        s.database_url, "webhook_deliveries", [&](const std::string&) { woken.set(); },
        [&] { woken.set(); });
    auto last_housekeeping = std::chrono::steady_clock::time_point{};
    kLog.info() << "webhooks: dispatcher, " << s.max_in_flight << " in flight, " << s.per_endpoint
                << " per endpoint"
                << (s.allow_insecure ? ", http and loopback allowed for test-mode endpoints (dev)"
                                     : "");
    // After stop, finish what is in flight (bounded by the 10 s total timeout) so nothing waits
    // for its lease to run out.
    while (!stopping() || !in_flight.empty() || !unrecorded.empty()) {
        try {
            queue.connect();
            const auto now = std::chrono::steady_clock::now();
            if (!stopping() && in_flight.size() < s.max_in_flight &&
                (queue_had_work || woken.take() || now - last_claim >= s.idle_claim_interval)) {
                last_claim = now;
                auto claimed = queue.claim(s.max_in_flight - in_flight.size(), s.per_endpoint,
                                           s.lease, lease_token());
                queue_had_work = !claimed.empty();
                for (auto& d : claimed) {
                    infra::webhooks::HttpRequest request;
                    request.tag = next_tag++;
                    request.url = d.url;
                    request.body = d.body;
                    request.test_mode = d.test_mode;
                    try {
                        request.headers = infra::webhooks::signature_headers(d.event_id, d.body,
                                                                             d.secrets, unix_now());
                    } catch (const std::exception& e) {
                        infra::webhooks::HttpResult failed;
                        failed.error = std::string("signing failed: ") + e.what();
                        unrecorded.push_back(outcome_of(s, d, failed));
                        DispatcherMetrics::attempt(unrecorded.back());
                        continue;
                    }
                    const auto tag = request.tag;
                    in_flight.emplace(tag, std::move(d));
                    sender.start(std::move(request));
                    ++sent;
                }
            }
            for (auto& r : sender.poll(std::chrono::milliseconds(in_flight.empty() ? 0 : 20))) {
                auto it = in_flight.find(r.tag);
                if (it == in_flight.end()) continue;
                unrecorded.push_back(outcome_of(s, it->second, r));
                DispatcherMetrics::attempt(unrecorded.back());
                in_flight.erase(it);
            }
            metrics.in_flight.set(static_cast<double>(in_flight.size()));
            metrics.refresh_depth(queue);
            if (!unrecorded.empty()) queue.record(unrecorded);
            if (now - last_housekeeping >= s.housekeeping_interval) {
                last_housekeeping = now;
                for (const auto& id : queue.housekeeping(s.disable_after, s.keep_attempts)) {
                    kLog.warn() << "webhooks: endpoint " << id << " disabled: failing for "
                                << s.disable_after.count() << " s with no success";
                }
            }
            // Nothing in flight: wait for a wake-up (at most 100 ms, so a stop is seen soon).
            if (in_flight.empty()) {
                woken.wait(std::chrono::milliseconds(queue_had_work ? 10 : 100));
            }
        } catch (const std::exception& e) {
            // A lost claim or record is safe: leased deliveries are claimed again after the lease.
            kLog.warn() << "webhooks: dispatcher database error: " << e.what();
            queue.reset();
            if (stopping()) break;
            std::this_thread::sleep_for(std::chrono::milliseconds(500));
        }
    }
    kLog.info() << "webhooks: dispatcher stopped, " << sent << " requests sent";
}

}  // namespace duepay::consumers
