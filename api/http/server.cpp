#include "api/http/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>

#include <pistache/endpoint.h>
#include <pistache/http.h>

#include "api/http/request_id.hpp"

namespace duepay::api {
namespace {

using namespace Pistache;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

void access_log(const std::string& id, const std::string& method, const std::string& path, int status,
                std::chrono::steady_clock::duration latency) {
    char line[512];
    const double ms = std::chrono::duration<double, std::milli>(latency).count();
    const int n = std::snprintf(line, sizeof line, "api request_id=%s method=%s path=%.200s status=%d latency_ms=%.2f\n",
                                id.c_str(), method.c_str(), path.c_str(), status, ms);
    if (n > 0) {
        [[maybe_unused]] auto written = ::write(STDERR_FILENO, line, static_cast<std::size_t>(std::min(n, 511)));
    }
}

// A response header with a run-time name (Pistache 0.0.5 writes typed headers only, not raw ones).
class NamedHeader final : public Http::Header::Header {
public:
    NamedHeader(std::string name, std::string value) : name_(std::move(name)), value_(std::move(value)) {}
    const char* name() const override { return name_.c_str(); }
    void write(std::ostream& os) const override { os << value_; }
#ifdef SAFE_HEADER_CAST
    uint64_t hash() const override { return Http::Header::detail::hash(name_.c_str()); }
#endif

private:
    std::string name_;
    std::string value_;
};

class Handler final : public Http::Handler {
public:
    HTTP_PROTOTYPE(Handler)

    Handler(ChargesApi* api, bool log) : api_(api), log_(log) {}

    void onRequest(const Http::Request& req, Http::ResponseWriter writer) override {
        const auto started = std::chrono::steady_clock::now();
        ApiRequest request;
        request.method = Http::methodString(req.method());
        request.path = req.resource();
        for (const auto& [name, raw] : req.headers().rawList()) request.headers[lower(name)] = raw.value();
        if (auto auth = req.headers().tryGet<Http::Header::Authorization>()) {
            request.headers["authorization"] = auth->value();
        }
        request.body = req.body();
        request.request_id = choose_request_id(request.header("x-request-id"));

        auto shared_writer = std::make_shared<Http::ResponseWriter>(std::move(writer));
        api_->handle(request, [shared_writer, id = request.request_id, method = request.method,
                               path = request.path, started, log = log_](ApiResponse response) {
            auto& headers = shared_writer->headers();
            headers.add(std::make_shared<NamedHeader>("x-request-id", id));
            for (const auto& [name, value] : response.headers) headers.add(std::make_shared<NamedHeader>(name, value));
            headers.add<Http::Header::ContentType>(MIME(Application, Json));
            shared_writer->send(static_cast<Http::Code>(response.status), response.body);
            if (log) access_log(id, method, path, response.status, std::chrono::steady_clock::now() - started);
        });
    }

private:
    ChargesApi* api_;
    bool log_;
};

}  // namespace

ApiServer::ApiServer(ChargesApi& api, ServerSettings settings) : api_(api), settings_(std::move(settings)) {}

ApiServer::~ApiServer() { shutdown(); }

void ApiServer::start() {
    Address address(settings_.listen);
    endpoint_ = std::make_unique<Http::Endpoint>(address);
    auto options = Http::Endpoint::options()
                       .threads(settings_.threads)
                       .flags(Tcp::Options::ReuseAddr)
                       .backlog(1024)
                       .maxRequestSize(64 * 1024)
                       .maxResponseSize(1024 * 1024);
    endpoint_->init(options);
    endpoint_->setHandler(std::make_shared<Handler>(&api_, settings_.access_log));
    endpoint_->serveThreaded();
}

void ApiServer::shutdown() {
    if (endpoint_) {
        endpoint_->shutdown();
        endpoint_.reset();
    }
}

}  // namespace duepay::api
