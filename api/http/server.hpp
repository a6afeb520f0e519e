// The merchant API listener: an HttpEdge (api/http/http_edge.hpp: request bounds, timeouts, the
// envelope and x-request-id on every answer, one access-log line per request) in front of the
// API's Pipeline (api/http/router.hpp), whose route table api_routes builds from the sub-APIs.
// Reactor threads never block on Kafka: a create hands its responder to the append's completion
// path.
#pragma once

#include <memory>
#include <string>

#include "api/http/router.hpp"

namespace duepay::api {

class HttpEdge;
class ChargesApi;
class WebhooksApi;
class AccountApi;
class EventsApi;
class RefundsApi;
class ReportsApi;

// Every route of the merchant API: GET /healthz and the sub-APIs' routes.
struct ApiSurface {
    ChargesApi& charges;
    WebhooksApi& webhooks;
    AccountApi& account;
    EventsApi& events;
    RefundsApi& refunds;
    ReportsApi& reports;
};
RouteTable api_routes(const ApiSurface& surface);

struct ServerSettings {
    std::string listen = "127.0.0.1:8080";  // host:port
    int threads = 2;
    bool access_log = true;
};

class ApiServer {
  public:
    ApiServer(const Pipeline& pipeline, ServerSettings settings);
    ~ApiServer();
    void start();     // binds and serves on background threads; throws on bind failure
    void shutdown();  // stops accepting and joins the reactor threads

  private:
    const Pipeline& pipeline_;
    ServerSettings settings_;
    std::unique_ptr<HttpEdge> edge_;
};

}  // namespace duepay::api
