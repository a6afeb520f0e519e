// The HTTP edge shared by every Pistache listener of ours (`duepay api`, and `duepay checkout`):
// Pistache 0.0.5 only runs the sockets (accept, epoll, writes) through its TCP layer
// (Tcp::Listener, Tcp::Transport, Tcp::Handler); its HTTP layer is not used. HttpEdge reads the
// request bytes (parse_request_head), bounds them (request line 8 KiB -> 414, head 16 KiB or 100
// fields -> 431, body 64 KiB -> 413), waits at most `request_timeout` from the first byte of a
// request to its last (-> 408), and answers every rejection itself in the envelope with
// x-request-id and `connection: close`. A whole, well-formed request goes to the handler; its
// answer may come from any thread. One request per connection is in flight at a time, so
// pipelined requests are answered in order. A connection with no request in progress is closed
// after `idle_timeout` without a byte. docs/adr/0096, docs/adr/0204.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/http_parser.hpp"

namespace Pistache::Tcp {
class Listener;
}

namespace duepay::api {

struct EdgeSettings {
    std::string listen = "127.0.0.1:8080";  // host:port
    int threads = 2;
    bool access_log = true;
    std::string log_name = "api";  // first word of the access-log line
    HttpLimits limits;
    // From the first byte of a request to its last byte (head and body): else 408.
    std::chrono::milliseconds request_timeout{10000};
    // A connection with no request in progress is closed after this long without a byte.
    std::chrono::milliseconds idle_timeout{15000};
};

// Gets a whole request (request_id set: the incoming x-request-id when valid, else a new one) on a
// reactor thread; must call `respond` exactly once, from any thread. What it throws is a 500
// internal_error (detail logged with the request id). Answering once is guaranteed here: the
// first answer is written, any later one (a handler that answered and then threw) is dropped;
// the Pipeline (api/http/router.hpp) relies on this and keeps no guard of its own.
using EdgeRequestHandler = std::function<void(ApiRequest request, Responder respond)>;

class HttpEdge {
  public:
    HttpEdge(EdgeSettings settings, EdgeRequestHandler handler);
    ~HttpEdge();
    HttpEdge(const HttpEdge&) = delete;
    HttpEdge& operator=(const HttpEdge&) = delete;

    void start();     // binds and serves on background threads; throws on bind failure
    void shutdown();  // stops accepting, joins the reactor threads; later answers are dropped

    struct Shared;  // state shared by the per-thread handlers (defined in http_edge.cpp)

  private:
    std::shared_ptr<Shared> shared_;
    std::unique_ptr<Pistache::Tcp::Listener> listener_;
};

}  // namespace duepay::api
