#include "domain/reports/settlement.hpp"

#include <stdexcept>
#include <type_traits>
#include <variant>

namespace duepay::domain::reports {

namespace ev = domain::events;
namespace ch = domain::charge;

namespace {

// The payment an event carries, if it is one that can make a payment confirmed or late.
const ev::Payment* confirming_payment(const ev::EventData& data) {
    return std::visit(
        [](const auto& d) -> const ev::Payment* {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, ev::DepositSeen> || std::is_same_v<T, ev::ChargePaid> ||
                          std::is_same_v<T, ev::ChargeUnderpaid> ||
                          std::is_same_v<T, ev::LateDeposit>) {
                return &d.payment;
            } else {
                return nullptr;
            }
        },
        data);
}

bool held_before(const ch::ChargeState& s, const ch::PaymentKey& key) {
    return s.confirmed.contains(key) || s.late.contains(key);
}

void add_payments(const std::map<ch::PaymentKey, TokenAmount>& after, const ch::ChargeState& before,
                  const ev::Event& event, std::vector<SettlementEntry>& out) {
    for (const auto& [key, amount] : after) {
        if (held_before(before, key)) continue;
        const auto* payment = confirming_payment(event.data);
        if (payment == nullptr || payment->tx_hash != key.tx_hash ||
            payment->log_index != key.log_index)
            throw std::logic_error("settlement: a payment entered that the event does not name");
        SettlementEntry e;
        e.kind = RowKind::payment;
        e.tx_hash = key.tx_hash;
        e.log_index = key.log_index;
        e.block_number = payment->block_number;
        e.amount = amount;
        e.event_id = event.id;
        e.occurred_at = event.occurred_at;
        out.push_back(std::move(e));
    }
}

bool succeeded_before(const ch::ChargeState& s, const std::string& refund_id) {
    const auto* r = ch::find_refund(s, refund_id);
    return r != nullptr && r->status == ch::RefundStatus::succeeded;
}

}  // namespace

std::string_view to_string(RowKind kind) { return kind == RowKind::refund ? "refund" : "payment"; }

std::vector<SettlementEntry> entries_of(const ch::ChargeState& before, const ev::Event& event,
                                        const ch::ChargeState& after) {
    std::vector<SettlementEntry> out;
    add_payments(after.confirmed, before, event, out);
    add_payments(after.late, before, event, out);
    for (const auto& r : after.refunds) {
        if (r.status != ch::RefundStatus::succeeded || succeeded_before(before, r.refund_id))
            continue;
        const auto* refunded = std::get_if<ev::ChargeRefunded>(&event.data);
        if (refunded == nullptr || refunded->refund_id != r.refund_id)
            throw std::logic_error("settlement: a refund succeeded that the event does not name");
        SettlementEntry e;
        e.kind = RowKind::refund;
        e.tx_hash = r.tx_hash;
        e.log_index = r.log_index;
        e.block_number = refunded->block_number;
        e.amount = r.amount;
        e.refund_id = r.refund_id;
        e.event_id = event.id;
        e.occurred_at = event.occurred_at;
        out.push_back(std::move(e));
    }
    return out;
}

bool may_add_rows(const ev::Event& event) {
    return confirming_payment(event.data) != nullptr ||
           std::holds_alternative<ev::ChargeRefunded>(event.data);
}

void apply_collecting(ch::ChargeState& state, const ev::Event& event,
                      std::vector<SettlementEntry>& out) {
    if (!may_add_rows(event)) {
        ch::apply(state, event);
        return;
    }
    const ch::ChargeState before = state;
    ch::apply(state, event);
    auto added = entries_of(before, event, state);
    out.insert(out.end(), std::make_move_iterator(added.begin()),
               std::make_move_iterator(added.end()));
}

std::vector<SettlementEntry> settlement_entries(std::span<const ev::Event> events) {
    ch::ChargeState state = ch::initial_state();
    std::vector<SettlementEntry> out;
    for (const auto& event : events) apply_collecting(state, event, out);
    return out;
}

BigInt fee_of(const BigInt& amount, std::uint32_t fee_bps) {
    return amount * fee_bps / 10000;  // amount >= 0: truncation is the floor
}

PriceTerms terms_of(const ev::ChargeCreated& created) {
    PriceTerms t;
    t.fee_bps = created.fee_bps;
    t.decimals = created.token_decimals;
    if (created.fiat) {
        t.fiat_currency = created.fiat->amount.currency;
        t.fiat_rate = created.fiat->rate;
    }
    return t;
}

PricedRow price(const PriceTerms& terms, const SettlementEntry& entry) {
    PricedRow p;
    const BigInt magnitude(entry.amount.value);
    if (entry.kind == RowKind::payment) {
        p.amount = magnitude;
        p.fee = fee_of(magnitude, terms.fee_bps);
    } else {
        p.amount = -magnitude;
        p.fee = 0;  // the merchant sends a refund themselves; no fee is taken or given back
    }
    p.net = p.amount - p.fee;
    if (terms.fiat_currency && terms.fiat_rate) {
        const auto& rate = *terms.fiat_rate;
        p.fiat_currency = terms.fiat_currency;
        p.fiat_rate = rate;
        p.fiat_amount = money::fiat_value(p.amount, terms.decimals, rate).minor_units;
        p.fiat_fee = money::fiat_value(p.fee, terms.decimals, rate).minor_units;
        p.fiat_net = *p.fiat_amount - *p.fiat_fee;
    }
    return p;
}

std::optional<std::string> format_fixed(std::string_view integer, unsigned decimals) {
    const bool negative = !integer.empty() && integer.front() == '-';
    std::string_view digits = negative ? integer.substr(1) : integer;
    if (digits.empty() || (digits.size() > 1 && digits.front() == '0')) return std::nullopt;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
    }
    if (negative && digits == "0") return std::nullopt;
    std::string out;
    out.reserve(digits.size() + decimals + 3);
    if (negative) out += '-';
    if (decimals == 0) {
        out += digits;
        return out;
    }
    if (digits.size() <= decimals) {
        out += "0.";
        out.append(decimals - digits.size(), '0');
        out += digits;
        return out;
    }
    out += digits.substr(0, digits.size() - decimals);
    out += '.';
    out += digits.substr(digits.size() - decimals);
    return out;
}

}  // namespace duepay::domain::reports
