// Live updates of the dashboard's charges list (docs/dashboard.md): GET
// /p/:projectId/charges/live is Server-Sent Events in the checkout's style. Each response carries
// at most one event and then ends; EventSource reconnects after `retry: 1000` with Last-Event-ID.
// The event `changed` says that a charge of the project, in the page's mode, was created or changed
// after the id the client sent (the page's render time at first, in ms since the epoch); the page
// then re-reads its list. A client that is current waits up to `stream_seconds` for a change.
//
// Changes come from the projector's NOTIFY (ports::ChargeChanges, one listener per process). A hub
// thread takes the notified invoice ids in batches and asks the store which (project, mode) they
// belong to: one query per batch, and none while nobody has watched for a minute.
#pragma once

#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/http/api_types.hpp"
#include "domain/ports/checkout.hpp"
#include "domain/ports/dashboard.hpp"

namespace duepay::api::dashboard {

struct LiveChargesSettings {
    int stream_seconds = 25;               // longest wait of one request for a change
    std::size_t max_streams = 2000;        // waiting requests per process
    std::chrono::milliseconds batch{250};  // notified ids gathered before one store read
    std::chrono::seconds watched_for{60};  // ids are resolved this long after the last wait
};

class LiveCharges {
  public:
    using Clock = std::chrono::steady_clock;

    // `changes` may be null (no live events: waits end by time only). `now_ms` is wall time in ms.
    LiveCharges(ports::ChargeChanges* changes, ports::DashboardStore& store,
                std::function<std::int64_t()> now_ms, LiveChargesSettings settings = {});
    ~LiveCharges();
    LiveCharges(const LiveCharges&) = delete;
    LiveCharges& operator=(const LiveCharges&) = delete;

    void start();  // subscribes and starts the hub
    void stop();   // ends every waiting request (they reconnect) and joins the hub

    // Answers through `respond` at once when a charge of (project, mode) changed after `since_ms`
    // (or `since_ms` is older than this process's knowledge), else when one does or the wait ends.
    void wait(const ports::ProjectId& project, ports::Mode mode, std::int64_t since_ms,
              Responder respond);

    std::size_t waiting() const;

    // The body of one SSE answer: the `changed` event with its id, or a comment (keep-alive).
    static std::string changed_event(std::int64_t id_ms);
    static std::string keep_alive();
    // The id a request asks from: its Last-Event-ID, else its `since` parameter; nullopt when
    // neither is a decimal number of ms (the route answers 400).
    static std::optional<std::int64_t> since_of(const ApiRequest& request);

  private:
    struct Waiter {
        std::int64_t since_ms = 0;
        Clock::time_point ends_at;
        Responder respond;
    };
    using Key = std::pair<std::string, ports::Mode>;

    void on_changed(const std::string& invoice_ids);
    void on_missed();
    void hub_loop();
    void changed(const std::set<Key>& keys, std::int64_t at_ms);

    ports::ChargeChanges* changes_;
    ports::DashboardStore& store_;
    std::function<std::int64_t()> now_ms_;
    LiveChargesSettings settings_;
    std::int64_t known_since_ms_ = 0;  // changes before this were never seen by this process

    mutable std::mutex mutex_;
    std::condition_variable wake_;
    bool stop_ = false;
    bool missed_ = false;
    std::set<std::string> pending_;  // notified invoice ids not yet resolved
    std::map<Key, std::int64_t> last_change_ms_;
    std::multimap<Key, Waiter> waiters_;
    Clock::time_point last_wait_{};
    std::unique_ptr<ports::ChargeChanges::Subscription> subscription_;
    std::thread hub_;
};

}  // namespace duepay::api::dashboard
