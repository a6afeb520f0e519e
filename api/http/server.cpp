#include "api/http/server.hpp"

#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <optional>
#include <string>

#include <pistache/endpoint.h>
#include <pistache/http.h>

#include "api/http/access_log.hpp"
#include "api/http/envelope.hpp"
#include "api/http/request_id.hpp"

namespace duepay::api {
namespace {

using namespace Pistache;

// docs/api.md: bodies up to 16 KiB (a valid create is under 3 KiB). Pistache's own buffer is far
// larger, so a body between the two limits is still answered with the envelope (413
// payload_too_large); only a request above 1 MiB gets Pistache's plain-text 413.
constexpr std::size_t kMaxBodyBytes = 16 * 1024;
constexpr std::size_t kMaxRequestBytes = 1024 * 1024;

std::string lower(std::string s) {
    std::transform(s.begin(), s.end(), s.begin(), [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    return s;
}

void access_log(const std::string& id, const std::string& method, const std::string& path, int status,
                std::chrono::steady_clock::duration latency) {
    const std::string line = access_log_line(id, method, path, status, latency);  // escaped
    [[maybe_unused]] auto written = ::write(STDERR_FILENO, line.data(), line.size());
}

void log_error(const std::string& id, const char* what) {
    char line[640];
    const int n = std::snprintf(line, sizeof line, "api request_id=%s internal error: %.500s\n", id.c_str(), what);
    if (n > 0) {
        [[maybe_unused]] auto written = ::write(STDERR_FILENO, line, static_cast<std::size_t>(std::min(n, 639)));
    }
}

// application/json, any case, parameters (charset) allowed; a missing content-type is not JSON.
bool is_json_media_type(const Http::Request& req) {
    auto ct = req.headers().tryGet<Http::Header::ContentType>();
    if (!ct) return false;
    std::string media = lower(ct->mime().toString());
    media = media.substr(0, media.find(';'));
    while (!media.empty() && media.back() == ' ') media.pop_back();
    return media == "application/json";
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

// Checked here, before routing and authentication, because they concern the transport: the body
// limit of docs/api.md and the media type of the one route that takes a body.
std::optional<ApiResponse> transport_rejection(const Http::Request& req, const ApiRequest& request) {
    if (request.body.size() > kMaxBodyBytes) {
        return error_response(413, "payload_too_large",
                              "request body is larger than " + std::to_string(kMaxBodyBytes) + " bytes");
    }
    if (request.method == "POST" && request.path == "/v1/invoices" && !is_json_media_type(req)) {
        return error_response(415, "unsupported_media_type", "content-type must be application/json");
    }
    return std::nullopt;
}

class Handler final : public Http::Handler {
public:
    HTTP_PROTOTYPE(Handler)

    Handler(ChargesApi* api, bool log) : api_(api), log_(log) {}

    void onRequest(const Http::Request& req, Http::ResponseWriter writer) override {
        const auto started = std::chrono::steady_clock::now();
        auto shared_writer = std::make_shared<Http::ResponseWriter>(std::move(writer));
        std::string id = new_request_id();
        ApiRequest request;
        try {
            request.method = Http::methodString(req.method());
            request.path = req.resource();
            for (const auto& [name, raw] : req.headers().rawList()) request.headers[lower(name)] = raw.value();
            if (auto auth = req.headers().tryGet<Http::Header::Authorization>()) {
                request.headers["authorization"] = auth->value();
            }
            request.request_id = id = choose_request_id(request.header("x-request-id"));
            request.body = req.body();
            if (auto rejected = transport_rejection(req, request)) {
                return reply(*shared_writer, id, request.method, request.path, started, std::move(*rejected), log_);
            }
            api_->handle(request, [shared_writer, id, method = request.method, path = request.path, started,
                                   log = log_](ApiResponse response) {
                reply(*shared_writer, id, method, path, started, std::move(response), log);
            });
        } catch (const std::exception& e) {
            // Pistache would answer with e.what() as the body: keep the detail in the log only.
            log_error(id, e.what());
            reply(*shared_writer, id, request.method, request.path, started,
                  error_response(500, "internal_error", "internal server error"), log_);
        }
    }

    // A request whose headers or body did not arrive in time (Pistache's header/body timeouts).
    void onTimeout(const Http::Request& req, Http::ResponseWriter writer) override {
        const std::string id = new_request_id();
        reply(writer, id, Http::methodString(req.method()), req.resource(), std::chrono::steady_clock::now(),
              error_response(408, "request_timeout", "the request did not arrive in time"), log_);
    }

private:
    static void reply(Http::ResponseWriter& writer, const std::string& id, const std::string& method,
                      const std::string& path, std::chrono::steady_clock::time_point started, ApiResponse response,
                      bool log) {
        auto& headers = writer.headers();
        headers.add(std::make_shared<NamedHeader>("x-request-id", id));
        for (const auto& [name, value] : response.headers) headers.add(std::make_shared<NamedHeader>(name, value));
        headers.add<Http::Header::ContentType>(MIME(Application, Json));
        writer.send(static_cast<Http::Code>(response.status), response.body);
        if (log) access_log(id, method, path, response.status, std::chrono::steady_clock::now() - started);
    }

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
                       .maxRequestSize(kMaxRequestBytes)
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
