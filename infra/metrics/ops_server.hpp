// The ops listener of a process (`--ops-listen H:P`, ADR 0131, docs/operations.md): a small
// HTTP/1.1 server on its own thread, apart from the public port, answering
//   GET /metrics  200, the registry in the Prometheus text format 0.0.4
//   GET /healthz  200 "ok": the process is alive and its ops thread answers
//   GET /readyz   200 "ready" when every readiness check passes, else 503 listing the failing
//                 ones (one "name: reason" per line)
// and 404/405 to anything else. One connection at a time, one request per connection
// (Connection: close), a 2 s read timeout and an 8 KiB head: a scraper's needs and nothing more.
// Meant for a loopback or private address; it serves no secret.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <thread>

#include "infra/metrics/metrics.hpp"

namespace duepay::infra::metrics {

// Named readiness checks of this process. A check returns nullopt when ready, else the reason;
// it is called on the ops thread at each /readyz and must not block (read an atomic, a cached
// value). Like collectors, a check stays while its Registration lives.
class Readiness {
  public:
    using Check = std::function<std::optional<std::string>()>;
    [[nodiscard]] Registration add(std::string name, Check check);
    // (ready, text): text lists each failing check as "name: reason\n", or is "ready\n".
    std::pair<bool, std::string> evaluate() const;

  private:
    mutable std::mutex mutex_;
    std::multimap<std::string, std::pair<std::uint64_t, Check>> checks_;
    std::uint64_t next_ = 0;
};

Readiness& readiness();

// One HTTP answer of the ops listener for `method` and `path` (pure routing, unit-tested).
struct OpsAnswer {
    int status = 200;
    std::string content_type;
    std::string body;
};
OpsAnswer ops_answer(std::string_view method, std::string_view path, const Registry& registry,
                     const Readiness& readiness);

class OpsServer {
  public:
    // Binds `host:port` (port 0: any free port) or throws config::ConfigError; serves until
    // destroyed. Logs "ops: listening on host:port" with the bound port.
    explicit OpsServer(const std::string& listen);
    ~OpsServer();
    OpsServer(const OpsServer&) = delete;
    OpsServer& operator=(const OpsServer&) = delete;
    int port() const { return port_; }

  private:
    void serve();
    int fd_ = -1;
    int port_ = 0;
    std::atomic<bool> stop_{false};
    std::thread thread_;
};

}  // namespace duepay::infra::metrics
