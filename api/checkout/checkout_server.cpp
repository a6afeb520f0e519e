#include "api/checkout/checkout_server.hpp"

#include <pistache/endpoint.h>
#include <pistache/http.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <sstream>

#include "api/http/envelope.hpp"
#include "api/http/request_id.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/notify_listener.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::api::checkout {
namespace {

using namespace Pistache;
using Clock = std::chrono::steady_clock;

constexpr std::size_t kMaxRequestBytes = 16 * 1024;  // GET only: headers and a URL

std::string lower(std::string s) {
    for (auto& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

void log_line(const std::string& text) {
    const std::string line = text + "\n";
    [[maybe_unused]] auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

class NamedHeader final : public Http::Header::Header {
  public:
    NamedHeader(std::string name, std::string value)
        : name_(std::move(name)), value_(std::move(value)) {}
    const char* name() const override { return name_.c_str(); }
    void write(std::ostream& os) const override { os << value_; }
#ifdef SAFE_HEADER_CAST
    uint64_t hash() const override { return Http::Header::detail::hash(name_.c_str()); }
#endif

  private:
    std::string name_;
    std::string value_;
};

void add_headers(Http::ResponseWriter& writer, const std::map<std::string, std::string>& headers) {
    for (const auto& [name, value] : headers) {
        writer.headers().add(std::make_shared<NamedHeader>(name, value));
    }
}

// The invoice id of /v1/checkout/<id>/events, nullopt for every other path.
std::optional<std::string> events_path(const std::string& path) {
    constexpr std::string_view prefix = "/v1/checkout/";
    constexpr std::string_view suffix = "/events";
    if (path.size() <= prefix.size() + suffix.size() ||
        path.compare(0, prefix.size(), prefix) != 0 || !path.ends_with(suffix)) {
        return std::nullopt;
    }
    return path.substr(prefix.size(), path.size() - prefix.size() - suffix.size());
}

}  // namespace

// One held SSE request: answered once, with an event or a keep-alive comment, then done.
class CheckoutServer::Stream {
public:
    Stream(Http::ResponseWriter writer, std::string last_id, Clock::time_point ends_at)
        : writer_(std::move(writer)), last_id_(std::move(last_id)), ends_at_(ends_at) {}

    const std::string& last_id() const { return last_id_; }
    bool expired(Clock::time_point now) const { return now >= ends_at_; }

    // Sends the body once; later calls do nothing. False if it was already answered.
    bool answer(const std::string& body) {
        std::lock_guard lock(mutex_);
        if (answered_) return false;
        answered_ = true;
        try {
            add_headers(writer_, sse_headers());
            writer_.send(Http::Code::Ok, body);
        } catch (const std::exception&) {
            // The buyer left; nothing to do.
        }
        return true;
    }

    static std::map<std::string, std::string> sse_headers() {
        auto headers = security_headers();
        headers["cache-control"] = "no-store";
        headers["x-accel-buffering"] = "no";
        headers["content-type"] = "text/event-stream";
        return headers;
    }

private:
    std::mutex mutex_;
    Http::ResponseWriter writer_;
    std::string last_id_;
    Clock::time_point ends_at_;
    bool answered_ = false;
};

namespace {

std::string sse_event(const std::string& id, const std::string& data) {
    return "retry: 1000\nid: " + id + "\nevent: status\ndata: " + data + "\n\n";
}

}  // namespace

std::string CheckoutServer::event_id(const CheckoutView& view) {
    // FNV-1a 64 of the event JSON: the same view gives the same id in every process.
    std::uint64_t h = 1469598103934665603ULL;
    for (unsigned char c : status_event_json(view)) {
        h ^= c;
        h *= 1099511628211ULL;
    }
    char buf[20];
    std::snprintf(buf, sizeof buf, "%016llx", static_cast<unsigned long long>(h));
    return buf;
}

namespace {

class Handler final : public Http::Handler {
  public:
    HTTP_PROTOTYPE(Handler)

    Handler(CheckoutRoutes* routes, CheckoutServer* server, bool log, int stream_seconds)
        : routes_(routes), server_(server), log_(log), stream_seconds_(stream_seconds) {}

    void onRequest(const Http::Request& req, Http::ResponseWriter writer) override {
        const auto started = Clock::now();
        CheckoutRequest request;
        request.method = Http::methodString(req.method());
        request.path = req.resource();
        try {
            for (const auto& [name, raw] : req.headers().rawList())
                request.headers[lower(name)] = raw.value();
            if (auto lang = req.query().get("lang")) request.query["lang"] = *lang;
            request.client = req.address().host();
            if (auto id = events_path(request.path); id && request.method == "GET") {
                return events(*id, request, std::move(writer), started);
            }
            send(writer, routes_->handle(request), request, started);
        } catch (const std::exception& e) {
            log_line("checkout internal error: " + std::string(e.what()).substr(0, 400));
            CheckoutResponse r;
            const auto api = error_response(500, "internal_error", "internal server error");
            r.status = api.status;
            r.body = api.body;
            r.content_type = "application/json";
            r.headers = security_headers();
            send(writer, r, request, started);
        }
    }

    void onTimeout(const Http::Request&, Http::ResponseWriter writer) override {
        CheckoutResponse r;
        const auto api =
            error_response(408, "request_timeout", "the request did not arrive in time");
        r.status = api.status;
        r.body = api.body;
        r.content_type = "application/json";
        send(writer, r, CheckoutRequest{}, Clock::now());
    }

  private:
    void send(Http::ResponseWriter& writer, const CheckoutResponse& r,
              const CheckoutRequest& request, Clock::time_point started) {
        add_headers(writer, r.headers);
        writer.headers().add(std::make_shared<NamedHeader>("content-type", r.content_type));
        writer.send(static_cast<Http::Code>(r.status), r.body);
        access(request, r.status, started);
    }

    void access(const CheckoutRequest& request, int status, Clock::time_point started) {
        if (!log_) return;
        char line[400];
        const double ms = std::chrono::duration<double, std::milli>(Clock::now() - started).count();
        std::snprintf(line, sizeof line, "checkout method=%s path=%.200s status=%d latency_ms=%.2f",
                      request.method.c_str(), request.path.c_str(), status, ms);
        log_line(line);
    }

    void events(const std::string& raw_id, const CheckoutRequest& request, Http::ResponseWriter writer,
                Clock::time_point started) {
        if (auto rejected = routes_->limited(request)) {
            auto r = std::move(*rejected);
            for (auto& [n, v] : security_headers()) r.headers.emplace(n, v);
            return send(writer, r, request, started);
        }
        const auto id = CheckoutRoutes::normalise_id(raw_id);
        std::optional<CheckoutView> view;
        if (id) view = routes_->view(*id);
        if (!view) {
            CheckoutResponse r;
            const auto api = error_response(404, "charge_not_found", "no charge with this id");
            r.status = 404;
            r.body = api.body;
            r.content_type = "application/json";
            r.headers = security_headers();
            return send(writer, r, request, started);
        }
        const std::string current = CheckoutServer::event_id(*view);
        auto last = request.headers.find("last-event-id");
        const bool up_to_date = last != request.headers.end() && last->second == current;
        access(request, 200, started);
        if (!up_to_date || final_status(view->status)) {
            // A client that is behind (or a charge that will not change again) gets the state now.
            CheckoutServer::Stream once(std::move(writer), current, Clock::now());
            once.answer(sse_event(current, status_event_json(*view)));
            return;
        }
        auto held = std::make_shared<CheckoutServer::Stream>(
            std::move(writer), current, Clock::now() + std::chrono::seconds(stream_seconds_));
        if (!server_->subscribe(*id, held, view->status == "confirming")) held->answer("retry: 5000\n: busy\n\n");
    }

    CheckoutRoutes* routes_;
    CheckoutServer* server_;
    bool log_;
    int stream_seconds_;
};

}  // namespace

CheckoutServer::CheckoutServer(CheckoutRoutes& routes, CheckoutServerSettings settings)
    : routes_(routes), settings_(std::move(settings)) {}

CheckoutServer::~CheckoutServer() { shutdown(); }

void CheckoutServer::start() {
    hub_ = std::thread([this] { hub_loop(); });
    if (!settings_.database_url.empty()) {
        listener_ = std::make_unique<infra::postgres::NotifyListener>(
            settings_.database_url, infra::postgres::kChargesChannel,
            [this](const std::string& payload) { on_notify(payload); },
            [this] {
                std::lock_guard lock(mutex_);
                recheck_all_ = true;  // notifications may have been missed
                wake_.notify_one();
            });
    }
    Address address(settings_.listen);
    endpoint_ = std::make_unique<Http::Endpoint>(address);
    auto options = Http::Endpoint::options()
                       .threads(settings_.threads)
                       .flags(Tcp::Options::ReuseAddr)
                       .backlog(1024)
                       .maxRequestSize(kMaxRequestBytes)
                       .maxResponseSize(1024 * 1024);
    endpoint_->init(options);
    endpoint_->setHandler(
        std::make_shared<Handler>(&routes_, this, settings_.access_log, settings_.stream_seconds));
    endpoint_->serveThreaded();
}

void CheckoutServer::shutdown() {
    listener_.reset();
    std::map<std::string, std::vector<std::shared_ptr<Stream>>> open;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        open.swap(streams_);
    }
    wake_.notify_one();
    if (hub_.joinable()) hub_.join();
    for (auto& [id, list] : open) {
        for (auto& s : list) s->answer("retry: 1000\n: restarting\n\n");
    }
    open.clear();
    if (endpoint_) {
        endpoint_->shutdown();
        endpoint_.reset();
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

void CheckoutServer::on_notify(const std::string& payload) {
    std::lock_guard lock(mutex_);
    std::stringstream ids(payload);
    bool any = false;
    for (std::string id; std::getline(ids, id, ',');) {
        if (streams_.contains(id)) {
            dirty_.insert(id);
            any = true;
        }
    }
    if (any) wake_.notify_one();
}

void CheckoutServer::publish(const std::string& invoice_id) {
    std::optional<CheckoutView> view;
    try {
        view = routes_.view(invoice_id);
    } catch (const std::exception& e) {
        log_line("checkout events: read of " + invoice_id + " failed: " + std::string(e.what()).substr(0, 300));
        std::lock_guard lock(mutex_);
        dirty_.insert(invoice_id);  // retried on the next tick
        return;
    }
    if (!view) return;
    const std::string id = event_id(*view);
    std::vector<std::shared_ptr<Stream>> changed;
    {
        std::lock_guard lock(mutex_);
        if (view->status == "confirming") {
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
