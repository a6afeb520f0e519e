// Given events / when command / then events (or a rejection), table by table: one table per
// command of decide (domain/charge/decide.hpp). The model is fmodel's decider test: the state
// is only ever the fold of the given events, so every row reads as a story.
// This file: payments, reorgs, expiry, settlement, and when a charge is done; refunds are in
// decide_refund_test.cpp, Create in decide_create_test.cpp, the shared rows in decide_rows.hpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/domain/charge/decide_rows.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;

TEST(Decide, ObservePaymentBelowConfirmationDepth) {
    const Payment t100 = payment(0xa1, 100);
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment remined = payment(0xa1, 100, Rail::transfer, 2, 1);
    const Payment other = payment(0xa1, 100, Rail::transfer, 1, 0, kOtherToken);
    run({
        {"a transfer in the window is detected",
         {created(100)},
         below_depth(t100),
         {PaymentDetected{t100}},
         ""},
        {"the same detection again is nothing",
         {created(100), detected("d", t100)},
         below_depth(t100),
         {},
         ""},
        {"re-mined in another block: a new detection",
         {created(100), detected("d", t100)},
         below_depth(remined),
         {PaymentDetected{remined}},
         ""},
        {"another token is not detected (decided at depth)",
         {created(100)},
         below_depth(other),
         {},
         ""},
        {"a transfer past the limit is not detected",
         {created(100)},
         below_depth(t100, kAfterLimit),
         {},
         ""},
        {"a transfer after expiry is not detected",
         {created(100), expired()},
         below_depth(t100),
         {},
         ""},
        {"the router enforces the wallet deadline: detected",
         {created(100)},
         below_depth(w100, kAfterLimit),
         {PaymentDetected{w100}},
         ""},
        {"a decided payment is not detected again",
         {created(100), deposit("d", t100)},
         below_depth(t100),
         {},
         ""},
        {"before charge.created: rejected", {}, below_depth(t100), {}, "charge_not_created"},
    });
}

TEST(Decide, ObservePaymentAtConfirmationDepth) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xa1, 40);
    const Payment t60 = payment(0xb2, 60);
    const Payment t30 = payment(0xb2, 30);
    const Payment t100 = payment(0xb2, 100);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    run({
        {"wallet: paid", {created(100)}, at_depth(w100), {ChargePaid{w100, amount(100)}}, ""},
        {"wallet after expiry: still paid (the router checked the deadline)",
         {created(100), expired()},
         at_depth(w100, kAfterLimit),
         {ChargePaid{w100, amount(100)}},
         ""},
        {"a first deposit below the amount: seen, underpaid",
         {created(100)},
         at_depth(t40),
         {DepositSeen{t40}, ChargeUnderpaid{t40, amount(40)}},
         ""},
        {"a top-up reaching the amount: seen, paid",
         {created(100), deposit("d", t40), underpaid("u", t40, 40)},
         at_depth(t60),
         {DepositSeen{t60}, ChargePaid{t60, amount(100)}},
         ""},
        {"one deposit of the amount: seen, paid",
         {created(100)},
         at_depth(t100),
         {DepositSeen{t100}, ChargePaid{t100, amount(100)}},
         ""},
        {"a deposit to a paid charge: seen only (overpaid)",
         {created(100), paid("p", w100, 100)},
         at_depth(t30),
         {DepositSeen{t30}},
         ""},
        {"a deposit mined past the limit: late",
         {created(100)},
         at_depth(t30, kAfterLimit),
         {LateDeposit{t30}},
         ""},
        {"a deposit confirmed after expiry: late",
         {created(100), expired()},
         at_depth(t30),
         {LateDeposit{t30}},
         ""},
        {"a deposit in another token: failed",
         {created(100)},
         at_depth(other),
         {ChargeFailed{FailureReason::wrong_token, other}},
         ""},
        {"the detected payment confirmed: seen, underpaid",
         {created(100), detected("d", t40)},
         at_depth(t40),
         {DepositSeen{t40}, ChargeUnderpaid{t40, amount(40)}},
         ""},
        {"already confirmed: nothing", {created(100), deposit("d", t40)}, at_depth(t40), {}, ""},
        {"already late: nothing", {created(100), expired(), late("l", t40)}, at_depth(t40), {}, ""},
        {"already failed: nothing", {created(100), failed("f", other)}, at_depth(other), {}, ""},
        {"before charge.created: rejected", {}, at_depth(t40), {}, "charge_not_created"},
    });
}

