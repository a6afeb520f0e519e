// The charges a chainwatch learns and the blocks it follows (chain_follower.hpp).
#include "consumers/roles/chain_follower.hpp"

#include <algorithm>
#include <chrono>

#include "domain/hex.hpp"

namespace duepay::consumers::detail {

namespace {
constexpr infra::log::Logger kLog{"chainwatch"};
}  // namespace

using namespace duepay::domain;
using namespace duepay::domain::events;
namespace charge = duepay::domain::charge;
using ports::BlockHeader;

ChainFollower::ChainFollower(const ChainwatchSettings& s, const infra::config::ChainInfo& chain,
                             ports::ChainCheckpoints& checkpoints, ports::EventLog& log,
                             ports::ChainNode& node)
    : s_(s),
      chain_(chain),
      checkpoints_(checkpoints),
      log_(log),
      rpc_(node),
      scanner_(targets(s, chain),
               [this](const infra::rpc::LogFilter& f) { return rpc_.get_logs(f); }),
      head_block_(chain_gauge("duepay_chainwatch_head_block", "The chain's head block number")),
      processed_block_(
          chain_gauge("duepay_chainwatch_processed_block", "The last block fetched and scanned")),
      head_lag_(chain_gauge("duepay_chainwatch_head_lag_blocks",
                            "Chain head minus the last block scanned")),
      pending_confirmations_(chain_gauge("duepay_chainwatch_confirmations_pending",
                                         "Matched logs seen in blocks not yet at confirmation "
                                         "depth (awaiting confirmations)")) {
    trace_ = s.trace;
}

void ChainFollower::learn(const Event& e) {
    if (e.chain_id.value != s_.chain_id) return;
    const auto id = to_hex(e.invoice_id);
    if (const auto* created = std::get_if<ChargeCreated>(&e.data)) {
        if (charges_.contains(id)) return;
        Tracked t{{e.invoice_id, e.project_id, e.mode}, charge::initial_state()};
        charge::apply(t.state, e);
        watch_.watch(id, created->deposit_address);
        expiries_.emplace(charge::expiry_limit(t.state), id);
        prunable_.emplace(charge::expiry_limit(t.state) + s_.retain_seconds, id);
        charges_.emplace(id, std::move(t));
        ++learnt_;
        return;
    }
    auto it = charges_.find(id);
    if (it != charges_.end()) {
        charge::apply(it->second.state, e);
        note_refunds(id, e);
    } else if (const auto* asked = std::get_if<RefundRequested>(&e.data)) {
        // A charge pruned while it was done: read the topic again to know it (docs/refunds.md).
        if (rewound_for_.insert(asked->refund_id).second) {
            kLog.info().with("invoice_id", id)
                << "chainwatch " << s_.chain_id << ": refund " << asked->refund_id
                << " of a charge no longer watched; reading the topic again";
            rewind_ = true;
        }
    }
}

void ChainFollower::load_checkpoint() {
    const auto stored = checkpoints_.load(s_.chain_id);
    if (!stored) {
        reset_to_start("no checkpoint yet");
        return;
    }
    checkpoint_ = *stored;
    auto canonical = rpc_.block_by_number(checkpoint_.number);
    if (!canonical || canonical->hash != checkpoint_.hash) {
        reset_to_start("checkpoint block " + std::to_string(checkpoint_.number) +
                       " is no longer on the chain (node restarted or deep reorg)");
    } else {
        kLog.info() << "chainwatch " << s_.chain_id << ": resuming after block "
                    << checkpoint_.number;
    }
}

bool ChainFollower::step() {
    const auto started = std::chrono::steady_clock::now();
    const std::uint64_t head = rpc_.block_number();
    struct ExportOnReturn {
        ChainFollower& w;
        std::uint64_t head;
        ~ExportOnReturn() { w.export_progress(head); }
    } export_on_return{*this, head};
    const std::uint64_t next =
        window_.empty() ? checkpoint_.number + 1 : window_.back().header.number + 1;
    if (next > head) return false;
    const std::uint64_t to = std::min(head, next + s_.max_range - 1);
    std::vector<BlockHeader> headers;
    Bytes32 prev = window_.empty() ? checkpoint_.hash : window_.back().header.hash;
    for (std::uint64_t n = next; n <= to; ++n) {
        auto h = rpc_.block_by_number(n);
        if (!h) break;
        if (h->parent_hash != prev) {
            if (headers.empty()) {
                handle_reorg();
                flush_and_checkpoint();
                return true;
            }
            break;  // the chain moved under us mid-range: take what links up, retry the rest
        }
        prev = h->hash;
        headers.push_back(*h);
    }
    if (headers.empty()) return false;
    const std::uint64_t last = headers.back().number;
    const auto emitted_before = emitted_;
    auto matches = scanner_.scan(next, last, headers, watch_);
    if (!matches) return true;  // logs of a block we did not fetch: a reorg is in progress
    std::size_t matched = 0;
    for (const auto& [n, v] : *matches) matched += v.size();
    for (auto& h : headers) {
        SeenBlock b{h, std::move((*matches)[h.number])};
        const bool deep = head - h.number + 1 >= chain_.confirmations;
        if (!deep) detect(b, head - h.number + 1);
        window_.push_back(std::move(b));
    }
    confirm_up_to(head);
    verify_refunds(head);
    flush_and_checkpoint();
    // Backfills, big ranges and rounds with many events (a block of payments reaching depth)
    // report their pace.
    if (trace_ || last - next >= 10 || matched >= 100 || emitted_ - emitted_before >= 100) {
        kLog.info() << "chainwatch " << s_.chain_id << ": blocks " << next << ".." << last << ", "
                    << scanner_.last_log_count() << " logs, " << matched << " matched, "
                    << emitted_ - emitted_before << " events in "
                    << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() -
                                                                 started)
                           .count()
                    << " ms (" << charges_.size() << " charges)";
    }
    return true;
}

