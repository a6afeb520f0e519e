// The checkout's ChainHeads over JSON-RPC (domain/ports/checkout.hpp), cached per chain for half a
// block time, so a thousand open pages cost about one eth_blockNumber per block, not one per page.
// The Postgres reads are infra::postgres::PgCheckoutReader.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <mutex>

#include "api/http/port_names.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api::checkout {

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
