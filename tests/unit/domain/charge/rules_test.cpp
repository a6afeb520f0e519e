// The charge rules other layers ask instead of keeping copies (the api's create route, the read
// views, the checkout): the status's text pair and predicates, decided payments, the expiry bounds
// and the payment mode a chain gives. Tables: one row per input.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/charge/create_rules.hpp"
#include "domain/charge/decide.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
namespace {

using events::PaymentMode;

TEST(ChargeRules, StatusTextAndPredicates) {
    struct Row {
        Status status;
        const char* text;
        bool payable;
        bool final;
    };
    const Row rows[] = {
        {Status::pending, "pending", true, false},
        {Status::confirming, "confirming", true, false},
        {Status::paid, "paid", false, true},
        {Status::underpaid, "underpaid", true, false},
        {Status::expired, "expired", false, true},
        {Status::failed, "failed", false, true},
        {Status::refunded, "refunded", false, true},
    };
    ASSERT_EQ(std::size(rows), std::size(kAllStatuses)) << "a row for every status";
    for (const auto& r : rows) {
        EXPECT_EQ(to_string(r.status), r.text);
        EXPECT_EQ(parse_status(r.text), std::optional<Status>(r.status)) << r.text;
        EXPECT_EQ(payable(r.status), r.payable) << r.text;
        EXPECT_EQ(final_status(r.status), r.final) << r.text;
    }
}

TEST(ChargeRules, ParseStatusRefusesOtherText) {
    for (const char* text : {"", "Paid", "PAID", " paid", "paid ", "none", "partial", "unknown"})
        EXPECT_EQ(parse_status(text), std::nullopt) << '"' << text << '"';
}

TEST(ChargeRules, DecidedPayments) {
    const PaymentKey key{facts::bytes32(0xaa), 3};
    const PaymentKey other_log{facts::bytes32(0xaa), 4};
    struct Row {
        const char* name;
        void (*put)(ChargeState&, const PaymentKey&);
        bool decided;
    };
    const Row rows[] = {
        {"unseen", [](ChargeState&, const PaymentKey&) {}, false},
        {"unconfirmed",
         [](ChargeState& s, const PaymentKey& k) { s.unconfirmed[k] = Unconfirmed{}; }, false},
        {"confirmed", [](ChargeState& s, const PaymentKey& k) { s.confirmed[k] = TokenAmount{1}; },
         true},
        {"late", [](ChargeState& s, const PaymentKey& k) { s.late[k] = TokenAmount{1}; }, true},
        {"wrong token",
         [](ChargeState& s, const PaymentKey& k) { s.wrong_token[k] = TokenAmount{1}; }, true},
    };
    for (const auto& r : rows) {
        ChargeState s = initial_state();
        r.put(s, key);
        EXPECT_EQ(decided(s, key), r.decided) << r.name;
        EXPECT_FALSE(decided(s, other_log)) << r.name << ": another log of the same transaction";
    }
}

TEST(ChargeRules, ExpiryBounds) {
    struct Row {
        std::uint64_t seconds;
        bool allowed;
    };
    const Row rows[] = {{0, false},    {1, true},      {3600, true},
                        {86400, true}, {86401, false}, {~std::uint64_t{0}, false}};
    for (const auto& r : rows) EXPECT_EQ(expires_in_allowed(r.seconds), r.allowed) << r.seconds;
}

TEST(ChargeRules, PaymentModeOnChain) {
    struct Row {
        PaymentMode requested;
        bool transfer_rail;
        std::optional<PaymentMode> mode;  // nullopt: refused
    };
    const Row rows[] = {
        {PaymentMode::wallet, true, PaymentMode::wallet},
        {PaymentMode::transfer, true, PaymentMode::transfer},
        {PaymentMode::both, true, PaymentMode::both},
        {PaymentMode::wallet, false, PaymentMode::wallet},
        {PaymentMode::transfer, false, std::nullopt},
        {PaymentMode::both, false, PaymentMode::wallet},
    };
    for (const auto& r : rows) {
        const auto got = payment_mode_on_chain(r.requested, r.transfer_rail);
        const std::string row = std::string(events::to_string(r.requested)) +
                                (r.transfer_rail ? " with" : " without") + " a transfer rail";
        if (r.mode) {
            ASSERT_TRUE(got.ok()) << row;
            EXPECT_EQ(*got, *r.mode) << row;
        } else {
            ASSERT_FALSE(got.ok()) << row;
            EXPECT_EQ(got.error().code, "transfer_rail_unavailable") << row;
            EXPECT_EQ(got.error().message, "this chain has no transfer rail; use wallet") << row;
        }
    }
}

TEST(ChargeRules, PaymentModeText) {
    for (const auto mode : {PaymentMode::wallet, PaymentMode::transfer, PaymentMode::both})
        EXPECT_EQ(parse_payment_mode(events::to_string(mode)), mode);
    for (const char* text : {"", "Wallet", "wallet ", "none", "any"})
        EXPECT_EQ(parse_payment_mode(text), std::nullopt) << '"' << text << '"';
}

}  // namespace
}  // namespace duepay::domain::charge
