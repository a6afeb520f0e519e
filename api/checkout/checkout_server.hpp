// `duepay checkout`'s listener, on the shared HTTP edge (api/http/http_edge, ADR 0096: bounded,
// strict parsing; every refusal in the envelope) and the HTTP pipeline (api/http/router.hpp):
// CheckoutRoutes for the page, the JSON and the assets, and
// GET /v1/checkout/:id/events as Server-Sent Events, pushed from the projector's NOTIFY on
// duepay_charges (one LISTEN connection per process): a notified invoice with waiting clients is
// read once and the same event goes to each of them. While a charge is confirming, its view is
// re-read once a second for the confirmation count.
//
// Each SSE response carries at most one event and then ends; EventSource reconnects after
// `retry: 1000` with Last-Event-ID, and a client whose id is current waits (up to
// `stream_seconds`) for the next change. This is plain SSE that every EventSource follows, and it
// keeps to one whole answer per request, which is what the edge writes (and what Pistache 0.0.5
// survives: several writes for one connection queued from another thread abort it with "could not
// find write data", which is what a long-lived stream written by the notification thread does;
// ADR 0110).
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <memory>
#include <mutex>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "api/checkout/checkout_routes.hpp"
#include "api/http/api_types.hpp"
#include "api/http/router.hpp"

namespace duepay::api {
class HttpEdge;
}

namespace duepay::api::checkout {

struct CheckoutServerSettings {
    std::string listen = "127.0.0.1:8081";
    int threads = 2;
    bool access_log = true;
    ports::ChargeChanges* changes = nullptr;  // null: no live events (waits end by time only)
    int stream_seconds = 25;                  // longest wait of one SSE request for a change
    std::size_t max_streams = 10000;          // waiting SSE requests per process
    std::chrono::milliseconds request_timeout{10000};  // first to last byte of a request
};

class CheckoutServer {
  public:
    CheckoutServer(CheckoutRoutes& routes, CheckoutServerSettings settings);
    ~CheckoutServer();
    void start();     // binds and serves; throws on bind failure
    void shutdown();  // ends every stream, stops accepting, joins threads

    std::size_t open_streams() const;

    class Stream;  // one waiting SSE response (defined in the .cpp)

    // Used by the request handler: false when the server stops or is full.
    bool subscribe(const std::string& invoice_id, std::shared_ptr<Stream> stream, bool confirming);

    // The SSE event id of a view: a digest of what the page shows, stable across processes.
    static std::string event_id(const CheckoutView& view);

  private:
    void on_changed(const std::string& invoice_id);
    void hub_loop();
    void publish(const std::string& invoice_id);

    CheckoutRoutes& routes_;
    CheckoutServerSettings settings_;
    void events(const std::string& raw_id, const ApiRequest& request, Responder respond);

    std::unique_ptr<Pipeline> pipeline_;  // the checkout's routes and the SSE route
    std::unique_ptr<HttpEdge> edge_;
    std::unique_ptr<ports::ChargeChanges::Subscription> subscription_;
    mutable std::mutex mutex_;
    std::condition_variable wake_;
    std::map<std::string, std::vector<std::shared_ptr<Stream>>> streams_;
    std::set<std::string> dirty_;
    std::set<std::string> confirming_;  // waited-on charges last seen confirming
    std::size_t waiting_ = 0;
    bool recheck_all_ = false;
    bool stop_ = false;
    std::thread hub_;
};

}  // namespace duepay::api::checkout
