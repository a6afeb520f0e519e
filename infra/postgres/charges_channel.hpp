// One LISTEN connection per database URL and process on the projector's charges channel
// (kChargesChannel), shared by every subscriber in the process: the checkout's and the
// dashboard's live updates (PgChargeChanges) and the api's projection waiter each subscribe, and
// a process that runs several of them holds one connection and one thread for all. The
// connection opens with the first subscription of a URL and closes with its last.
#pragma once

#include <functional>
#include <memory>
#include <string>

#include "domain/ports/checkout.hpp"

namespace duepay::infra::postgres {

class ChargesChannel {
  public:
    using OnPayload = std::function<void(const std::string& payload)>;

    class Hub;
    // Its callbacks run on the channel's thread, one at a time across all subscribers; a
    // callback must not subscribe or drop a subscription.
    class Subscription final : public ports::ChargeChanges::Subscription {
      public:
        Subscription(std::shared_ptr<Hub> hub, std::uint64_t id);
        // Returns once no callback of this subscription runs, or will.
        ~Subscription() override;
        Subscription(const Subscription&) = delete;
        Subscription& operator=(const Subscription&) = delete;
        // True once the shared LISTEN is in place.
        bool listening() const;

      private:
        std::shared_ptr<Hub> hub_;
        std::uint64_t id_;
    };

    // `on_payload` with each notification's payload (comma-separated invoice ids);
    // `on_reconnect` when the connection was opened again (notifications may have been lost).
    static std::unique_ptr<Subscription> subscribe(const std::string& database_url,
                                                   OnPayload on_payload,
                                                   std::function<void()> on_reconnect);
};

}  // namespace duepay::infra::postgres
