// The rows of the decide tables (decide_test.cpp, decide_refund_test.cpp, decide_create_test.cpp):
// given events / when command / then events (or a rejection), run against the real decide.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/charge/decide.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge::facts {

inline constexpr std::uint64_t kDeadline = 1'800'000'000;    // facts::created_data
inline constexpr std::uint64_t kLimit = kDeadline + 3600;    // + grace: the transfer limit
inline constexpr std::uint64_t kInWindow = kDeadline - 100;  // a block time inside the window
inline constexpr std::uint64_t kAfterLimit = kLimit + 1;     // the first second past it
inline constexpr std::uint64_t kConfirmations = 2;

struct Row {
    std::string name;
    std::vector<Event> given;
    Command when;
    std::vector<EventData> then;  // ignored when `rejected` is set
    std::string rejected;         // the stable code of the rejection
};

inline void run(const std::vector<Row>& table) {
    for (const auto& row : table) {
        SCOPED_TRACE(row.name);
        const auto got = decide(fold(row.given), row.when);
        if (!row.rejected.empty()) {
            ASSERT_FALSE(got.ok()) << "expected the rejection " << row.rejected;
            EXPECT_EQ(got.error().code, row.rejected);
            continue;
        }
        ASSERT_TRUE(got.ok()) << got.error().code << ": " << got.error().message;
        EXPECT_EQ(*got, row.then);
    }
}

// Seen `depth` blocks deep (1: the head), of kConfirmations.
inline ObservePayment seen(const Payment& p, std::uint64_t block_time, std::uint64_t depth) {
    return ObservePayment{p, block_time, depth, kConfirmations};
}
inline ObservePayment below_depth(const Payment& p, std::uint64_t t = kInWindow) {
    return seen(p, t, 1);
}
inline ObservePayment at_depth(const Payment& p, std::uint64_t t = kInWindow) {
    return seen(p, t, kConfirmations);
}

inline TokenAmount amount(std::uint64_t v) { return TokenAmount{v}; }

inline const std::string kRefund = "rf_" + std::string(24, 'a');
inline const Bytes32 kRefundTx = bytes32(0xef);
inline const Address kMerchant = address(0x44);  // facts::created_data
inline const Address kBuyer = address(0x22);
inline const std::string kAsked = "2026-11-21T22:00:00.000Z";  // facts::event's occurredAt
inline const std::int64_t kAskedMs = 1'795'298'400'000;
inline constexpr std::int64_t kBound = 600'000;

inline Event requested(std::string id = kRefund) {
    return event(id, RefundRequested{id, kRefundTx}, kAsked);
}
inline Event recorded(std::uint64_t value, std::string id = kRefund, std::uint32_t log = 1) {
    return event(id + ":done",
                 ChargeRefunded{id, kRefundTx, log, 700, kBuyer, kToken, amount(value)});
}

inline Create create_command(PaymentMode mode) {
    Create c;
    c.invoice_id = kInvoice;
    c.amount = amount(100);
    c.token = kToken;
    c.token_symbol = "USDT";
    c.token_decimals = 6;
    c.payment_mode = mode;
    c.merchant = address(0x44);
    c.fee_bps = 100;
    c.now_seconds = 1'700'000'000;
    c.expires_in = 900;
    c.grace_seconds = 3600;
    c.deposit_factory = address(0x77);
    c.forwarder_init_code_hash = bytes32(0x88);
    c.reference = "order-1";
    return c;
}

}  // namespace duepay::domain::charge::facts
