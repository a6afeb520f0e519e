// The hosted checkout's Postgres adapter (domain/ports/checkout.hpp, ADR 0197): the charge
// row as a ChargeView (charge_view_of), the project's branding, and the block of the charge's
// latest detected payment from its journal (charge_events). Through the pool: a broken
// connection is retried once, then DatabaseUnavailable; no driver exception leaves it.
#pragma once

#include "domain/ports/checkout.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

class PgCheckoutReader final : public ports::CheckoutReader {
  public:
    explicit PgCheckoutReader(ConnectionPool& pool) : pool_(pool) {}
    std::optional<ports::ChargeView> find(const std::string& invoice_id) override;
    std::optional<ports::Branding> branding(const ports::ProjectId& project) override;
    std::optional<std::uint64_t> payment_block(const std::string& invoice_id) override;

  private:
    ConnectionPool& pool_;
};

}  // namespace duepay::infra::postgres