infra::metrics::Gauge& ChainFollower::chain_gauge(const char* name, const char* help) const {
    return infra::metrics::registry().gauge(name, help, {{"chain", std::to_string(s_.chain_id)}});
}

void ChainFollower::export_progress(std::uint64_t head) {
    const std::uint64_t processed =
        window_.empty() ? checkpoint_.number : window_.back().header.number;
    head_block_.set(static_cast<double>(head));
    processed_block_.set(static_cast<double>(processed));
    head_lag_.set(static_cast<double>(head > processed ? head - processed : 0));
    std::size_t pending = 0;
    for (const auto& b : window_) pending += b.matches.size();
    pending_confirmations_.set(static_cast<double>(pending));
}

infra::rpc::ScanTargets ChainFollower::targets(const ChainwatchSettings& s,
                                               const infra::config::ChainInfo& chain) {
    infra::rpc::ScanTargets t;
    t.router = chain.router;
    t.deposit_factory = chain.deposit_factory;
    for (const auto& token : chain.tokens) t.tokens.push_back(token.address);
    t.transfer_topic_chunk = s.topic_chunk;
    t.transfer_filter_max = s.topic_filter_max;
    t.transfer_block_span = s.transfer_span;
    return t;
}

void ChainFollower::reset_to_start(const std::string& why) {
    const std::uint64_t start = s_.start_block > 0 ? s_.start_block - 1 : 0;
    auto h = rpc_.block_by_number(start);
    if (!h) throw infra::rpc::RpcError("start block " + std::to_string(start) + " not found", true);
    checkpoint_ = {h->number, h->hash};
    window_.clear();
    kLog.info() << "chainwatch " << s_.chain_id << ": " << why << "; scanning from block "
                << start + 1;
}

charge::ObservePayment ChainFollower::observation(const Match& m, const BlockHeader& h,
                                                  std::uint64_t depth) const {
    return charge::ObservePayment{m.payment, h.timestamp, depth, chain_.confirmations};
}

void ChainFollower::detect(const SeenBlock& b, std::uint64_t depth) {
    for (const auto& m : b.matches) {
        if (m.kind != MatchKind::settled) decide(m.invoice, observation(m, b.header, depth));
    }
}

void ChainFollower::confirm_up_to(std::uint64_t head) {
    while (!window_.empty() && head - window_.front().header.number + 1 >= chain_.confirmations) {
        const auto& b = window_.front();
        expire_before(b.header);
        for (const auto& m : b.matches) {
            if (m.kind == MatchKind::settled) {
                decide(m.invoice, charge::ObserveSettlement{m.settled}, m.payment.log_index);
            } else {
                decide(m.invoice, observation(m, b.header, head - b.header.number + 1));
            }
        }
        checkpoint_ = {b.header.number, b.header.hash};
        prune(b.header.timestamp);
        window_.pop_front();
    }
}

void ChainFollower::prune(std::uint64_t chain_time) {
    if (chain_time < next_prune_) return;
    next_prune_ = chain_time + std::min<std::uint64_t>(kPruneEvery, s_.retain_seconds);
    // charge::done needs chain_time > limit + retain: only those charges can be done.
    while (!prunable_.empty() && prunable_.begin()->first < chain_time) {
        lingering_.insert(std::move(prunable_.begin()->second));
        prunable_.erase(prunable_.begin());
    }
    std::size_t n = 0;
    for (auto it = lingering_.begin(); it != lingering_.end();) {
        const auto found = charges_.find(*it);
        if (found == charges_.end()) {
            it = lingering_.erase(it);
            continue;
        }
        if (!charge::done(found->second.state, chain_time, s_.retain_seconds)) {
            ++it;
            continue;
        }
        watch_.forget(found->first, found->second.state.deposit_address);
        charges_.erase(found);
        it = lingering_.erase(it);
        ++n;
    }
    if (n == 0) return;
    pruned_ += n;
    kLog.info() << "chainwatch " << s_.chain_id << ": pruned " << n << " done charges ("
                << charges_.size() << " watched)";
}

void ChainFollower::expire_before(const BlockHeader& h) {
    while (!expiries_.empty() && expiries_.begin()->first < h.timestamp) {
        const auto id = expiries_.begin()->second;
        expiries_.erase(expiries_.begin());
        if (charges_.contains(id)) decide(id, charge::ObserveBlock{h.number, h.timestamp});
    }
}

void ChainFollower::handle_reorg() {
    while (!window_.empty()) {
        auto canonical = rpc_.block_by_number(window_.back().header.number);
        if (canonical && canonical->hash == window_.back().header.hash) return;
        const auto& b = window_.back();
        kLog.warn() << "chainwatch " << s_.chain_id << ": block " << b.header.number << " "
                    << to_hex(b.header.hash) << " left the chain";
        for (const auto& m : b.matches) {
            if (m.kind == MatchKind::settled) continue;
            decide(m.invoice, charge::ObserveReorg{m.payment.tx_hash, m.payment.log_index,
                                                   m.payment.block_number, b.header.hash});
        }
        window_.pop_back();
    }
    auto canonical = rpc_.block_by_number(checkpoint_.number);
    if (!canonical || canonical->hash != checkpoint_.hash) {
        reset_to_start("reorg below the checkpoint (block " + std::to_string(checkpoint_.number) +
                       ")");
    }
}

}  // namespace duepay::consumers::detail
