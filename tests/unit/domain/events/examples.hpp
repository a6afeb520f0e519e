// One realistic example of every event type, shared by the events tests.
#pragma once

#include <vector>

#include "domain/events/event.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::events::examples {

inline Address addr(std::uint8_t fill) {
    Address a;
    a.bytes.fill(fill);
    a.bytes[0] = 0xab;
    return a;
}
inline Bytes32 hash(std::uint8_t fill) {
    Bytes32 h;
    h.fill(fill);
    h[31] = 0x01;
    return h;
}

inline Event envelope(std::string id, EventData data) {
    Event e;
    e.id = std::move(id);
    e.invoice_id = InvoiceId{hash(0x11)};
    e.project_id = "prj_01HZX3";
    e.mode = Mode::test;
    e.chain_id = ChainId{80002};
    e.occurred_at = "2026-11-21T22:00:00.123Z";
    e.data = std::move(data);
    return e;
}

inline Payment payment(Rail rail, std::uint64_t block, const char* amount) {
    Payment p;
    p.rail = rail;
    p.tx_hash = hash(static_cast<std::uint8_t>(block));
    p.log_index = 3;
    p.block_number = block;
    p.block_hash = hash(static_cast<std::uint8_t>(0x80 + block));
    p.from = addr(0x22);
    p.token = addr(0x33);
    p.amount = TokenAmount{uint256(amount)};
    return p;
}

inline ChargeCreated created_data() {
    ChargeCreated d;
    d.amount = TokenAmount{10073743};
    d.token = addr(0x33);
    d.token_symbol = "USDT";
    d.token_decimals = 6;
    d.payment_mode = PaymentMode::both;
    d.merchant = addr(0x44);
    d.fee_bps = 100;
    d.deadline = 1795305600;
    d.grace_seconds = 3600;
    d.deposit_address = addr(0x55);
    d.reference =
        "order-42 \"quoted\" \xe0\xb8\xa3\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\x99";  // Thai text
                                                                                 // survives
    d.return_url = "https://shop.example/thanks";
    FiatQuote q;
    q.amount = money::FiatAmount{money::FiatCurrency::THB, 35000};
    q.token_amount = d.amount;
    q.rate = money::Rational::make(10001, 285).value();
    q.rate_source = "chainlink:80002";
    q.buffer_bps = 100;
    q.rate_read_at = "2026-11-21T21:59:58.000Z";
    d.fiat = q;
    return d;
}

// Every type once, in variant order.
inline std::vector<Event> all() {
    std::vector<Event> out;
    out.push_back(envelope("9b2f0c1e-7a7d-4c52-9d3e-0c4f5a6b7c8d", created_data()));
    out.push_back(envelope("0x" + std::string(64, '1'),
                           PaymentDetected{payment(Rail::wallet, 100, "10073743")}));
    out.push_back(envelope("0x" + std::string(64, '2'),
                           DepositSeen{payment(Rail::transfer, 101, "5000000")}));
    out.push_back(
        envelope("0x" + std::string(64, '3'), PaymentReorged{hash(100), 3, 100, hash(0x80 + 100)}));
    out.push_back(
        envelope("0x" + std::string(64, '4'),
                 ChargePaid{payment(Rail::wallet, 102, "10073743"), TokenAmount{10073743}}));
    out.push_back(
        envelope("0x" + std::string(64, '5'),
                 ChargeUnderpaid{payment(Rail::transfer, 103, "5000000"), TokenAmount{5000000}}));
    out.push_back(
        envelope("0x" + std::string(64, '6'), ChargeExpired{1795305600, 3600, 200, 1795309201}));
    out.push_back(envelope(
        "0x" + std::string(64, '7'),
        LateDeposit{payment(
            Rail::transfer, 201,
            "115792089237316195423570985008687907853269984665640564039457584007913129639935")}));
    out.push_back(
        envelope("0x" + std::string(64, '8'),
                 ChargeSettled{hash(0x90), 210, addr(0x55), addr(0x33), TokenAmount{10073743}}));
    out.push_back(envelope("0x" + std::string(64, '8'),
                           ChargeRefunded{"rf_0123456789abcdef01234567", hash(0x91), 7, 211,
                                          addr(0x22), addr(0x33), TokenAmount{10073743}}));
    out.push_back(
        envelope("0x" + std::string(64, '9'),
                 ChargeFailed{FailureReason::wrong_token, payment(Rail::transfer, 104, "1")}));
    out.push_back(envelope("rf_0123456789abcdef01234567",
                           RefundRequested{"rf_0123456789abcdef01234567", hash(0x91)}));
    out.push_back(envelope(
        "rf_0123456789abcdef01234567:rejected",
        RefundRejected{"rf_0123456789abcdef01234567", hash(0x92), RefundRejection::wrong_sender}));
    out.push_back(envelope(
        "0f1e2d3c-4b5a-4978-8695-a4b3c2d1e0f9",
        ExceptionResolved{
            ResolvedException::partial, std::nullopt,
            Actor{ActorKind::wallet, "0x" + std::string(40, 'a'), "ses_0123456789abcdef01234567"},
            "Buyer pays the rest by bank transfer, \"INV-7\".\nChecked: ok"}));
    return out;
}

}  // namespace duepay::domain::events::examples
