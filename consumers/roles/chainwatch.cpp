#include "consumers/roles/chainwatch.hpp"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <map>
#include <mutex>
#include <set>
#include <sstream>
#include <thread>
#include <unordered_map>
#include <unordered_set>
#include <utility>

#include "domain/charge/charge_state.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event_id.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/abi.hpp"
#include "domain/hex.hpp"
#include "domain/url.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/metrics.hpp"
#include "infra/postgres/chainwatch_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "infra/rpc/chain_scan.hpp"
#include "infra/rpc/rpc_client.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"chainwatch"};
namespace {

using namespace duepay::domain;
using namespace duepay::domain::events;
namespace charge = duepay::domain::charge;
using infra::rpc::BlockHeader;
using infra::rpc::Log;

std::string now_rfc3339() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return format_rfc3339_millis_utc(
        std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

// Everything chainwatch knows about one charge of its chain: the envelope of its charge.created
// (the ids of the facts it appends) and its folded state (what decide judges by).
struct Tracked {
    Event created_envelope;
    charge::ChargeState state;
};

using Match = infra::rpc::ChainObservation;
using MatchKind = infra::rpc::ChainObservation::Kind;

struct SeenBlock {
    BlockHeader header;
    std::vector<Match> matches;
};

// Waits for the broker's verdict on every append of a batch.
class Acks {
  public:
    void expect() {
        std::lock_guard lock(mutex_);
        ++pending_;
    }
    void done(const infra::kafka::AppendResult& r) {
        std::lock_guard lock(mutex_);
        --pending_;
        if (!r.ok() && error_.empty()) error_ = r.error.empty() ? "append not persisted" : r.error;
        cv_.notify_all();
    }
    // Throws when an append failed: nothing after it may be checkpointed.
    void wait() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return pending_ == 0; });
        if (!error_.empty()) {
            auto e = error_;
            error_.clear();
            throw std::runtime_error("kafka append failed: " + e);
        }
    }

  private:
    std::mutex mutex_;
    std::condition_variable cv_;
    int pending_ = 0;
    std::string error_;
};

class Chainwatch {
  public:
    Chainwatch(const ChainwatchSettings& s, const infra::config::ChainInfo& chain,
               infra::postgres::ChainCheckpointStore& checkpoints, infra::kafka::EventLog& log)
        : s_(s),
          chain_(chain),
          checkpoints_(checkpoints),
          log_(log),
          rpc_(infra::rpc::RpcSettings{chain.rpc_url}),
          scanner_(targets(s, chain),
                   [this](const infra::rpc::LogFilter& f) { return rpc_.get_logs(f); }),
          head_block_(chain_gauge("duepay_chainwatch_head_block", "The chain's head block number")),
          processed_block_(chain_gauge("duepay_chainwatch_processed_block",
                                       "The last block fetched and scanned")),
          head_lag_(chain_gauge("duepay_chainwatch_head_lag_blocks",
                                "Chain head minus the last block scanned")),
          pending_confirmations_(chain_gauge("duepay_chainwatch_confirmations_pending",
                                             "Matched logs seen in blocks not yet at confirmation "
                                             "depth (awaiting confirmations)")) {}

