// The settlement report's rows (docs/reports.md, ADR 0240), defined once: what a row is, what it
// is worth, and how its numbers are written. Pure: the projector (projections/charges) stores the
// rows an event adds, the API streams them; the overview's volume counts the same rows.
//
// What a row is. An event adds a row when, applied to the charge (domain/charge evolve), it makes
//   - a payment (txHash, logIndex) enter ChargeState::confirmed or ChargeState::late: a payment
//     row (deposit_seen, paid, underpaid, late_deposit; a payment counts once however many of
//     those name it), or
//   - a RefundRecord become `succeeded`: a refund row (charge.refunded).
// Nothing else is a row: detections, reorgs, expiry, settle, requests and rejections, and
// wrong-token deposits (not the charge's token, so not its money). The rows of a charge are a
// function of (state before, event, state after), so the same events in the same order give the
// same rows, and an event applied twice (a duplicate id) adds none the second time.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/types.hpp"

namespace duepay::domain::reports {

using money::BigInt;

enum class RowKind { payment, refund };
std::string_view to_string(RowKind kind);

// One row as the events define it: which token movement, and how much (never negative here; the
// priced row signs refunds).
struct SettlementEntry {
    RowKind kind = RowKind::payment;
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    std::uint64_t block_number = 0;
    TokenAmount amount;
    std::string refund_id;    // refunds: the refund's id
    std::string event_id;     // the event that added the row
    std::string occurred_at;  // that event's occurredAt (the row's time, docs/reports.md)
    bool operator==(const SettlementEntry&) const = default;
};

// The rows `event` adds to a charge whose state was `before` and is `after` once it is applied.
// `after` must be evolve(before, event): the payment that entered is the event's own, and its
// block number is the event's (a state that no event explains is a broken invariant:
// std::logic_error).
std::vector<SettlementEntry> entries_of(const charge::ChargeState& before,
                                        const events::Event& event,
                                        const charge::ChargeState& after);

// Whether an event of this type can add a row (a fold keeps a copy of the state before only
// for these).
bool may_add_rows(const events::Event& event);

// charge::apply, and the rows the event added appended to `out`.
void apply_collecting(charge::ChargeState& state, const events::Event& event,
                      std::vector<SettlementEntry>& out);

// Every row of one charge's events (log order): the fold of apply_collecting.
std::vector<SettlementEntry> settlement_entries(std::span<const events::Event> events);

// ---- What a row is worth ----

// A row priced by its charge's terms (charge.created). Token amounts are signed integers of the
// token's smallest unit; fiat amounts signed integers of the currency's minor unit (cents).
struct PricedRow {
    BigInt amount;  // payments: the amount; refunds: minus the amount
    BigInt fee;     // payments: floor(amount * feeBps / 10000); refunds: 0
    BigInt net;     // amount - fee
    // Set when the charge was priced in fiat (charge.created's fiat quote); else all unset.
    std::optional<money::FiatCurrency> fiat_currency;
    std::optional<money::Rational> fiat_rate;  // fiat per ONE whole token, the quote's rate
    std::optional<BigInt> fiat_amount;         // fiat_value(amount)
    std::optional<BigInt> fiat_fee;            // fiat_value(fee)
    std::optional<BigInt> fiat_net;            // fiat_amount - fiat_fee (so the columns add up)
};

// What pricing a row takes from its charge's charge.created: the fee rate, the token's decimals
// and the fiat quote's currency and rate (when the charge was priced in fiat).
struct PriceTerms {
    std::uint32_t fee_bps = 0;
    unsigned decimals = 0;
    std::optional<money::FiatCurrency> fiat_currency;
    std::optional<money::Rational> fiat_rate;
    bool operator==(const PriceTerms&) const = default;
};
PriceTerms terms_of(const events::ChargeCreated& created);

PricedRow price(const PriceTerms& terms, const SettlementEntry& entry);

// floor(amount * fee_bps / 10000): the router's and the deposit factory's split
// (docs/contracts.md).
BigInt fee_of(const BigInt& amount, std::uint32_t fee_bps);

// ---- How its numbers are written ----

// A signed decimal integer ("-1250000", "0") as a decimal with exactly `decimals` fraction digits
// ("-1.250000"; decimals 0: the integer itself). Digits are moved, never computed: exact for any
// size. nullopt when `integer` is not an optional '-' then digits without a leading zero.
std::optional<std::string> format_fixed(std::string_view integer, unsigned decimals);

}  // namespace duepay::domain::reports