// The total decide reports is the total evolve keeps: both add with saturation.
TEST(Decide, TotalsAddLikeEvolve) {
    const uint256 max = ~uint256(0);
    Event big = created(1);
    std::get<ChargeCreated>(big.data).amount = TokenAmount{max};
    Payment first = payment(0xa1, 0);
    first.amount = TokenAmount{max - 1};
    const Payment second = payment(0xb2, 5);
    const ChargeState s = fold(std::vector{big, deposit("d", first)});
    ASSERT_EQ(s.status, Status::underpaid);
    const auto got = decide(s, at_depth(second));
    ASSERT_TRUE(got.ok());
    const std::vector<EventData> want{DepositSeen{second}, ChargePaid{second, TokenAmount{max}}};
    EXPECT_EQ(*got, want);
    ChargeState after = s;
    for (const auto& data : *got) apply(after, event(std::string(event_type(data)), data));
    EXPECT_EQ(after.status, Status::paid);
    EXPECT_EQ(after.amount_confirmed.value, max);
}

TEST(Decide, ObserveReorg) {
    const Payment a = payment(0xa1, 100, Rail::transfer, 7, 0);
    const ObserveReorg orphaned{a.tx_hash, a.log_index, a.block_number, a.block_hash};
    const ObserveReorg other_block{a.tx_hash, a.log_index, a.block_number, bytes32(7, 9)};
    run({
        {"a detection in the orphaned block is withdrawn",
         {created(100), detected("d", a)},
         orphaned,
         {PaymentReorged{a.tx_hash, a.log_index, a.block_number, a.block_hash}},
         ""},
        {"a detection in another block stays",
         {created(100), detected("d", a)},
         other_block,
         {},
         ""},
        {"nothing detected: nothing to withdraw", {created(100)}, orphaned, {}, ""},
        {"a confirmed payment is not withdrawn",
         {created(100), detected("d", a), deposit("s", a)},
         orphaned,
         {},
         ""},
        {"before charge.created: rejected", {}, orphaned, {}, "charge_not_created"},
    });
}

