// A scripted EVM chain behind the chain node port (domain/ports/chain_node.hpp), for unit tests of
// chainwatch's follower: a test mines blocks with the logs it wants, rewinds the chain to a fork
// point and mines another branch (a reorg), and the follower reads it as it reads a node: the head,
// canonical headers by number, logs by filter, receipts. Hashes name (number, branch), so a block
// mined again after a rewind has another hash than the block it replaces. Unit tests only.
#pragma once

#include <algorithm>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "domain/ports/chain_checkpoints.hpp"
#include "domain/ports/chain_node.hpp"

namespace duepay::doubles {

class ScriptedChain final : public ports::ChainNode {
  public:
    static constexpr std::uint64_t kGenesisTime = 1'700'000'000;
    static constexpr std::uint64_t kBlockTime = 12;

    ScriptedChain() { blocks_.push_back(Block{header_for(0), {}}); }

    // Mines a block on the head with `logs` (their block number and hash are filled in, log
    // indexes numbered from 0 unless set); returns its header.
    ports::BlockHeader mine(std::vector<ports::Log> logs = {}) {
        const auto number = static_cast<std::uint64_t>(blocks_.size());
        auto header = header_for(number);
        header.parent_hash = blocks_.back().header.hash;
        std::uint32_t index = 0;
        for (auto& l : logs) {
            l.block_number = number;
            l.block_hash = header.hash;
            if (l.log_index == 0) l.log_index = index;
            ++index;
        }
        blocks_.push_back(Block{header, std::move(logs)});
        return header;
    }
    void mine_empty(std::size_t n) {
        for (std::size_t i = 0; i < n; ++i) mine();
    }

    // A reorg: the blocks above `number` leave the chain; what is mined next is a new branch.
    void rewind_to(std::uint64_t number) {
        blocks_.resize(number + 1);
        ++branch_;
    }

    const ports::BlockHeader& header(std::uint64_t number) const {
        return blocks_.at(number).header;
    }

    // ports::ChainNode
    std::uint64_t block_number() override {
        ++calls_;
        return blocks_.size() - 1;
    }
    std::optional<ports::BlockHeader> block_by_number(std::uint64_t number) override {
        ++calls_;
        if (number >= blocks_.size()) return std::nullopt;
        return blocks_[number].header;
    }
    std::vector<ports::Log> get_logs(const ports::LogFilter& filter) override {
        ++calls_;
        filters_.push_back(filter);
        std::vector<ports::Log> out;
        for (auto n = filter.from_block; n <= filter.to_block && n < blocks_.size(); ++n) {
            for (const auto& l : blocks_[n].logs) {
                if (passes(filter, l)) out.push_back(l);
            }
        }
        return out;
    }
    std::optional<ports::Receipt> transaction_receipt(const domain::Bytes32& tx_hash) override {
        ++calls_;
        for (const auto& b : blocks_) {
            std::optional<ports::Receipt> r;
            for (const auto& l : b.logs) {
                if (l.tx_hash != tx_hash) continue;
                if (!r) r = ports::Receipt{tx_hash, true, b.header.number, b.header.hash, {}};
                r->logs.push_back(l);
            }
            if (r) return r;
        }
        return std::nullopt;
    }

    std::size_t calls() const { return calls_; }
    // Every eth_getLogs filter asked for, in order.
    const std::vector<ports::LogFilter>& filters() const { return filters_; }

  private:
    struct Block {
        ports::BlockHeader header;
        std::vector<ports::Log> logs;
    };

    ports::BlockHeader header_for(std::uint64_t number) const {
        ports::BlockHeader h;
        h.number = number;
        h.hash.fill(0xB0);
        for (int i = 0; i < 8; ++i) h.hash[i] = static_cast<std::uint8_t>(number >> (8 * i));
        h.hash[8] = static_cast<std::uint8_t>(branch_);
        h.timestamp = kGenesisTime + kBlockTime * number;
        return h;
    }

    static bool passes(const ports::LogFilter& f, const ports::Log& l) {
        if (!f.addresses.empty() &&
            std::none_of(f.addresses.begin(), f.addresses.end(),
                         [&](const domain::Address& a) { return a == l.address; })) {
            return false;
        }
        for (std::size_t i = 0; i < f.topics.size(); ++i) {
            if (f.topics[i].empty()) continue;
            if (i >= l.topics.size()) return false;
            if (std::find(f.topics[i].begin(), f.topics[i].end(), l.topics[i]) ==
                f.topics[i].end()) {
                return false;
            }
        }
        return true;
    }

    std::vector<Block> blocks_;
    unsigned branch_ = 0;
    std::size_t calls_ = 0;
    std::vector<ports::LogFilter> filters_;
};

// The checkpoint port in memory: the last stored checkpoint per chain, and every store in order.
class MemoryCheckpoints final : public ports::ChainCheckpoints {
  public:
    std::optional<ports::ChainCheckpoint> load(std::uint64_t chain_id) override {
        for (auto it = stored.rbegin(); it != stored.rend(); ++it) {
            if (it->first == chain_id) return it->second;
        }
        return std::nullopt;
    }
    void store(std::uint64_t chain_id, const ports::ChainCheckpoint& checkpoint) override {
        stored.emplace_back(chain_id, checkpoint);
    }
    std::vector<std::pair<std::uint64_t, ports::ChainCheckpoint>> stored;
};

}  // namespace duepay::doubles
