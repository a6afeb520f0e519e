// Builders for charge events in the charge tests: one invoice, the charged token kToken, ids
// given explicitly so duplicates are easy to write.
#pragma once

#include <ostream>
#include <string>

#include "domain/charge/charge_state.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event.hpp"
#include "domain/evm/keccak.hpp"

namespace duepay::domain::charge {
// Readable gtest failure messages.
inline void PrintTo(Status s, std::ostream* os) { *os << to_string(s); }
inline void PrintTo(Exception x, std::ostream* os) { *os << to_string(x); }
}  // namespace duepay::domain::charge

namespace duepay::domain::charge::facts {

using namespace duepay::domain::events;

inline Address address(std::uint8_t b) {
    Address a;
    a.bytes.fill(b);
    return a;
}
inline Bytes32 bytes32(std::uint8_t b, std::uint8_t salt = 0) {
    Bytes32 h;
    h.fill(b);
    h[0] = salt;
    return h;
}
inline const Address kToken = address(0x33);
inline const Address kOtherToken = address(0x66);
inline const InvoiceId kInvoice{bytes32(0x11)};

inline Event event(std::string id, EventData data, std::string at = "2026-11-21T22:00:00.000Z") {
    Event e;
    e.id = std::move(id);
    e.invoice_id = kInvoice;
    e.project_id = "prj_test";
    e.mode = Mode::test;
    e.chain_id = ChainId{80002};
    e.occurred_at = std::move(at);
    e.data = std::move(data);
    return e;
}

inline ChargeCreated created_data(std::uint64_t due) {
    ChargeCreated d;
    d.amount = TokenAmount{due};
    d.token = kToken;
    d.token_symbol = "USDT";
    d.token_decimals = 6;
    d.payment_mode = PaymentMode::both;
    d.merchant = address(0x44);
    d.fee_bps = 100;
    d.deadline = 1'800'000'000;
    d.grace_seconds = 3600;
    d.deposit_address = address(0x55);
    return d;
}

// Payment `tx` (its tx hash is bytes32(tx)), detected in block `block` (hash bytes32(block, fork)).
inline Payment payment(std::uint8_t tx, std::uint64_t amount, Rail rail = Rail::transfer,
                       std::uint64_t block = 1, std::uint8_t fork = 0,
                       const Address& token = kToken) {
    Payment p;
    p.rail = rail;
    p.tx_hash = bytes32(tx);
    p.log_index = 0;
    p.block_number = block;
    p.block_hash = bytes32(static_cast<std::uint8_t>(block), fork);
    p.from = address(0x22);
    p.token = token;
    p.amount = TokenAmount{amount};
    return p;
}

inline Event created(std::uint64_t due, std::string id = "created") {
    return event(std::move(id), created_data(due));
}
inline Event detected(std::string id, const Payment& p) {
    return event(std::move(id), PaymentDetected{p});
}
inline Event deposit(std::string id, const Payment& p) {
    return event(std::move(id), DepositSeen{p});
}
inline Event reorged(std::string id, const Payment& p) {
    return event(std::move(id),
                 PaymentReorged{p.tx_hash, p.log_index, p.block_number, p.block_hash});
}
inline Event paid(std::string id, const Payment& p, std::uint64_t total) {
    return event(std::move(id), ChargePaid{p, TokenAmount{total}});
}
inline Event underpaid(std::string id, const Payment& p, std::uint64_t total) {
    return event(std::move(id), ChargeUnderpaid{p, TokenAmount{total}});
}
inline Event expired(std::string id = "expired") {
    return event(std::move(id), ChargeExpired{1'800'000'000, 3600, 500, 1'800'003'601});
}
inline Event late(std::string id, const Payment& p) { return event(std::move(id), LateDeposit{p}); }
inline Event settled(std::string id, std::uint64_t amount) {
    return event(std::move(id),
                 ChargeSettled{bytes32(0xee), 600, address(0x55), kToken, TokenAmount{amount}});
}
// A recorded refund; each event id names its own refund (so two of them add up).
inline Event refunded(std::string id, std::uint64_t amount) {
    const auto rf = refund_id(kInvoice, evm::keccak256(std::string_view(id)));
    return event(std::move(id), ChargeRefunded{rf, bytes32(0xef), 0, 1, address(0x22), kToken,
                                               TokenAmount{amount}});
}
// A person resolved `exception` (a rejected refund: `refund_id` names it), by API key.
inline Actor key_actor() { return Actor{ActorKind::key, "key_0123456789abcdef01234567", {}}; }
inline Actor wallet_actor() {
    return Actor{ActorKind::wallet, "0x" + std::string(40, 'a'), "ses_0123456789abcdef01234567"};
}
inline Event resolved(std::string id, ResolvedException exception,
                      std::optional<std::string> refund_id = std::nullopt,
                      std::string note = "called the buyer", Actor by = key_actor(),
                      std::string at = "2026-11-22T09:30:00.000Z") {
    return event(std::move(id),
                 ExceptionResolved{exception, std::move(refund_id), std::move(by), std::move(note)},
                 std::move(at));
}
inline Event failed(std::string id, const Payment& p) {
    return event(std::move(id), ChargeFailed{FailureReason::wrong_token, p});
}

}  // namespace duepay::domain::charge::facts
