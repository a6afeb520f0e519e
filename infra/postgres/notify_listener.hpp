// A thread that LISTENs on one Postgres channel and hands each payload to a callback. On a broken
// connection it reconnects (backing off) and calls `on_reconnect`, since notifications sent while
// it was away are lost and whoever waits on them must re-check the table.
#pragma once

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace duepay::infra::postgres {

class NotifyListener {
  public:
    using OnPayload = std::function<void(const std::string& payload)>;
    NotifyListener(std::string url, std::string channel, OnPayload on_payload,
                   std::function<void()> on_reconnect);
    ~NotifyListener();  // stops and joins (within ~200 ms)
    NotifyListener(const NotifyListener&) = delete;
    NotifyListener& operator=(const NotifyListener&) = delete;

    // True once the first LISTEN is in place.
    bool listening() const { return listening_; }

  private:
    void run();

    std::string url_;
    std::string channel_;
    OnPayload on_payload_;
    std::function<void()> on_reconnect_;
    std::atomic<bool> stop_{false};
    std::atomic<bool> listening_{false};
    std::thread thread_;
};

}  // namespace duepay::infra::postgres
