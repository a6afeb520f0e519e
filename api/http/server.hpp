// The merchant API listener: an HttpEdge (api/http/http_edge.hpp: request bounds, timeouts, the
// envelope and x-request-id on every answer, one access-log line per request) in front of
// ChargesApi, plus the API's own transport rule (415 for a create that is not JSON). Reactor
// threads never block on Kafka: a create hands its responder to the append's completion path.
#pragma once

#include <memory>
#include <string>

#include "api/http/charges_api.hpp"

namespace duepay::api {

class HttpEdge;

struct ServerSettings {
    std::string listen = "127.0.0.1:8080";  // host:port
    int threads = 2;
    bool access_log = true;
};

class ApiServer {
  public:
    ApiServer(ChargesApi& api, ServerSettings settings);
    ~ApiServer();
    void start();     // binds and serves on background threads; throws on bind failure
    void shutdown();  // stops accepting and joins the reactor threads

  private:
    ChargesApi& api_;
    ServerSettings settings_;
    std::unique_ptr<HttpEdge> edge_;
};

}  // namespace duepay::api
