#include "api/http/server.hpp"

#include <algorithm>
#include <optional>
#include <string>

#include "api/http/envelope.hpp"
#include "api/http/http_edge.hpp"

namespace duepay::api {
namespace {

// application/json, any case, parameters (charset) allowed; a missing content-type is not JSON.
bool is_json_media_type(const ApiRequest& request) {
    auto ct = request.header("content-type");
    if (!ct) return false;
    std::string media = ct->substr(0, ct->find(';'));
    std::transform(media.begin(), media.end(), media.begin(),
                   [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
    while (!media.empty() && (media.back() == ' ' || media.back() == '\t')) media.pop_back();
    return media == "application/json";
}

// Checked before routing and authentication: the media type of the one route that takes a body
// (the body limit of docs/api.md is the edge's: HttpLimits::max_body_bytes).
std::optional<ApiResponse> transport_rejection(const ApiRequest& request) {
    if (request.method == "POST" && request.path == "/v1/invoices" &&
        !is_json_media_type(request)) {
        return error_response(415, "unsupported_media_type",
                              "content-type must be application/json");
    }
    return std::nullopt;
}

}  // namespace

ApiServer::ApiServer(ChargesApi& api, ServerSettings settings)
    : api_(api), settings_(std::move(settings)) {}

ApiServer::~ApiServer() { shutdown(); }

void ApiServer::start() {
    EdgeSettings edge;
    edge.listen = settings_.listen;
    edge.threads = settings_.threads;
    edge.access_log = settings_.access_log;
    edge.log_name = "api";
    edge_ = std::make_unique<HttpEdge>(edge, [api = &api_](ApiRequest request, Responder respond) {
        if (auto rejected = transport_rejection(request)) return respond(std::move(*rejected));
        api->handle(request, std::move(respond));
    });
    edge_->start();
}

void ApiServer::shutdown() {
    if (edge_) {
        edge_->shutdown();
        edge_.reset();
    }
}

}  // namespace duepay::api
