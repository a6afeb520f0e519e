// What a chainwatch appends (chain_follower.hpp): decide's events with their deterministic fact
// ids, the broker's acks before the checkpoint, and the verification of refunds from their
// transaction receipts (docs/refunds.md).
#include <chrono>
#include <stdexcept>
#include <type_traits>
#include <variant>

#include "consumers/roles/chain_follower.hpp"
#include "domain/events/event_id.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers::detail {

namespace {

constexpr infra::log::Logger kLog{"chainwatch"};

std::string now_rfc3339() {
    const auto now = std::chrono::system_clock::now().time_since_epoch();
    return domain::events::format_rfc3339_millis_utc(
        std::chrono::duration_cast<std::chrono::milliseconds>(now).count());
}

}  // namespace

using namespace duepay::domain;
using namespace duepay::domain::events;
namespace charge = duepay::domain::charge;

void Acks::expect() {
    std::lock_guard lock(mutex_);
    ++pending_;
}

void Acks::done(const ports::AppendResult& r) {
    std::lock_guard lock(mutex_);
    --pending_;
    if (!r.ok() && error_.empty()) error_ = r.error.empty() ? "append not persisted" : r.error;
    cv_.notify_all();
}

void Acks::wait() {
    std::unique_lock lock(mutex_);
    cv_.wait(lock, [&] { return pending_ == 0; });
    if (!error_.empty()) {
        auto e = error_;
        error_.clear();
        throw std::runtime_error("kafka append failed: " + e);
    }
}

void ChainFollower::decide(const std::string& invoice, const charge::Command& command,
                           std::uint32_t log_index) {
    const auto it = charges_.find(invoice);
    if (it == charges_.end()) return;  // pruned (done) while its block waited for depth
    auto& t = it->second;
    auto events = charge::decide(t.state, command);
    if (!events) {
        kLog.warn().with("invoice_id", invoice)
            << "chainwatch " << s_.chain_id << ": " << invoice << ": " << events.error().message;
        return;
    }
    for (auto& data : events.value()) emit(t, invoice, std::move(data), log_index);
}

std::string ChainFollower::fact_id(const Tracked& t, const EventData& data,
                                   std::uint32_t log_index) const {
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

void ChainFollower::emit(Tracked& t, const std::string& invoice, EventData data,
                         std::uint32_t log_index) {
    Event e;
    e.id = fact_id(t, data, log_index);
    if (t.state.seen_event_ids.contains(e.id)) return;  // emitted before (maybe by a previous run)
    e.invoice_id = t.created_envelope.invoice_id;
    e.project_id = t.created_envelope.project_id;
    e.mode = t.created_envelope.mode;
    e.chain_id = ChainId{s_.chain_id};
    e.occurred_at = now_rfc3339();
    e.data = std::move(data);
    charge::apply(t.state, e);
    note_refunds(invoice, e);
    acks_.expect();
    log_.append_async(ports::LogRecord{invoice, encode_event(e)},
                      [this](const ports::AppendResult& r) { acks_.done(r); });
    ++emitted_;
    if (trace_) {
        kLog.info().with("invoice_id", invoice)
            << "chainwatch " << s_.chain_id << ": " << event_type(e) << " " << invoice;
    }
}

void ChainFollower::flush_and_checkpoint() {
    acks_.wait();
    checkpoints_.store(s_.chain_id, checkpoint_);
}

void ChainFollower::note_refunds(const std::string& invoice, const Event& e) {
    if (std::holds_alternative<RefundRequested>(e.data)) refunds_pending_.insert(invoice);
    if (const auto* r = std::get_if<ChargeRefunded>(&e.data))
        refund_logs_[to_hex(r->tx_hash)].insert(r->log_index);
}

void ChainFollower::verify_refunds(std::uint64_t head) {
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

}  // namespace duepay::consumers::detail
