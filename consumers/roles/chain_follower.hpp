// What the chainwatch loop (chainwatch.cpp) drives, one per chain: the charges of the chain
// folded from the topic, the window of fetched blocks below confirmation depth, and what
// domain::charge::decide makes of each observation, appended with the deterministic ids of
// chain_fact_id. Its members are defined in two files by concern:
// - chain_follower.cpp: the charges it learns and the blocks (extend to the head, detect,
//   confirm, expire, prune, walk back a reorg, the checkpoint to resume from);
// - chain_facts.cpp: deciding and appending (fact ids, the broker's acks, the checkpoint written
//   only after them) and the verification of refunds from their receipts (docs/refunds.md).
#pragma once

#include <condition_variable>
#include <cstdint>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <utility>
#include <vector>

#include "consumers/roles/chainwatch.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event.hpp"
#include "domain/ports/chain_checkpoints.hpp"
#include "domain/ports/chain_node.hpp"
#include "domain/ports/event_log.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/metrics.hpp"
#include "infra/rpc/chain_scan.hpp"

namespace duepay::consumers::detail {

// What the events chainwatch appends for a charge take from its charge.created envelope: only
// these fields (not the whole event: a watched charge costs memory, ADR 0215).
struct CreatedEnvelope {
    domain::InvoiceId invoice_id;
    std::string project_id;
    domain::events::Mode mode = domain::events::Mode::test;
};

// Everything chainwatch knows about one charge of its chain: the envelope of its charge.created
// (the ids of the facts it appends) and its folded state (what decide judges by).
struct Tracked {
    CreatedEnvelope created_envelope;
    domain::charge::ChargeState state;
};

using Match = infra::rpc::ChainObservation;
using MatchKind = infra::rpc::ChainObservation::Kind;

struct SeenBlock {
    ports::BlockHeader header;
    std::vector<Match> matches;
};

// Waits for the broker's verdict on every append of a batch.
class Acks {
  public:
    void expect();
    void done(const ports::AppendResult& r);
    // Throws when an append failed: nothing after it may be checkpointed.
    void wait();

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    int pending_ = 0;
    std::string error_;
};

// The chain node, the checkpoint store and the event log are ports, injected by the composition
// root (chainwatch.cpp: JSON-RPC, Postgres, Kafka; ADR 0205); the unit tests drive it with a
// scripted chain (tests/unit/consumers/chain_follower_test.cpp).
class ChainFollower {
  public:
    ChainFollower(const ChainwatchSettings& s, const infra::config::ChainInfo& chain,
                  ports::ChainCheckpoints& checkpoints, ports::EventLog& log,
                  ports::ChainNode& node);

    // Folds one event of the topic into the known charges.
    void learn(const domain::events::Event& e);

    // True once after a refund request of an unknown charge: the caller re-reads the topic.
    bool take_rewind() { return std::exchange(rewind_, false); }

    std::size_t charges() const { return charges_.size(); }
    std::size_t learnt() const { return learnt_; }
    std::size_t pruned() const { return pruned_; }
    std::uint64_t emitted() const { return emitted_; }

    void load_checkpoint();

    // One round: extend to the head, confirm what reached depth, checkpoint. Returns true when it
    // did work (the caller then polls again at once).
    bool step();

