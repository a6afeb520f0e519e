// The charge's payments as the fold keeps them (ChargeState::payments, the dashboard's Payments
// table), row by row: given events / when one more event / then each payment's latest state and
// the time of the fact that gave it.
#include <gtest/gtest.h>

#include <optional>
#include <string>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
inline void PrintTo(PaymentState s, std::ostream* os) { *os << to_string(s); }

namespace {

using namespace facts;
using P = PaymentState;

// 22:0m of the test day (the builders all use 22:00), and the event occurring then.
std::string time_at(int minute) { return "2026-11-21T22:0" + std::to_string(minute) + ":00.000Z"; }
Event at(Event e, int minute) {
    e.occurred_at = time_at(minute);
    return e;
}

const Payment kA = payment(0xa1, 30);  // transfer, block 1
const Payment kAFork =
    payment(0xa1, 30, Rail::transfer, 1, 7);  // the same payment, another block 1
const Payment kAWallet = payment(0xa1, 30, Rail::wallet);
const Payment kAWrong = payment(0xa1, 30, Rail::transfer, 1, 0, kOtherToken);

struct Row {
    const char* story;
    std::vector<Event> given;          // after charge.created (amount due 100)
    Event when;                        // at minute 9
    std::optional<PaymentState> then;  // payment A's state after `when`; nullopt: not listed
    int then_minute;                   // the minute of the fact that gave A its state
};

std::vector<Row> rows() {
    return {
        {"detected: seen", {}, detected("t", kA), P::seen, 9},
        {"deposit seen: confirmed", {}, deposit("d", kA), P::confirmed, 9},
        {"paid on the wallet rail: confirmed", {}, paid("p", kAWallet, 30), P::confirmed, 9},
        {"underpaid: confirmed", {}, underpaid("u", kA, 30), P::confirmed, 9},
        {"late deposit: late", {at(expired(), 1)}, late("l", kA), P::late, 9},
        {"wrong token: wrong_token", {}, failed("f", kAWrong), P::wrong_token, 9},
        {"reorg of its block: reorged",
         {at(detected("t", kA), 1)},
         reorged("r", kA),
         P::reorged,
         9},
        {"detected then confirmed", {at(detected("t", kA), 1)}, deposit("d", kA), P::confirmed, 9},
        {"detected after the reorg, in the new block: seen again",
         {at(detected("t", kA), 1), at(reorged("r", kA), 2)},
         detected("t2", kAFork),
         P::seen,
         9},
        {"underpaid after its deposit: still confirmed, at the decision's time",
         {at(deposit("d", kA), 1)},
         underpaid("u", kA, 30),
         P::confirmed,
         9},
        {"a reorg of another block: unchanged",
         {at(detected("t", kAFork), 1)},
         reorged("r", kA),
         P::seen,
         1},
        {"a detection after the decision: unchanged",
         {at(deposit("d", kA), 1)},
         detected("t", kA),
         P::confirmed,
         1},
        {"a late deposit of a confirmed payment: unchanged",
         {at(deposit("d", kA), 1), at(expired(), 2)},
         late("l", kA),
         P::confirmed,
         1},
        {"the same event again (same id): unchanged",
         {at(deposit("d", kA), 1)},
         deposit("d", kA),
         P::confirmed,
         1},
        {"a reorg of a payment never seen: not listed", {}, reorged("r", kA), std::nullopt, 0},
        {"a settlement: not a payment", {}, settled("s", 30), std::nullopt, 0},
    };
}

TEST(ChargePayments, EachFactGivesThePaymentItsState) {
    for (const auto& row : rows()) {
        std::vector<Event> events{created(100)};
        events.insert(events.end(), row.given.begin(), row.given.end());
        events.push_back(at(row.when, 9));
        const ChargeState s = fold(events);
        if (!row.then) {
            EXPECT_TRUE(s.payments.empty()) << row.story;
            continue;
        }
        ASSERT_EQ(s.payments.size(), 1u) << row.story;  // one row per payment, never two
        const PaymentRecord& p = s.payments[0];
        EXPECT_EQ(p.state, *row.then) << row.story;
        EXPECT_EQ(p.at, time_at(row.then_minute)) << row.story;
        EXPECT_EQ(p.key, (PaymentKey{kA.tx_hash, kA.log_index})) << row.story;
        EXPECT_EQ(p.amount.value, 30) << row.story;
    }
}

TEST(ChargePayments, KeepsTheTokenAndAmountFirstSeenAndTheOrderFirstSeen) {
    const Payment b = payment(0xb2, 70);
    const Payment c = payment(0xc3, 5, Rail::transfer, 1, 0, kOtherToken);
    const ChargeState s = fold(std::vector{
        created(100), at(detected("tb", b), 1), at(detected("ta", kA), 2), at(failed("fc", c), 3),
        at(deposit("da", kA), 4), at(deposit("db", b), 5), at(paid("pb", b, 100), 6)});
    ASSERT_EQ(s.payments.size(), 3u);
    EXPECT_EQ(s.payments[0],
              (PaymentRecord{{b.tx_hash, 0}, kToken, TokenAmount{70}, P::confirmed, time_at(6)}));
    EXPECT_EQ(s.payments[1],
              (PaymentRecord{{kA.tx_hash, 0}, kToken, TokenAmount{30}, P::confirmed, time_at(4)}));
    EXPECT_EQ(
        s.payments[2],
        (PaymentRecord{{c.tx_hash, 0}, kOtherToken, TokenAmount{5}, P::wrong_token, time_at(3)}));
}

TEST(ChargePayments, PaymentsOfAnotherLogIndexAreTheirOwn) {
    Payment second = kA;
    second.log_index = 1;
    const ChargeState s =
        fold(std::vector{created(100), detected("t0", kA), detected("t1", second)});
    ASSERT_EQ(s.payments.size(), 2u);
    EXPECT_EQ(s.payments[0].key.log_index, 0u);
    EXPECT_EQ(s.payments[1].key.log_index, 1u);
}

TEST(ChargePayments, StateText) {
    EXPECT_EQ(to_string(P::seen), "seen");
    EXPECT_EQ(to_string(P::confirmed), "confirmed");
    EXPECT_EQ(to_string(P::late), "late");
    EXPECT_EQ(to_string(P::wrong_token), "wrong_token");
    EXPECT_EQ(to_string(P::reorged), "reorged");
}

}  // namespace
}  // namespace duepay::domain::charge
