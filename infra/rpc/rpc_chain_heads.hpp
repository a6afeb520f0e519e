// The checkout's ChainHeads over JSON-RPC (domain/ports/checkout.hpp), cached per chain for half a
// block time, so a thousand open pages cost about one eth_blockNumber per block, not one per page.
// Built by the checkout role (consumers/roles/checkout.cpp); the Postgres reads are
// infra::postgres::PgCheckoutReader.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "domain/ports/checkout.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::infra::rpc {

class RpcChainHeads final : public ports::ChainHeads {
  public:
    explicit RpcChainHeads(const config::ChainRegistry& chains);
    ~RpcChainHeads() override;
    std::optional<std::uint64_t> head(std::uint64_t chain_id) override;

  private:
    struct Entry;
    const config::ChainRegistry& chains_;
    std::mutex mutex_;
    std::map<std::uint64_t, std::unique_ptr<Entry>> entries_;
};

}  // namespace duepay::infra::rpc
