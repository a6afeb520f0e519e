#include "api/checkout/checkout_server.hpp"

#include <array>
#include <chrono>
#include <cstdio>

#include "api/http/envelope.hpp"
#include "api/http/http_edge.hpp"
#include "infra/log/log.hpp"

namespace duepay::api::checkout {
namespace {

using Clock = std::chrono::steady_clock;

constexpr infra::log::Logger kLog{"checkout"};

std::map<std::string, std::string> sse_headers() {
    auto headers = security_headers();
    headers["cache-control"] = "no-store";
    headers["x-accel-buffering"] = "no";
    headers["content-type"] = "text/event-stream";
    return headers;
}

std::string sse_event(const std::string& id, const std::string& data) {
    return "retry: 1000\nid: " + id + "\nevent: status\ndata: " + data + "\n\n";
}

}  // namespace

// One held SSE request: answered once, with an event or a keep-alive comment.
class CheckoutServer::Stream {
  public:
    Stream(Responder respond, std::string last_id, Clock::time_point ends_at)
        : respond_(std::move(respond)), last_id_(std::move(last_id)), ends_at_(ends_at) {}

    const std::string& last_id() const { return last_id_; }
    bool expired(Clock::time_point now) const { return now >= ends_at_; }

    void answer(const std::string& body) {
        Responder respond;
        {
            std::lock_guard lock(mutex_);
            if (!respond_) return;
            respond = std::move(respond_);
            respond_ = nullptr;
        }
        ApiResponse r;
        r.status = 200;
        r.body = body;
        r.headers = sse_headers();
        respond(std::move(r));
    }

  private:
    std::mutex mutex_;
    Responder respond_;
    std::string last_id_;
    Clock::time_point ends_at_;
};

std::string CheckoutServer::event_id(const CheckoutView& view) {
    // FNV-1a 64 of the event JSON: the same view gives the same id in every process.
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : status_event_json(view)) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    std::array<char, 20> buf{};
    std::snprintf(buf.data(), buf.size(), "%016llx", static_cast<unsigned long long>(h));
    return buf.data();
}

CheckoutServer::CheckoutServer(CheckoutRoutes& routes, CheckoutServerSettings settings)
    : routes_(routes), settings_(std::move(settings)) {}

CheckoutServer::~CheckoutServer() { shutdown(); }

void CheckoutServer::start() {
    hub_ = std::thread([this] { hub_loop(); });
    if (settings_.changes != nullptr) {
        subscription_ = settings_.changes->subscribe(
            [this](const std::string& invoice_id) { on_changed(invoice_id); },
            [this] {
                std::lock_guard lock(mutex_);
                recheck_all_ = true;  // notifications may have been missed
                wake_.notify_one();
            });
    }
    EdgeSettings edge;
    edge.listen = settings_.listen;
    edge.threads = settings_.threads;
    edge.access_log = settings_.access_log;
    edge.log_name = "checkout";
    edge.request_timeout = settings_.request_timeout;
    // A held SSE request has no byte in flight: the idle sweep must not close it first.
    edge.idle_timeout = std::chrono::seconds(settings_.stream_seconds + 15);
    RouteTable routes;
    routes_.add_routes(routes);
    RouteOptions open;
    open.auth = Auth::none;
    open.own_query = true;
    routes.add_async("GET", "/v1/checkout/:invoiceId/events", open,
                     [this](const RouteCall& call, Responder respond) {
                         events(call.params[0], call.request, std::move(respond));
                     });
    pipeline_ = std::make_unique<Pipeline>(std::move(routes), nullptr, routes_.pipeline_settings());
    edge_ = std::make_unique<HttpEdge>(edge, [this](const ApiRequest& request, Responder respond) {
        pipeline_->handle(request, std::move(respond));
    });
    edge_->start();
}

// The pipeline ran the rate limit and adds the security headers.
void CheckoutServer::events(const std::string& raw_id, const ApiRequest& request,
                            Responder respond) {
    const auto id = CheckoutRoutes::normalise_id(raw_id);
    std::optional<CheckoutView> view;
    if (id) view = routes_.view(*id);
    if (!view) return respond(error_response(404, "charge_not_found", "no charge with this id"));
    const std::string current = event_id(*view);
    const auto last = request.header("last-event-id");
    const bool up_to_date = last && *last == current;
    if (!up_to_date || domain::charge::final_status(view->status)) {
        // A client that is behind (or a charge that will not change again) gets the state now.
        Stream(std::move(respond), current, Clock::now())
            .answer(sse_event(current, status_event_json(*view)));
        return;
    }
    auto held = std::make_shared<Stream>(
        std::move(respond), current, Clock::now() + std::chrono::seconds(settings_.stream_seconds));
    if (!subscribe(*id, held, view->status == Status::confirming))
        held->answer("retry: 5000\n: busy\n\n");
}

