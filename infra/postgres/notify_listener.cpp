#include "infra/postgres/notify_listener.hpp"

#include <chrono>
#include <pqxx/pqxx>

#include "infra/log/log.hpp"

namespace duepay::infra::postgres {

constexpr log::Logger kLog{"postgres"};
namespace {

class Receiver final : public pqxx::notification_receiver {
  public:
    Receiver(pqxx::connection_base& conn, const std::string& channel,
             const NotifyListener::OnPayload& on_payload)
        : pqxx::notification_receiver(conn, channel), on_payload_(on_payload) {}
    void operator()(const std::string& payload, int) override { on_payload_(payload); }

  private:
    const NotifyListener::OnPayload& on_payload_;
};

}  // namespace

NotifyListener::NotifyListener(std::string url, std::string channel, OnPayload on_payload,
                               std::function<void()> on_reconnect)
    : url_(std::move(url)),
      channel_(std::move(channel)),
      on_payload_(std::move(on_payload)),
      on_reconnect_(std::move(on_reconnect)) {
    thread_ = std::thread([this] { run(); });
}

NotifyListener::~NotifyListener() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
}

void NotifyListener::run() {
    bool first = true;
    while (!stop_) {
        try {
            pqxx::connection conn(url_);
            Receiver receiver(conn, channel_, on_payload_);
            conn.get_notifs();  // issues the LISTEN
            listening_ = true;
            if (!first && on_reconnect_) on_reconnect_();
            first = false;
            while (!stop_) conn.await_notification(0, 200'000);
        } catch (const std::exception& e) {
            kLog.warn() << "notify listener (" << channel_ << "): " << e.what();
            if (on_reconnect_ && !first) on_reconnect_();
            for (int i = 0; i < 10 && !stop_; ++i)
                std::this_thread::sleep_for(std::chrono::milliseconds(100));
        }
    }
}

}  // namespace duepay::infra::postgres
