// The chain node port: what chainwatch's follower (consumers/roles/chain_follower.hpp) asks of an
// EVM node, in the words of its JSON-RPC answers: the head, a block header by number (its hash and
// parent hash: how reorgs are followed), the logs of a block range by filter, and a transaction's
// receipt (refund verification, docs/refunds.md). The adapter is infra::rpc::RpcClient over
// JSON-RPC; unit tests drive the follower with a scripted chain (tests/doubles/scripted_chain.hpp).
// Failures of the node are the adapter's exceptions (infra::rpc::RpcError). ADR 0205.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "domain/types.hpp"

namespace duepay::ports {

struct BlockHeader {
    std::uint64_t number = 0;
    domain::Bytes32 hash{};
    domain::Bytes32 parent_hash{};
    std::uint64_t timestamp = 0;
};

struct Log {
    domain::Address address;
    std::vector<domain::Bytes32> topics;
    domain::Bytes data;
    std::uint64_t block_number = 0;
    domain::Bytes32 block_hash{};
    domain::Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    bool removed = false;
};

// eth_getLogs filter: addresses OR-ed; topics[i] empty = any, else one of the listed values.
struct LogFilter {
    std::uint64_t from_block = 0;
    std::uint64_t to_block = 0;
    std::vector<domain::Address> addresses;
    std::vector<std::vector<domain::Bytes32>> topics;
};

struct Receipt {
    domain::Bytes32 tx_hash{};
    bool success = false;
    std::uint64_t block_number = 0;
    domain::Bytes32 block_hash{};
    std::vector<Log> logs;
};

class ChainNode {
  public:
    virtual ~ChainNode() = default;

    // The number of the head block.
    virtual std::uint64_t block_number() = 0;
    // The canonical block at `number`; nullopt above the head.
    virtual std::optional<BlockHeader> block_by_number(std::uint64_t number) = 0;
    // The canonical chain's logs in [from_block, to_block] that pass `filter`, in block and log
    // order.
    virtual std::vector<Log> get_logs(const LogFilter& filter) = 0;
    // The receipt of a mined transaction; nullopt when it is not mined (or unknown).
    virtual std::optional<Receipt> transaction_receipt(const domain::Bytes32& tx_hash) = 0;
};

}  // namespace duepay::ports
