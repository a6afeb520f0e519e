#include "infra/postgres/charges_channel.hpp"

#include <map>
#include <mutex>
#include <utility>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/notify_listener.hpp"

namespace duepay::infra::postgres {

class ChargesChannel::Hub {
  public:
    explicit Hub(const std::string& url)
        : listener_(
              url, kChargesChannel,
              [this](const std::string& payload) {
                  each([&](const Subscriber& s) { s.on_payload(payload); });
              },
              [this] {
                  each([](const Subscriber& s) {
                      if (s.on_reconnect) s.on_reconnect();
                  });
              }) {}

    std::uint64_t add(OnPayload on_payload, std::function<void()> on_reconnect) {
        std::lock_guard lock(mutex_);
        subscribers_.emplace(++last_id_,
                             Subscriber{std::move(on_payload), std::move(on_reconnect)});
        return last_id_;
    }
    // Waits for a callback that is running (the mutex is held while they run).
    void remove(std::uint64_t id) {
        std::lock_guard lock(mutex_);
        subscribers_.erase(id);
    }
    bool listening() const { return listener_.listening(); }

  private:
    struct Subscriber {
        OnPayload on_payload;
        std::function<void()> on_reconnect;
    };
    template <typename F>
    void each(F f) {
        std::lock_guard lock(mutex_);
        for (const auto& [id, s] : subscribers_) f(s);
    }

    std::mutex mutex_;
    std::map<std::uint64_t, Subscriber> subscribers_;
    std::uint64_t last_id_ = 0;
    NotifyListener listener_;  // last: its thread stops before the rest goes
};

namespace {

// The live hubs by URL. Never destroyed: a subscription may outlive static destruction.
struct Hubs {
    std::mutex mutex;
    std::map<std::string, std::weak_ptr<ChargesChannel::Hub>> by_url;
};
Hubs& hubs() {
    static auto* all = new Hubs;
    return *all;
}

}  // namespace

ChargesChannel::Subscription::Subscription(std::shared_ptr<Hub> hub, std::uint64_t id)
    : hub_(std::move(hub)), id_(id) {}

ChargesChannel::Subscription::~Subscription() {
    hub_->remove(id_);
    // The last subscription of a URL closes its connection (and joins its thread) here.
    hub_.reset();
}

bool ChargesChannel::Subscription::listening() const { return hub_->listening(); }

std::unique_ptr<ChargesChannel::Subscription> ChargesChannel::subscribe(
    const std::string& database_url, OnPayload on_payload, std::function<void()> on_reconnect) {
    std::shared_ptr<Hub> hub;
    {
        auto& all = hubs();
        std::lock_guard lock(all.mutex);
        auto& known = all.by_url[database_url];
        hub = known.lock();
        if (!hub) {
            hub = std::make_shared<Hub>(database_url);
            known = hub;
        }
    }
    const auto id = hub->add(std::move(on_payload), std::move(on_reconnect));
    return std::make_unique<Subscription>(std::move(hub), id);
}

}  // namespace duepay::infra::postgres
