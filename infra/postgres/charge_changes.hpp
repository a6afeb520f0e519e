// The ChargeChanges port (domain/ports/checkout.hpp) over Postgres: each subscription is one
// subscriber of the process's shared LISTEN on duepay_charges (charges_channel.hpp), the channel
// the projector notifies after each batch with the changed invoice ids, comma-separated; on a
// reconnect the subscriber hears `missed`.
#pragma once

#include <memory>
#include <string>

#include "domain/ports/checkout.hpp"

namespace duepay::infra::postgres {

class PgChargeChanges final : public ports::ChargeChanges {
  public:
    explicit PgChargeChanges(std::string database_url) : url_(std::move(database_url)) {}
    std::unique_ptr<Subscription> subscribe(OnChanged changed,
                                            std::function<void()> missed) override;

  private:
    std::string url_;
};

}  // namespace duepay::infra::postgres
