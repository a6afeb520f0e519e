#include "infra/rpc/rpc_chain_heads.hpp"

#include <algorithm>

#include "infra/rpc/rpc_client.hpp"

namespace duepay::infra::rpc {

struct RpcChainHeads::Entry {
    std::mutex mutex;
    std::unique_ptr<RpcClient> client;
    std::chrono::steady_clock::time_point read_at{};
    std::chrono::milliseconds ttl{1000};
    std::optional<std::uint64_t> value;
};

RpcChainHeads::RpcChainHeads(const config::ChainRegistry& chains) : chains_(chains) {}
RpcChainHeads::~RpcChainHeads() = default;

std::optional<std::uint64_t> RpcChainHeads::head(std::uint64_t chain_id) {
    Entry* entry = nullptr;
    {
        std::lock_guard lock(mutex_);
        auto& slot = entries_[chain_id];
        if (!slot) {
            const auto* chain = chains_.find(domain::ChainId{chain_id});
            if (chain == nullptr || chain->rpc_url.empty()) return std::nullopt;
            slot = std::make_unique<Entry>();
            RpcSettings settings;
            settings.url = chain->rpc_url;
            settings.timeout = std::chrono::milliseconds(2000);
            slot->client = std::make_unique<RpcClient>(settings);
            slot->ttl = std::chrono::milliseconds(
                500 * std::max<std::uint32_t>(1, chain->block_time_seconds));
        }
        entry = slot.get();
    }
    std::lock_guard lock(entry->mutex);
    const auto now = std::chrono::steady_clock::now();
    if (entry->value && now - entry->read_at < entry->ttl) return entry->value;
    try {
        entry->value = entry->client->block_number();
        entry->read_at = now;
    } catch (const std::exception&) {
        entry->value.reset();  // the node is away: confirmations are shown as unknown
    }
    return entry->value;
}

}  // namespace duepay::infra::rpc
