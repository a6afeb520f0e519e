// Log scanning and matching for chainwatch: one block range of a chain in, the observations of
// the charges it watches out (ChainObservation: a router payment, a transfer to a deposit
// address, a factory sweep), grouped by block and in log order. The node is asked for router
// InvoicePaid and factory Settled logs and for ERC-20 Transfer logs of the chain's tokens: while
// at most `transfer_filter_max` deposit addresses are watched, only those whose `to` topic is one
// of them (in chunks of `transfer_topic_chunk` addresses per eth_getLogs); above that, every
// Transfer of the tokens (one query per `transfer_block_span` blocks), each matched by its `to` in
// a hash map, so a round costs the logs of its blocks and not the number of watched charges
// (docs/chainwatch.md, ADR 0215).
// What an observation means for a charge is decided in domain/charge/decide.hpp, not here.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "domain/charge/decide.hpp"
#include "domain/events/event.hpp"
#include "infra/rpc/rpc_client.hpp"

namespace duepay::infra::rpc {

struct ChainObservation {
    enum class Kind { wallet, transfer, settled };
    Kind kind = Kind::transfer;
    std::string invoice;                    // 0x hex
    domain::events::Payment payment;        // wallet / transfer; log fields for settled too
    domain::events::ChargeSettled settled;  // settled only
};

// The invoices and deposit addresses one chainwatch follows.
class WatchList {
  public:
    void watch(const std::string& invoice, const std::optional<Address>& deposit_address);
    void forget(const std::string& invoice, const std::optional<Address>& deposit_address);
    bool watches(const std::string& invoice) const { return invoices_.contains(invoice); }
    // The invoice a deposit address belongs to, or nullptr.
    const std::string* invoice_of(const Address& deposit_address) const;
    // Sorted; built on each call (the scanner calls it only for a small watch list).
    std::vector<Address> deposit_addresses() const;
    std::size_t size() const { return invoices_.size(); }
    std::size_t deposit_count() const { return deposits_.size(); }

  private:
    std::unordered_map<std::string, bool> invoices_;         // invoice hex -> has a deposit address
    std::unordered_map<std::string, std::string> deposits_;  // 20 raw bytes -> invoice hex
};

// Where a chain's logs of interest come from.
struct ScanTargets {
    Address router;
    Address deposit_factory;
    std::vector<Address> tokens;
    std::size_t transfer_topic_chunk = 200;  // deposit addresses per Transfer eth_getLogs
    // Up to this many watched deposit addresses, Transfer queries carry the `to` filter; above,
    // queries ask for every Transfer of the tokens (transfer_block_span blocks each) and matching
    // happens here.
    std::size_t transfer_filter_max = 1000;
    // Above it, blocks per unfiltered Transfer query: a busy token's logs of a long range (a
    // backfill) would pass the cap nodes put on one answer.
    std::uint64_t transfer_block_span = 10;
};

// The topic word of an address (left-padded to 32 bytes), as indexed event arguments are.
Bytes32 address_topic(const Address& address);

// The ERC-20 Transfer(from, to, value) a log is (any contract), or nullopt. Refund receipts are
// read with it (docs/refunds.md).
std::optional<domain::charge::TokenTransfer> token_transfer(const Log& log);

// What one log is for the watched charges, if anything.
std::optional<ChainObservation> match_log(const Log& log, const ScanTargets& targets,
                                          const WatchList& watch);

class ChainScanner {
  public:
    using GetLogs = std::function<std::vector<Log>(const LogFilter&)>;

    ChainScanner(ScanTargets targets, GetLogs get_logs);

    // The observations in blocks [from, to] (headers: exactly those blocks, in order), by block
    // number; nullopt when a log names a block hash that is not the fetched header's (the chain
    // moved under the scan: retry after the reorg is handled).
    std::optional<std::map<std::uint64_t, std::vector<ChainObservation>>> scan(
        std::uint64_t from, std::uint64_t to, const std::vector<BlockHeader>& headers,
        const WatchList& watch);

    std::size_t last_log_count() const { return last_logs_; }  // logs the last scan received

  private:
    ScanTargets targets_;
    GetLogs get_logs_;
    std::size_t last_logs_ = 0;
};

}  // namespace duepay::infra::rpc
