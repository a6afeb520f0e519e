// Many webhook requests in flight from one thread (libcurl multi, docs/webhooks.md "Delivery"):
// connect timeout 5 s, total 10 s, at most 4 KiB of the response body kept (the transfer stops
// there; the status is already known), no redirects, no proxy, http/https only, and every socket
// checked against the address rules before it connects (address_guard.hpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <unordered_map>
#include <vector>

#include "infra/curl/curl_handle.hpp"

namespace duepay::infra::webhooks {

struct SenderSettings {
    std::chrono::milliseconds connect_timeout{5000};
    std::chrono::milliseconds total_timeout{10000};
    std::size_t max_response_bytes = 4096;
    // http:// and loopback for test-mode endpoints (HttpRequest::test_mode), dev stack only.
    bool allow_insecure = false;
};

struct HttpRequest {
    std::uint64_t tag = 0;  // the caller's handle, returned in the result
    std::string url;
    std::map<std::string, std::string> headers;
    std::string body;
    bool test_mode = false;  // the endpoint's mode; live endpoints never get allow_insecure
};

struct HttpResult {
    std::uint64_t tag = 0;
    long status = 0;    // 0 when no response arrived
    std::string error;  // empty when a response arrived
    std::chrono::milliseconds latency{0};
    std::string body;  // at most max_response_bytes (the delivery log keeps its start)
};

class HttpSender {
  public:
    explicit HttpSender(SenderSettings settings);
    ~HttpSender();
    HttpSender(const HttpSender&) = delete;
    HttpSender& operator=(const HttpSender&) = delete;

    void start(HttpRequest request);
    // Drives the transfers for at most `wait` and returns those that finished.
    std::vector<HttpResult> poll(std::chrono::milliseconds wait);
    std::size_t in_flight() const { return transfers_.size(); }

    struct Transfer;  // internal

  private:
    SenderSettings settings_;
    curl::Multi multi_;
    std::unordered_map<void*, std::unique_ptr<Transfer>> transfers_;  // by CURL*
};

}  // namespace duepay::infra::webhooks