    // Folds one event of the topic into the known charges.
    void learn(const Event& e) {
        if (e.chain_id.value != s_.chain_id) return;
        const auto id = to_hex(e.invoice_id);
        if (const auto* created = std::get_if<ChargeCreated>(&e.data)) {
            if (charges_.contains(id)) return;
            Tracked t{e, charge::initial_state()};
            charge::apply(t.state, e);
            watch_.watch(id, created->deposit_address);
            expiries_.emplace(charge::expiry_limit(t.state), id);
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

    // True once after a refund request of an unknown charge: the caller re-reads the topic.
    bool take_rewind() { return std::exchange(rewind_, false); }

    std::size_t charges() const { return charges_.size(); }
    std::size_t learnt() const { return learnt_; }
    std::size_t pruned() const { return pruned_; }
    std::uint64_t emitted() const { return emitted_; }

    void load_checkpoint() {
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

    // One round: extend to the head, confirm what reached depth, checkpoint. Returns true when it
    // did work (the caller then polls again at once).
    bool step() {
        const auto started = std::chrono::steady_clock::now();
        const std::uint64_t head = rpc_.block_number();
        struct ExportOnReturn {
            Chainwatch& w;
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
        if (trace_ || last - next >= 10 ||
            matched >= 100) {  // backfills and big ranges report their pace
            kLog.info() << "chainwatch " << s_.chain_id << ": blocks " << next << ".." << last
                        << ", " << scanner_.last_log_count() << " logs, " << matched << " matched, "
                        << emitted_ - emitted_before << " events in "
                        << std::chrono::duration<double, std::milli>(
                               std::chrono::steady_clock::now() - started)
                               .count()
                        << " ms (" << charges_.size() << " charges)";
        }
        return true;
    }

  private:
    infra::metrics::Gauge& chain_gauge(const char* name, const char* help) const {
        return infra::metrics::registry().gauge(name, help,
                                                {{"chain", std::to_string(s_.chain_id)}});
    }

    // The series of ADR 0131, after each step.
    void export_progress(std::uint64_t head) {
        const std::uint64_t processed =
            window_.empty() ? checkpoint_.number : window_.back().header.number;
        head_block_.set(static_cast<double>(head));
        processed_block_.set(static_cast<double>(processed));
        head_lag_.set(static_cast<double>(head > processed ? head - processed : 0));
        std::size_t pending = 0;
        for (const auto& b : window_) pending += b.matches.size();
        pending_confirmations_.set(static_cast<double>(pending));
    }

    static infra::rpc::ScanTargets targets(const ChainwatchSettings& s,
                                           const infra::config::ChainInfo& chain) {
        infra::rpc::ScanTargets t;
        t.router = chain.router;
        t.deposit_factory = chain.deposit_factory;
        for (const auto& token : chain.tokens) t.tokens.push_back(token.address);
        t.transfer_topic_chunk = s.topic_chunk;
        return t;
    }

    void reset_to_start(const std::string& why) {
        const std::uint64_t start = s_.start_block > 0 ? s_.start_block - 1 : 0;
        auto h = rpc_.block_by_number(start);
        if (!h)
            throw infra::rpc::RpcError("start block " + std::to_string(start) + " not found", true);
        checkpoint_ = {h->number, h->hash};
        window_.clear();
        kLog.info() << "chainwatch " << s_.chain_id << ": " << why << "; scanning from block "
                    << start + 1;
    }

    charge::ObservePayment observation(const Match& m, const BlockHeader& h,
                                       std::uint64_t depth) const {
        return charge::ObservePayment{m.payment, h.timestamp, depth, chain_.confirmations};
    }

    // Below depth: what decide makes of each payment of a fetched block (a detection).
    void detect(const SeenBlock& b, std::uint64_t depth) {
        for (const auto& m : b.matches) {
            if (m.kind != MatchKind::settled) decide(m.invoice, observation(m, b.header, depth));
        }
    }

    void confirm_up_to(std::uint64_t head) {
        while (!window_.empty() &&
               head - window_.front().header.number + 1 >= chain_.confirmations) {
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

    // Charges that are done (charge::done: terminal, nothing unconfirmed, nothing unswept,
    // DUEPAY_CHAINWATCH_RETAIN_SECONDS of chain time past the expiry limit) leave memory and the
    // log filters. Checked once per kPruneEvery of chain time (every block when nothing is
    // retained).
    static constexpr std::uint64_t kPruneEvery = 60;
    void prune(std::uint64_t chain_time) {
        if (chain_time < next_prune_) return;
        next_prune_ = chain_time + std::min<std::uint64_t>(kPruneEvery, s_.retain_seconds);
        std::size_t n = 0;
        for (auto it = charges_.begin(); it != charges_.end();) {
            if (!charge::done(it->second.state, chain_time, s_.retain_seconds)) {
                ++it;
                continue;
            }
            watch_.forget(it->first, it->second.state.deposit_address);
            it = charges_.erase(it);
            ++n;
        }
        if (n == 0) return;
        pruned_ += n;
        kLog.info() << "chainwatch " << s_.chain_id << ": pruned " << n << " done charges ("
                    << charges_.size() << " watched)";
    }

    // Chain time reached a charge's limit in this block (every earlier block is confirmed
    // already): decide whether it expires. The multimap only finds the candidates.
    void expire_before(const BlockHeader& h) {
        while (!expiries_.empty() && expiries_.begin()->first < h.timestamp) {
            const auto id = expiries_.begin()->second;
            expiries_.erase(expiries_.begin());
            if (charges_.contains(id)) decide(id, charge::ObserveBlock{h.number, h.timestamp});
        }
    }

    // Keeps the index of refund bookkeeping current: which charges wait for a verdict, and which
    // Transfer logs are recorded as refunds (one log refunds one charge, across charges).
    void note_refunds(const std::string& invoice, const Event& e) {
        if (std::holds_alternative<RefundRequested>(e.data)) refunds_pending_.insert(invoice);
        if (const auto* r = std::get_if<ChargeRefunded>(&e.data))
            refund_logs_[to_hex(r->tx_hash)].insert(r->log_index);
    }

    // Each pending refund: its receipt, at confirmation depth and on the canonical chain, judged by
    // decide (ObserveRefund). Reorgs: a receipt below depth or in a block that is no longer the
    // canonical one at its height is looked at again on a later round.
    void verify_refunds(std::uint64_t head) {
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
        for (auto it = refunds_pending_.begin(); it != refunds_pending_.end();) {
            const auto found = charges_.find(*it);
            if (found == charges_.end() || !charge::refund_pending(found->second.state)) {
                it = refunds_pending_.erase(it);
                continue;
            }
            const std::string invoice = *it++;
            std::vector<charge::ObserveRefund> observations;
            for (const auto& r : found->second.state.refunds) {
                if (r.status != charge::RefundStatus::pending) continue;
                charge::ObserveRefund o;
                o.refund_id = r.refund_id;
                o.confirmations = chain_.confirmations;
                o.now_ms = now_ms;
                o.not_found_after_ms = s_.refund_wait_seconds * 1000;
                if (const auto receipt = rpc_.transaction_receipt(r.tx_hash)) {
                    if (receipt->block_number > head) continue;
                    o.depth = head - receipt->block_number + 1;
                    if (o.depth >= chain_.confirmations) {
                        const auto block = rpc_.block_by_number(receipt->block_number);
                        if (!block || block->hash != receipt->block_hash) continue;  // reorg
                    }
                    charge::RefundReceipt rr{receipt->success, receipt->block_number, {}};
                    for (const auto& l : receipt->logs) {
                        if (auto t = infra::rpc::token_transfer(l)) rr.transfers.push_back(*t);
                    }
                    if (o.depth >= chain_.confirmations) {  // decided now: say what was seen
                        kLog.info().with("invoice_id", invoice)
                            << "chainwatch " << s_.chain_id << ": refund " << r.refund_id
                            << " receipt in block " << receipt->block_number << ", "
                            << (receipt->success ? "success" : "reverted") << ", "
                            << receipt->logs.size() << " logs, " << rr.transfers.size()
                            << " ERC-20 transfers";
                    }
                    o.receipt = std::move(rr);
                    const auto claimed = refund_logs_.find(to_hex(r.tx_hash));
                    if (claimed != refund_logs_.end())
                        o.claimed.assign(claimed->second.begin(), claimed->second.end());
                }
                observations.push_back(std::move(o));
            }
            for (const auto& o : observations) decide(invoice, o);
        }
    }

    // Walks back the unconfirmed window to the fork point, withdrawing the detections of orphaned
    // blocks. If the fork is below the checkpoint (deeper than the confirmation depth, or a dev
    // node restarted at genesis) the checkpoint cannot be trusted: rescan from the start block.
    void handle_reorg() {
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
            reset_to_start("reorg below the checkpoint (block " +
                           std::to_string(checkpoint_.number) + ")");
        }
    }

    // Appends what decide makes of `command` for one charge, each event applied to the charge's
    // state as it is appended. `log_index` names a settlement's log (its fact id).
    void decide(const std::string& invoice, const charge::Command& command,
                std::uint32_t log_index = 0) {
        const auto it = charges_.find(invoice);
        if (it == charges_.end()) return;  // pruned (done) while its block waited for depth
        auto& t = it->second;
        auto events = charge::decide(t.state, command);
        if (!events) {
            kLog.warn().with("invoice_id", invoice) << "chainwatch " << s_.chain_id << ": "
                                                    << invoice << ": " << events.error().message;
            return;
        }
        for (auto& data : *events) emit(t, invoice, std::move(data), log_index);
    }

    // The deterministic id of a chain fact (chain_fact_id): re-emissions are duplicates.
    std::string fact_id(const Tracked& t, const EventData& data, std::uint32_t log_index) const {
        const ChainId chain{s_.chain_id};
        return std::visit(
            [&](const auto& d) -> std::string {
                using T = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<T, PaymentDetected>) {
                    return chain_fact_id(T::kType, chain, d.payment.tx_hash, d.payment.log_index,
                                         d.payment.block_hash);
                } else if constexpr (std::is_same_v<T, PaymentReorged>) {
                    return chain_fact_id(T::kType, chain, d.tx_hash, d.log_index, d.block_hash);
                } else if constexpr (requires { d.payment; }) {
                    return chain_fact_id(T::kType, chain, d.payment.tx_hash, d.payment.log_index);
                } else if constexpr (std::is_same_v<T, ChargeExpired>) {
                    return chain_fact_id(T::kType, chain, t.created_envelope.invoice_id.bytes, 0);
                } else if constexpr (std::is_same_v<T, ChargeSettled>) {
                    return chain_fact_id(T::kType, chain, d.tx_hash, log_index);
                } else if constexpr (std::is_same_v<T, ChargeRefunded>) {
                    return d.refund_id + ":refunded";  // one verdict per refund (per charge)
                } else if constexpr (std::is_same_v<T, RefundRejected>) {
                    return d.refund_id + ":rejected";
                } else {
                    throw std::logic_error("chainwatch does not append " + std::string(T::kType));
                }
            },
            data);
    }

    void emit(Tracked& t, const std::string& invoice, EventData data, std::uint32_t log_index) {
        Event e;
        e.id = fact_id(t, data, log_index);
        if (t.state.seen_event_ids.contains(e.id))
            return;  // emitted before (maybe by a previous run)
        e.invoice_id = t.created_envelope.invoice_id;
        e.project_id = t.created_envelope.project_id;
        e.mode = t.created_envelope.mode;
        e.chain_id = ChainId{s_.chain_id};
        e.occurred_at = now_rfc3339();
        e.data = std::move(data);
        charge::apply(t.state, e);
        note_refunds(invoice, e);
        acks_.expect();
        log_.append_async(infra::kafka::LogRecord{invoice, encode_event(e)},
                          [this](infra::kafka::AppendResult r) { acks_.done(r); });
        ++emitted_;
        if (trace_) {
            kLog.info().with("invoice_id", invoice)
                << "chainwatch " << s_.chain_id << ": " << event_type(e) << " " << invoice;
        }
    }

    void flush_and_checkpoint() {
        acks_.wait();
        checkpoints_.store(s_.chain_id, checkpoint_);
    }

    const ChainwatchSettings& s_;
    const infra::config::ChainInfo& chain_;
    infra::postgres::ChainCheckpointStore& checkpoints_;
    infra::kafka::EventLog& log_;
    infra::rpc::RpcClient rpc_;
    infra::rpc::ChainScanner scanner_;
    std::unordered_map<std::string, Tracked> charges_;
    infra::rpc::WatchList watch_;                         // what the scanner asks the node for
    std::multimap<std::uint64_t, std::string> expiries_;  // limit -> invoice hex
    std::deque<SeenBlock> window_;                        // fetched, below confirmation depth
    infra::postgres::ChainCheckpoint checkpoint_;
    Acks acks_;
    std::size_t learnt_ = 0;
    std::uint64_t emitted_ = 0;
    std::size_t pruned_ = 0;
    std::uint64_t next_prune_ = 0;
    std::set<std::string> refunds_pending_;  // invoices with a refund awaiting a verdict
    std::unordered_map<std::string, std::set<std::uint32_t>> refund_logs_;  // tx -> refund logs
    std::unordered_set<std::string> rewound_for_;  // refund ids that made the topic be re-read
    bool rewind_ = false;
    bool trace_ = std::getenv("DUEPAY_CHAINWATCH_TRACE") != nullptr;
    infra::metrics::Gauge& head_block_;
    infra::metrics::Gauge& processed_block_;
    infra::metrics::Gauge& head_lag_;
    infra::metrics::Gauge& pending_confirmations_;
};

// An event chainwatch cannot learn from goes to the quarantine (ADR 0043) and is passed over. The
// topic is re-read at every start, so if the quarantine write fails the event is met again then.
void quarantine(infra::postgres::QuarantineWriter& writer, const std::string& group,
                const infra::kafka::ConsumedMessage& m, const std::string& error) {
    try {
        writer.record({group, m.topic, m.partition, m.offset, m.key, m.value, error});
    } catch (const std::exception& e) {
        kLog.error() << "chainwatch: cannot quarantine " << m.topic << "/" << m.partition << "@"
                     << m.offset << " (" << e.what() << "); passed over until the next start";
    }
}

// Applies what the consumer has; returns the number of messages read.
std::size_t drain(infra::kafka::KafkaConsumer& consumer, Chainwatch& watch,
                  infra::postgres::QuarantineWriter& quarantined, const std::string& group,
                  std::chrono::milliseconds timeout) {
    std::size_t n = 0;
    for (;;) {
        auto batch = consumer.poll_batch(5000, timeout);
        if (batch.empty()) return n;
        for (const auto& m : batch) {
            auto e = decode_event(m.value);
            if (!e) {
                quarantine(quarantined, group, m, e.error().message);
                continue;
            }
            watch.learn(*e);
        }
        n += batch.size();
        timeout = std::chrono::milliseconds(0);
    }
}

}  // namespace

int run_chainwatch(const ChainwatchSettings& settings, const std::atomic<bool>& stop) {
    const auto registry = infra::config::ChainRegistry::load_file(settings.chains_file);
    const auto* chain = registry.find(ChainId{settings.chain_id});
    if (chain == nullptr) {
        kLog.error() << "chainwatch: chain " << settings.chain_id << " is not in "
                     << settings.chains_file;
        return 2;
    }
    // Leadership: one chainwatch per chain. The lock lives as long as its connection.
    infra::postgres::ChainLeaderLock leader(settings.database_url, settings.chain_id);
    auto& is_leader = infra::metrics::registry().gauge(
        "duepay_chainwatch_leader", "1 while this process leads the chain, 0 as standby",
        {{"chain", std::to_string(settings.chain_id)}});
    is_leader.set(0);
    struct NotLeaderOnExit {
        infra::metrics::Gauge& g;
        ~NotLeaderOnExit() { g.set(0); }
    } not_leader_on_exit{is_leader};
    for (bool announced = false;;) {
        if (leader.try_acquire()) break;
        if (!announced)
            kLog.info() << "chainwatch " << settings.chain_id
                        << ": standby (another leader holds the lock)";
        announced = true;
        for (int i = 0; i < 10 && !stop; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (stop) return 0;
    }
    is_leader.set(1);
    kLog.info() << "chainwatch " << settings.chain_id << ": leader, rpc "
                << domain::redact_url(chain->rpc_url) << ", " << chain->confirmations
                << " confirmations";

    infra::postgres::ChainCheckpointStore checkpoints(settings.database_url);
    infra::kafka::KafkaEventLog log(
        infra::kafka::ProducerSettings{settings.bootstrap, settings.topic});
    Chainwatch watch(settings, *chain, checkpoints, log);
    infra::postgres::QuarantineWriter quarantined(settings.database_url);
    // No stored offsets: every start replays the topic from the beginning (the charges of this
    // chain are rebuilt in memory; docs/chainwatch.md says why this is fine at dev scale).
    infra::kafka::KafkaConsumer consumer(
        infra::kafka::ConsumerSettings{settings.bootstrap, settings.group_id, settings.topic,
                                       "duepay-chainwatch-" + std::to_string(settings.chain_id)},
        [](const std::string&, const std::vector<std::int32_t>&) {
            return std::map<std::int32_t, std::int64_t>{};
        });
    // Catch up with the topic before touching the chain, so decisions see every earlier fact.
    const auto catchup_started = std::chrono::steady_clock::now();
    while (!stop && consumer.assignment().empty() &&
           std::chrono::steady_clock::now() - catchup_started < std::chrono::seconds(30)) {
        drain(consumer, watch, quarantined, settings.group_id, std::chrono::milliseconds(200));
    }
    for (int quiet = 0; !stop && quiet < 3;) {
        quiet = drain(consumer, watch, quarantined, settings.group_id,
                      std::chrono::milliseconds(300)) == 0
                    ? quiet + 1
                    : 0;
    }
    kLog.info() << "chainwatch " << settings.chain_id << ": caught up, " << watch.charges()
                << " charges of this chain";

    int backoff_ms = 200;
    bool loaded = false;
    auto last_lock_check = std::chrono::steady_clock::now();
    while (!stop) {
        // The advisory lock lives with its connection: if that is gone, so is leadership.
        if (std::chrono::steady_clock::now() - last_lock_check > std::chrono::seconds(5)) {
            if (!leader.alive()) {
                kLog.error() << "chainwatch " << settings.chain_id
                             << ": lost the leader connection; exiting";
                return 1;
            }
            last_lock_check = std::chrono::steady_clock::now();
        }
        try {
            if (!loaded) {
                watch.load_checkpoint();
                loaded = true;
            }
            drain(consumer, watch, quarantined, settings.group_id, std::chrono::milliseconds(0));
            if (watch.take_rewind()) consumer.rewind_to_stored();  // from the beginning
            if (!watch.step())
                drain(consumer, watch, quarantined, settings.group_id,
                      std::chrono::milliseconds(settings.poll_ms));
            backoff_ms = 200;
        } catch (const infra::rpc::RpcError& e) {
            if (!e.retryable()) {
                // The node refuses what we ask (or is no node): retrying cannot help, and this
                // chain alone is affected. Stop this chainwatch; in `duepay dev` the other roles
                // keep running (docs/chainwatch.md).
                kLog.error() << "chainwatch " << settings.chain_id << ": rpc error that a retry "
                             << "cannot fix: " << e.what() << "; this chainwatch stops";
                consumer.close();
                return kRpcRefused;
            }
            kLog.warn() << "chainwatch " << settings.chain_id << ": rpc: " << e.what()
                        << "; retrying";
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
            backoff_ms = std::min(backoff_ms * 2, 5000);
        } catch (const std::exception& e) {
            // Kafka or Postgres failed mid-round: nothing past the checkpoint is trusted. Exit; the
            // next run (supervisor or standby) resumes from the checkpoint, and re-emissions carry
            // the same ids, which evolve and the projector ignore.
            kLog.error() << "chainwatch " << settings.chain_id << ": " << e.what()
                         << "; exiting (the next leader resumes from the checkpoint)";
            return 1;
        }
    }
    consumer.close();
    log.flush(std::chrono::milliseconds(5000));
    kLog.info() << "chainwatch " << settings.chain_id << ": stopped, " << watch.emitted()
                << " events emitted";
    return 0;
}

ChainwatchSettings chainwatch_settings_from_env(std::uint64_t chain_id) {
    ChainwatchSettings s;
    s.chain_id = chain_id;
    s.bootstrap = infra::config::require_env("KAFKA_BOOTSTRAP");
    s.database_url = infra::config::require_env("DATABASE_URL");
    s.topic = infra::config::env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
    s.group_id = "duepay-chainwatch-" + std::to_string(chain_id);
    s.chains_file = infra::config::require_env("DUEPAY_CHAINS_FILE");
    const std::string start_var = "DUEPAY_START_BLOCK_" + std::to_string(chain_id);
    s.start_block =
        static_cast<std::uint64_t>(infra::config::env_int_or(start_var.c_str(), 0, 0, 1LL << 62));
    s.max_range = static_cast<std::uint64_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_RANGE", 500, 1, 100000));
    s.topic_chunk = static_cast<std::size_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_TOPIC_CHUNK", 200, 1, 10000));
    s.retain_seconds = static_cast<std::uint64_t>(infra::config::env_int_or(
        "DUEPAY_CHAINWATCH_RETAIN_SECONDS", 7 * 24 * 3600, 0, 10LL * 365 * 24 * 3600));
    s.refund_wait_seconds =
        infra::config::env_int_or("DUEPAY_REFUND_WAIT_SECONDS", 3600, 1, 30LL * 24 * 3600);
    return s;
}

std::vector<std::uint64_t> chain_ids_from_env() {
    std::vector<std::uint64_t> ids;
    std::stringstream text(infra::config::require_env("DUEPAY_CHAIN_IDS"));
    for (std::string id; std::getline(text, id, ',');) {
        try {
            ids.push_back(std::stoull(id));
        } catch (const std::exception&) {
            throw infra::config::ConfigError("DUEPAY_CHAIN_IDS: not a chain id: '" + id + "'");
        }
    }
    return ids;
}

}  // namespace duepay::consumers