  private:
    // --- chain_follower.cpp: the blocks ---
    infra::metrics::Gauge& chain_gauge(const char* name, const char* help) const;
    // The series of ADR 0131, after each step.
    void export_progress(std::uint64_t head);
    static infra::rpc::ScanTargets targets(const ChainwatchSettings& s,
                                           const infra::config::ChainInfo& chain);
    void reset_to_start(const std::string& why);
    domain::charge::ObservePayment observation(const Match& m, const ports::BlockHeader& h,
                                               std::uint64_t depth) const;
    // Below depth: what decide makes of each payment of a fetched block (a detection).
    void detect(const SeenBlock& b, std::uint64_t depth);
    void confirm_up_to(std::uint64_t head);
    // Charges that are done (charge::done: terminal, nothing unconfirmed, nothing unswept,
    // DUEPAY_CHAINWATCH_RETAIN_SECONDS of chain time past the expiry limit) leave memory and the
    // log filters. Checked once per kPruneEvery of chain time (every block when nothing is
    // retained), and only for the charges past their limit + retain (prunable_, lingering_): the
    // cost of a check follows those, not every charge watched.
    static constexpr std::uint64_t kPruneEvery = 60;
    void prune(std::uint64_t chain_time);
    // Chain time reached a charge's limit in this block (every earlier block is confirmed
    // already): decide whether it expires. The multimap only finds the candidates.
    void expire_before(const ports::BlockHeader& h);
    // Walks back the unconfirmed window to the fork point, withdrawing the detections of orphaned
    // blocks. If the fork is below the checkpoint (deeper than the confirmation depth, or a dev
    // node restarted at genesis) the checkpoint cannot be trusted: rescan from the start block.
    void handle_reorg();

    // --- chain_facts.cpp: decisions, appends, refunds ---
    // Keeps the index of refund bookkeeping current: which charges wait for a verdict, and which
    // Transfer logs are recorded as refunds (one log refunds one charge, across charges).
    void note_refunds(const std::string& invoice, const domain::events::Event& e);
    // Each pending refund: its receipt, at confirmation depth and on the canonical chain, judged by
    // decide (ObserveRefund). Reorgs: a receipt below depth or in a block that is no longer the
    // canonical one at its height is looked at again on a later round.
    void verify_refunds(std::uint64_t head);
    // Appends what decide makes of `command` for one charge, each event applied to the charge's
    // state as it is appended. `log_index` names a settlement's log (its fact id).
    void decide(const std::string& invoice, const domain::charge::Command& command,
                std::uint32_t log_index = 0);
    // The deterministic id of a chain fact (chain_fact_id): re-emissions are duplicates.
    std::string fact_id(const Tracked& t, const domain::events::EventData& data,
                        std::uint32_t log_index) const;
    void emit(Tracked& t, const std::string& invoice, domain::events::EventData data,
              std::uint32_t log_index);
    void flush_and_checkpoint();

    const ChainwatchSettings& s_;
    const infra::config::ChainInfo& chain_;
    ports::ChainCheckpoints& checkpoints_;
    ports::EventLog& log_;
    ports::ChainNode& rpc_;
    infra::rpc::ChainScanner scanner_;
    std::unordered_map<std::string, Tracked> charges_;
    infra::rpc::WatchList watch_;                         // what the scanner asks the node for
    std::multimap<std::uint64_t, std::string> expiries_;  // limit -> invoice hex
    // limit + retain -> invoice hex: once chain time is past it, the charge may be done.
    std::multimap<std::uint64_t, std::string> prunable_;
    // Past limit + retain but not done yet (unconfirmed, unswept, a refund pending): checked again
    // at every prune. Entries of charges no longer known are dropped there.
    std::unordered_set<std::string> lingering_;
    std::deque<SeenBlock> window_;  // fetched, below confirmation depth
    ports::ChainCheckpoint checkpoint_;
    Acks acks_;
    std::size_t learnt_ = 0;
    std::uint64_t emitted_ = 0;
    std::size_t pruned_ = 0;
    std::uint64_t next_prune_ = 0;
    std::set<std::string> refunds_pending_;  // invoices with a refund awaiting a verdict
    std::unordered_map<std::string, std::set<std::uint32_t>> refund_logs_;  // tx -> refund logs
    std::unordered_set<std::string> rewound_for_;  // refund ids that made the topic be re-read
    bool rewind_ = false;
    bool trace_ = false;  // ChainwatchSettings::trace
    infra::metrics::Gauge& head_block_;
    infra::metrics::Gauge& processed_block_;
    infra::metrics::Gauge& head_lag_;
    infra::metrics::Gauge& pending_confirmations_;
};

}  // namespace duepay::consumers::detail