TEST(Decide, ObserveBlockExpiresByChainTime) {
    Event wallet_only = created(100);
    auto& w = std::get<ChargeCreated>(wallet_only.data);
    w.payment_mode = PaymentMode::wallet;
    w.grace_seconds = 0;
    w.deposit_address.reset();
    const Payment a40 = payment(0xa1, 40);
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    run({
        {"at the limit: not yet", {created(100)}, ObserveBlock{9, kLimit}, {}, ""},
        {"past deadline + grace: expired",
         {created(100)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"wallet only: past the deadline, no grace",
         {wallet_only},
         ObserveBlock{9, kDeadline + 1},
         {ChargeExpired{kDeadline, 0, 9, kDeadline + 1}},
         ""},
        {"wallet only: at the deadline, not yet",
         {wallet_only},
         ObserveBlock{9, kDeadline},
         {},
         ""},
        {"underpaid: expired",
         {created(100), deposit("d", a40), underpaid("u", a40, 40)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"an unconfirmed detection does not hold expiry",
         {created(100), detected("d", a40)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"paid: never expires",
         {created(100), paid("p", w100, 100)},
         ObserveBlock{9, kAfterLimit},
         {},
         ""},
        {"expired once", {created(100), expired()}, ObserveBlock{10, kAfterLimit + 12}, {}, ""},
        {"before charge.created: rejected",
         {},
         ObserveBlock{9, kAfterLimit},
         {},
         "charge_not_created"},
    });
}

TEST(Decide, Settlement) {
    const ChargeSettled sweep{bytes32(0xee), 600, address(0x55), kToken, amount(100)};
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    run({
        {"a sweep is recorded",
         {created(100), paid("p", w100, 100)},
         ObserveSettlement{sweep},
         {sweep},
         ""},
        {"a sweep before charge.created: rejected",
         {},
         ObserveSettlement{sweep},
         {},
         "charge_not_created"},
    });
}

// Refunds: the merchant's request, then chainwatch's observation of the receipt.

// When chainwatch may forget a charge: a table of (given events, chain time, retain) -> done.
TEST(Decide, DoneChargesAfterTheRetainWindow) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xb2, 40);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    const ChargeSettled sweep{bytes32(0xee), 600, address(0x55), kToken, amount(40)};
    Event wallet_only = created(100);
    auto& w = std::get<ChargeCreated>(wallet_only.data);
    w.payment_mode = PaymentMode::wallet;
    w.grace_seconds = 0;
    w.deposit_address.reset();
    struct Case {
        std::string name;
        std::vector<Event> given;
        std::uint64_t chain_time;
        std::uint64_t retain;
        bool done;
    };
    const std::vector<Case> table{
        {"paid by wallet, past limit + retain",
         {created(100), paid("p", w100, 100)},
         kLimit + 11,
         10,
         true},
        {"paid, within the retain window (late deposits still recorded)",
         {created(100), paid("p", w100, 100)},
         kLimit + 10,
         10,
         false},
        {"paid before the limit", {created(100), paid("p", w100, 100)}, kDeadline, 0, false},
        {"expired without funds", {created(100), expired()}, kAfterLimit, 0, true},
        {"wallet only, expired past the deadline",
         {wallet_only, expired()},
         kDeadline + 1,
         0,
         true},
        {"pending past the limit (expiry not decided yet)", {created(100)}, kAfterLimit, 0, false},
        {"a detection still unconfirmed",
         {created(100), expired(), detected("d", t40)},
         kAfterLimit,
         0,
         false},
        {"deposits at the address, not swept",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired()},
         kAfterLimit,
         0,
         false},
        {"deposits at the address, swept",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired(), event("s", sweep)},
         kAfterLimit,
         0,
         true},
        {"wrong token at the address, not swept",
         {created(100), failed("f", other)},
         kAfterLimit,
         0,
         false},
        {"never created", {}, kAfterLimit, 0, false},
        {"paid, a refund waiting for its verdict",
         {created(100), paid("p", w100, 100), requested()},
         kLimit + 11,
         10,
         false},
        {"paid, the refund rejected",
         {created(100), paid("p", w100, 100), requested(),
          event(kRefund + ":rejected",
                RefundRejected{kRefund, kRefundTx, RefundRejection::not_found})},
         kLimit + 11,
         10,
         true},
    };
    for (const auto& c : table) {
        EXPECT_EQ(done(fold(c.given), c.chain_time, c.retain), c.done) << c.name;
    }
}

// decide's events, folded, are the state the decision meant: a wallet payment end to end.
TEST(Decide, DecidedEventsFoldToTheDecidedStatus) {
    ChargeState s = initial_state();
    const Payment w = payment(0xa1, 100, Rail::wallet);
    const std::vector<Command> story{create_command(PaymentMode::both), below_depth(w), at_depth(w),
                                     ObserveBlock{9, 1'700'000'901 + 3600}};
    const std::vector<Status> after{Status::pending, Status::confirming, Status::paid,
                                    Status::paid};
    for (std::size_t i = 0; i < story.size(); ++i) {
        const auto events = decide(s, story[i]);
        ASSERT_TRUE(events.ok()) << i;
        for (std::size_t j = 0; j < events->size(); ++j) {
            apply(s, event(std::to_string(i * 10 + j), (*events)[j]));
        }
        EXPECT_EQ(s.status, after[i]) << i;
    }
}

}  // namespace
}  // namespace duepay::domain::charge
