// What the hosted checkout reads from the world, in the API's vocabulary (domain/ports/api.hpp,
// ADR 0182, ADR 0197): the charge as a ChargeView, the project's branding and the chain's head.
// Adapters: infra::postgres::PgCheckoutReader (infra/postgres/checkout_reader.hpp),
// infra::rpc::RpcChainHeads (infra/rpc/rpc_chain_heads.hpp) and infra::postgres::PgChargeChanges
// (infra/postgres/charge_changes.hpp), built by consumers/roles/checkout.cpp; the unit tests'
// doubles are in checkout_test.cpp.
// Header-only and free of I/O types.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "domain/ports/api.hpp"

namespace duepay::ports {

class CheckoutReader {
  public:
    virtual ~CheckoutReader() = default;
    // Each throws StoreUnavailable (errors.hpp) when the store is unreachable.
    virtual std::optional<ChargeView> find(const std::string& invoice_id) = 0;
    virtual std::optional<Branding> branding(const ProjectId& project) = 0;
    // Block number of the latest detected, not yet final payment of the charge, if any.
    virtual std::optional<std::uint64_t> payment_block(const std::string& invoice_id) = 0;
};

// The chain's latest block number; nullopt when the node cannot be reached (the page then shows
// "0 of m" until the status moves). Implementations cache briefly: one call per chain, not per
// buyer.
class ChainHeads {
  public:
    virtual ~ChainHeads() = default;
    virtual std::optional<std::uint64_t> head(std::uint64_t chain_id) = 0;
};

// The charges whose read-model row changed, as they change (the projector's notifications), so the
// checkout's event streams re-read only those.
class ChargeChanges {
  public:
    // The callbacks stop when it is destroyed (which waits for one that is running).
    class Subscription {
      public:
        virtual ~Subscription() = default;
    };
    using OnChanged = std::function<void(const std::string& invoice_id)>;

    virtual ~ChargeChanges() = default;
    // `changed` once per changed charge; `missed` when changes may have been lost (a reconnect),
    // so the subscriber re-reads everything it waits on. Both run on a thread of the adapter.
    virtual std::unique_ptr<Subscription> subscribe(OnChanged changed,
                                                    std::function<void()> missed) = 0;
};

}  // namespace duepay::ports
