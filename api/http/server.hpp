// The Pistache endpoint: turns Pistache requests into ApiRequests for ChargesApi, answers with the
// envelope, sets x-request-id on every response (404/405/malformed JSON included) and writes one
// access-log line per request. Reactor threads never block on Kafka: a create hands its
// ResponseWriter to the append's completion path.
#pragma once

#include <memory>
#include <string>

#include "api/http/charges_api.hpp"

namespace Pistache::Http {
class Endpoint;
}

namespace duepay::api {

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
    std::unique_ptr<Pistache::Http::Endpoint> endpoint_;
};

}  // namespace duepay::api
