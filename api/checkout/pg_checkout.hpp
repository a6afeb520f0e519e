// The checkout's adapters: charge, branding and payment block reads over the Postgres pool, and
// chain heads over JSON-RPC (cached per chain for a block time, so a thousand open pages cost one
// eth_blockNumber per block, not one per page).
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "api/checkout/checkout_routes.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::api::checkout {

class PgCheckoutReader final : public CheckoutReader {
  public:
    explicit PgCheckoutReader(infra::postgres::ConnectionPool& pool) : pool_(pool) {}
    std::optional<infra::postgres::ChargeRow> find(const std::string& invoice_id) override;
    std::optional<Branding> branding(const std::string& project_id) override;
    std::optional<std::uint64_t> payment_block(const std::string& invoice_id) override;

  private:
    infra::postgres::ConnectionPool& pool_;
};

class RpcChainHeads final : public ChainHeads {
  public:
    explicit RpcChainHeads(const infra::config::ChainRegistry& chains);
    ~RpcChainHeads() override;
    std::optional<std::uint64_t> head(std::uint64_t chain_id) override;

  private:
    struct Entry;
    const infra::config::ChainRegistry& chains_;
    std::mutex mutex_;
    std::map<std::uint64_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace duepay::api::checkout
