// The chainwatch role (docs/style.md), one per chain: `duepay chainwatch --chain <id>`. This file
// is the loop: it learns the charges of its chain from the event topic (its own consumer group,
// replayed from the beginning on every start and folded with domain::charge), follows the chain
// block range by block range, turns what infra/rpc/chain_scan finds (router InvoicePaid, ERC-20
// Transfer to a watched deposit address, factory Settled) into commands for
// domain::charge::decide and appends the events with the deterministic ids of chain_fact_id.
// Refunds the merchants asked to record (charge.refund_requested) are verified from their
// transaction receipts at confirmation depth (docs/refunds.md).
// What the loop drives (the charges, the block window, decisions and appends, refunds) is
// chain_follower.hpp. One leader per chain and the checkpoint are
// infra/postgres/chainwatch_store; the checkpoint is written only after Kafka acknowledged the
// events of its blocks. docs/chainwatch.md.
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
    std::string group_id;  // default duepay-chainwatch-<chainId>
    std::string database_url;
    std::string chains_file;
    std::uint64_t start_block = 0;  // DUEPAY_START_BLOCK_<id>: where a first scan begins
    std::uint64_t max_range = 500;  // blocks per eth_getLogs
    std::size_t topic_chunk = 200;  // deposit addresses per Transfer eth_getLogs (to-topic filter)
    // DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX: above this many watched deposit addresses, one query
    // asks for every Transfer of the chain's tokens (matched in memory) instead of filtering.
    std::size_t topic_filter_max = 1000;
    // DUEPAY_CHAINWATCH_TRANSFER_SPAN: blocks per such unfiltered Transfer query.
    std::uint64_t transfer_span = 10;
    std::uint64_t retain_seconds =
        std::uint64_t{7} * 24 * 3600;         // chain time a done charge stays watched
    std::int64_t refund_wait_seconds = 3600;  // a refund tx not mined this long after: rejected
    int poll_ms = 250;   // DUEPAY_CHAINWATCH_POLL_MS: idle wait between head polls
    bool trace = false;  // DUEPAY_CHAINWATCH_TRACE: log every block range and every append
    std::int64_t ready_max_lag = 1000;  // DUEPAY_READY_MAX_LAG
};

// Settings for one chain from the environment (KAFKA_BOOTSTRAP, DATABASE_URL, DUEPAY_TOPIC,
// DUEPAY_CHAINS_FILE, DUEPAY_START_BLOCK_<id>, DUEPAY_CHAINWATCH_RANGE,
// DUEPAY_CHAINWATCH_TOPIC_CHUNK, DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX,
// DUEPAY_CHAINWATCH_TRANSFER_SPAN, DUEPAY_CHAINWATCH_RETAIN_SECONDS, DUEPAY_CHAINWATCH_POLL_MS,
// DUEPAY_REFUND_WAIT_SECONDS);
// throws on a missing one.
ChainwatchSettings chainwatch_settings_from_env(std::uint64_t chain_id);

// The exit code of a chainwatch stopped by an RPC error that a retry cannot fix (the node refused
// the request, or the URL is not a node).
inline constexpr int kRpcRefused = 3;

// Runs until `stop` is set; returns the process exit code.
int run_chainwatch(const ChainwatchSettings& settings, const std::atomic<bool>& stop);

// The chains of DUEPAY_CHAIN_IDS (comma-separated); ConfigError when missing or malformed.
std::vector<std::uint64_t> chain_ids_from_env();

}  // namespace duepay::consumers
