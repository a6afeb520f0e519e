// The chainwatch role (STYLE rule 6), one process per chain: `duepay chainwatch --chain <id>`.
// It learns the charges of its chain from the event topic (its own consumer group, replayed from
// the beginning on every start and folded with domain::charge), follows the chain with eth_getLogs
// over block ranges (router InvoicePaid, ERC-20 Transfer of the chain's tokens matched in memory
// against a hash set of deposit addresses, factory Settled) and appends chain facts with the
// deterministic ids of chain_fact_id. One leader per chain (Postgres advisory lock); the
// checkpoint is written only after Kafka acknowledged the events of its blocks. docs/chainwatch.md.
#pragma once

#include <atomic>
#include <cstdint>
#include <string>
#include <vector>

namespace duepay::consumers {

struct ChainwatchSettings {
    std::uint64_t chain_id = 0;
    std::string bootstrap;
    std::string topic;
    std::string group_id;          // default duepay-chainwatch-<chainId>
    std::string database_url;
    std::string chains_file;
    std::uint64_t start_block = 0;  // DUEPAY_START_BLOCK_<id>: where a first scan begins
    std::uint64_t max_range = 500;  // blocks per eth_getLogs
    int poll_ms = 100;              // idle wait between head polls
};

// Settings for one chain from the environment (KAFKA_BOOTSTRAP, DATABASE_URL, DUEPAY_TOPIC,
// DUEPAY_CHAINS_FILE, DUEPAY_START_BLOCK_<id>, DUEPAY_CHAINWATCH_RANGE); throws on a missing one.
ChainwatchSettings chainwatch_settings_from_env(std::uint64_t chain_id);

// Runs until `stop` is set; returns the process exit code.
int run_chainwatch(const ChainwatchSettings& settings, const std::atomic<bool>& stop);

// The chains of DUEPAY_CHAIN_IDS (comma-separated); ConfigError when missing or malformed.
std::vector<std::uint64_t> chain_ids_from_env();

}  // namespace duepay::consumers