void CheckoutServer::shutdown() {
    subscription_.reset();
    std::map<std::string, std::vector<std::shared_ptr<Stream>>> open;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        open.swap(streams_);
        waiting_ = 0;
    }
    wake_.notify_one();
    if (hub_.joinable()) hub_.join();
    for (auto& [id, list] : open) {
        for (auto& s : list) s->answer("retry: 1000\n: restarting\n\n");
    }
    open.clear();
    if (edge_) {
        edge_->shutdown();
        edge_.reset();
    }
}

std::size_t CheckoutServer::open_streams() const {
    std::lock_guard lock(mutex_);
    return waiting_;
}

bool CheckoutServer::subscribe(const std::string& invoice_id, std::shared_ptr<Stream> stream,
                               bool confirming) {
    std::lock_guard lock(mutex_);
    if (stop_ || waiting_ >= settings_.max_streams) return false;
    streams_[invoice_id].push_back(std::move(stream));
    ++waiting_;
    if (confirming) confirming_.insert(invoice_id);
    return true;
}

void CheckoutServer::on_changed(const std::string& invoice_id) {
    std::lock_guard lock(mutex_);
    if (!streams_.contains(invoice_id)) return;
    dirty_.insert(invoice_id);
    wake_.notify_one();
}

void CheckoutServer::publish(const std::string& invoice_id) {
    std::optional<CheckoutView> view;
    try {
        view = routes_.view(invoice_id);
    } catch (const std::exception& e) {
        kLog.warn().with("invoice_id", invoice_id)
            << "checkout events: read of " << invoice_id << " failed: " << e.what();
        std::lock_guard lock(mutex_);
        dirty_.insert(invoice_id);  // retried on the next tick
        return;
    }
    if (!view) return;
    const std::string id = event_id(*view);
    std::vector<std::shared_ptr<Stream>> changed;
    {
        std::lock_guard lock(mutex_);
        if (view->status == Status::confirming) {
            confirming_.insert(invoice_id);
        } else {
            confirming_.erase(invoice_id);
        }
        auto it = streams_.find(invoice_id);
        if (it == streams_.end()) return;
        auto& list = it->second;
        for (auto s = list.begin(); s != list.end();) {
            if ((*s)->last_id() != id) {
                changed.push_back(*s);
                s = list.erase(s);
                --waiting_;
            } else {
                ++s;
            }
        }
        if (list.empty()) {
            streams_.erase(it);
            confirming_.erase(invoice_id);
        }
    }
    if (changed.empty()) return;
    const std::string body = sse_event(id, status_event_json(*view));
    for (auto& s : changed) s->answer(body);
}

void CheckoutServer::hub_loop() {
    auto last_tick = Clock::now();
    for (;;) {
        std::set<std::string> work;
        bool tick = false;
        {
            std::unique_lock lock(mutex_);
            wake_.wait_for(lock, std::chrono::milliseconds(250),
                           [this] { return stop_ || !dirty_.empty() || recheck_all_; });
            if (stop_) return;
            if (recheck_all_) {
                for (const auto& [id, list] : streams_) dirty_.insert(id);
                recheck_all_ = false;
            }
            work.swap(dirty_);
            tick = Clock::now() - last_tick >= std::chrono::seconds(1);
        }
        for (const auto& id : work) publish(id);
        if (!tick) continue;
        last_tick = Clock::now();
        // Once a second: answer the waits that reached their end with a comment (the client
        // reconnects with the same Last-Event-ID), and re-read every charge with waiting clients
        // that may be confirming: the confirmation count moves with blocks, not with events.
        const auto now = Clock::now();
        std::vector<std::shared_ptr<Stream>> to_end;
        std::vector<std::string> watched;
        {
            std::lock_guard lock(mutex_);
            for (auto it = streams_.begin(); it != streams_.end();) {
                auto& list = it->second;
                for (auto s = list.begin(); s != list.end();) {
                    if ((*s)->expired(now)) {
                        to_end.push_back(*s);
                        s = list.erase(s);
                        --waiting_;
                    } else {
                        ++s;
                    }
                }
                if (list.empty()) {
                    confirming_.erase(it->first);
                    it = streams_.erase(it);
                } else {
                    if (confirming_.contains(it->first)) watched.push_back(it->first);
                    ++it;
                }
            }
        }
        for (auto& s : to_end) s->answer("retry: 1000\n: keep-alive\n\n");
        for (const auto& id : watched) publish(id);
    }
}

}  // namespace duepay::api::checkout
