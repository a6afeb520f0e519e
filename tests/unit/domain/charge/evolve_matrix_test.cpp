// Given events / when event / then state, every cell: the matrix test walks EVERY status x EVERY
// event type with the expected outcome written in the table (the same table as docs/events.md).
// The stories of evolve (payments, reorgs, refunds, sums) are in evolve_test.cpp.
#include <gtest/gtest.h>

#include <set>
#include <string_view>
#include <utility>

#include "domain/charge/charge_state.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;
using S = Status;
using X = Exception;

constexpr std::uint64_t kDue = 100;

// A charge in each status (amount due 100). Payment A is the given payment; the "when" events
// use a new payment B.
std::vector<Event> given(Status status) {
    const Payment a100 = payment(0xa1, 100, Rail::wallet);
    const Payment a40 = payment(0xa1, 40);
    switch (status) {
        case S::pending:
            return {created(kDue)};
        case S::confirming:
            return {created(kDue), detected("det-a", a100)};
        case S::paid:
            return {created(kDue), paid("paid-a", a100, 100)};
        case S::underpaid:
            return {created(kDue), deposit("dep-a", a40), underpaid("under-a", a40, 40)};
        case S::expired:
            return {created(kDue), expired("exp-1")};
        case S::failed:
            return {created(kDue),
                    failed("fail-x", payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken))};
        case S::refunded:
            return {created(kDue), paid("paid-a", a100, 100), refunded("ref-1", 100)};
    }
    return {};
}

Event when(std::string_view type) {
    const Payment b30 = payment(0xb2, 30);
    const Payment a100 = payment(0xa1, 100, Rail::wallet);
    if (type == ChargeCreated::kType) return created(999, "created-again");
    if (type == PaymentDetected::kType) return detected("det-b", b30);
    if (type == DepositSeen::kType) return deposit("dep-b", b30);
    if (type == PaymentReorged::kType) return reorged("reorg-a", a100);
    if (type == ChargePaid::kType) return paid("paid-b", payment(0xb2, 100, Rail::wallet), 100);
    if (type == ChargeUnderpaid::kType) return underpaid("under-b", b30, 30);
    if (type == ChargeExpired::kType) return expired("exp-2");
    if (type == LateDeposit::kType) return late("late-b", b30);
    if (type == ChargeSettled::kType) return settled("settle-1", 100);
    if (type == ChargeRefunded::kType) return refunded("ref-2", 100);
    if (type == ChargeFailed::kType)
        return failed("fail-b", payment(0xb3, 5, Rail::transfer, 1, 0, kOtherToken));
    const std::string rf = "rf_" + std::string(24, '7');
    if (type == RefundRequested::kType) return event(rf, RefundRequested{rf, bytes32(0xc1)});
    if (type == RefundRejected::kType)
        return event(rf + ":rejected",
                     RefundRejected{rf, bytes32(0xc1), RefundRejection::not_found});
    if (type == ExceptionResolved::kType) return resolved("res-1", ResolvedException::partial);
    ADD_FAILURE() << "no example for " << type;
    return created(1);
}

struct Cell {
    Status given;
    std::string_view when;
    Status then;
    Exception exception;
    bool ignored;  // nothing but (at most) the seen id changes
};

// clang-format off
const Cell kMatrix[] = {
    // given pending (nothing received)
    {S::pending, "charge.created",          S::pending,    X::none,        true},
    {S::pending, "charge.payment_detected", S::confirming, X::none,        false},
    {S::pending, "charge.deposit_seen",     S::underpaid,  X::none,        false},
    {S::pending, "charge.payment_reorged",  S::pending,    X::none,        true},   // nothing detected to withdraw
    {S::pending, "charge.paid",             S::paid,       X::none,        false},
    {S::pending, "charge.underpaid",        S::underpaid,  X::none,        false},
    {S::pending, "charge.expired",          S::expired,    X::none,        false},
    {S::pending, "charge.late_deposit",     S::pending,    X::none,        false},  // recorded; not expired yet
    {S::pending, "charge.settled",          S::pending,    X::none,        false},  // settled flag only
    {S::pending, "charge.refunded",         S::pending,    X::none,        true},   // no funds to refund
    {S::pending, "charge.failed",           S::failed,     X::wrong_token, false},
    {S::pending, "charge.refund_requested", S::pending, X::none, false},  // the request is on record
    {S::pending, "charge.refund_rejected",  S::pending, X::none, true},   // nothing requested to reject
    {S::pending, "charge.exception_resolved", S::pending, X::none, true},  // nothing to resolve
    // given confirming (A = 100 detected, unconfirmed)
    {S::confirming, "charge.created",          S::confirming, X::none,        true},
    {S::confirming, "charge.payment_detected", S::confirming, X::none,        false},
    {S::confirming, "charge.deposit_seen",     S::confirming, X::none,        false},  // 30 confirmed, A still pending
    {S::confirming, "charge.payment_reorged",  S::pending,    X::none,        false},  // A withdrawn
    {S::confirming, "charge.paid",             S::paid,       X::none,        false},
    {S::confirming, "charge.underpaid",        S::confirming, X::none,        false},
    {S::confirming, "charge.expired",          S::expired,    X::none,        false},
    {S::confirming, "charge.late_deposit",     S::confirming, X::none,        false},
    {S::confirming, "charge.settled",          S::confirming, X::none,        false},
    {S::confirming, "charge.refunded",         S::confirming, X::none,        true},   // unconfirmed funds do not count
    {S::confirming, "charge.failed",           S::failed,     X::wrong_token, false},
    {S::confirming, "charge.refund_requested", S::confirming, X::none, false},  // the request is on record
    {S::confirming, "charge.refund_rejected",  S::confirming, X::none, true},   // nothing requested to reject
    {S::confirming, "charge.exception_resolved", S::confirming, X::none, true},  // nothing to resolve
    // given paid (A = 100 confirmed, wallet rail)
    {S::paid, "charge.created",          S::paid,     X::none,        true},
    {S::paid, "charge.payment_detected", S::paid,     X::none,        false},  // amount_unconfirmed shows it
    {S::paid, "charge.deposit_seen",     S::paid,     X::overpaid,    false},
    {S::paid, "charge.payment_reorged",  S::paid,     X::none,        true},   // confirmed payments are final
    {S::paid, "charge.paid",             S::paid,     X::overpaid,    false},
    {S::paid, "charge.underpaid",        S::paid,     X::overpaid,    false},
    {S::paid, "charge.expired",          S::paid,     X::none,        false},  // paid ignores expiry (flag only)
    {S::paid, "charge.late_deposit",     S::paid,     X::overpaid,    false},
    {S::paid, "charge.settled",          S::paid,     X::none,        false},
    {S::paid, "charge.refunded",         S::refunded, X::none,        false},
    {S::paid, "charge.failed",           S::paid,     X::wrong_token, false},  // stray token recorded
    {S::paid, "charge.refund_requested", S::paid, X::none, false},  // the request is on record
    {S::paid, "charge.refund_rejected",  S::paid, X::none, true},   // nothing requested to reject
    {S::paid, "charge.exception_resolved", S::paid, X::none, true},  // nothing to resolve
    // given underpaid (A = 40 of 100 confirmed)
    {S::underpaid, "charge.created",          S::underpaid,  X::none,        true},
    {S::underpaid, "charge.payment_detected", S::confirming, X::none,        false},
    {S::underpaid, "charge.deposit_seen",     S::underpaid,  X::none,        false},  // 70 of 100
    {S::underpaid, "charge.payment_reorged",  S::underpaid,  X::none,        true},
    {S::underpaid, "charge.paid",             S::paid,       X::overpaid,    false},  // 140 of 100
    {S::underpaid, "charge.underpaid",        S::underpaid,  X::none,        false},
    {S::underpaid, "charge.expired",          S::expired,    X::partial,     false},
    {S::underpaid, "charge.late_deposit",     S::underpaid,  X::none,        false},
    {S::underpaid, "charge.settled",          S::underpaid,  X::none,        false},
    {S::underpaid, "charge.refunded",         S::refunded,   X::none,        false},
    {S::underpaid, "charge.failed",           S::failed,     X::wrong_token, false},
    {S::underpaid, "charge.refund_requested", S::underpaid, X::none, false},  // the request is on record
    {S::underpaid, "charge.refund_rejected",  S::underpaid, X::none, true},   // nothing requested to reject
    {S::underpaid, "charge.exception_resolved", S::underpaid, X::none, false},  // partial resolved, status kept
    // given expired (nothing received)
    {S::expired, "charge.created",          S::expired, X::none,        true},
    {S::expired, "charge.payment_detected", S::expired, X::none,        false},  // becomes a late deposit later
    {S::expired, "charge.deposit_seen",     S::expired, X::partial,     false},
    {S::expired, "charge.payment_reorged",  S::expired, X::none,        true},
    {S::expired, "charge.paid",             S::paid,    X::none,        false},  // confirmed in-window payment wins
    {S::expired, "charge.underpaid",        S::expired, X::partial,     false},
    {S::expired, "charge.expired",          S::expired, X::none,        true},
    {S::expired, "charge.late_deposit",     S::expired, X::partial,     false},
    {S::expired, "charge.settled",          S::expired, X::none,        false},
    {S::expired, "charge.refunded",         S::expired, X::none,        true},   // no funds to refund
    {S::expired, "charge.failed",           S::failed,  X::wrong_token, false},
    {S::expired, "charge.refund_requested", S::expired, X::none, false},  // the request is on record
    {S::expired, "charge.refund_rejected",  S::expired, X::none, true},   // nothing requested to reject
    {S::expired, "charge.exception_resolved", S::expired, X::none, true},  // nothing received: nothing to resolve
    // given failed (5 of another token received)
    {S::failed, "charge.created",          S::failed,   X::wrong_token, true},
    {S::failed, "charge.payment_detected", S::failed,   X::wrong_token, false},
    {S::failed, "charge.deposit_seen",     S::failed,   X::wrong_token, false},
    {S::failed, "charge.payment_reorged",  S::failed,   X::wrong_token, true},
    {S::failed, "charge.paid",             S::paid,     X::wrong_token, false},  // a full valid payment still pays
    {S::failed, "charge.underpaid",        S::failed,   X::wrong_token, false},
    {S::failed, "charge.expired",          S::failed,   X::wrong_token, false},
    {S::failed, "charge.late_deposit",     S::failed,   X::wrong_token, false},
    {S::failed, "charge.settled",          S::failed,   X::wrong_token, false},
    {S::failed, "charge.refunded",         S::refunded, X::wrong_token, false},
    {S::failed, "charge.failed",           S::failed,   X::wrong_token, false},
    {S::failed, "charge.refund_requested", S::failed, X::wrong_token, false},  // the request is on record
    {S::failed, "charge.refund_rejected",  S::failed, X::wrong_token, true},   // nothing requested to reject
    {S::failed, "charge.exception_resolved", S::failed, X::wrong_token, true},  // its issue is wrong_token, not partial
    // given refunded (A = 100 paid, then refunded): terminal
    {S::refunded, "charge.created",          S::refunded, X::none,        true},
    {S::refunded, "charge.payment_detected", S::refunded, X::none,        false},
    {S::refunded, "charge.deposit_seen",     S::refunded, X::overpaid,    false},
    {S::refunded, "charge.payment_reorged",  S::refunded, X::none,        true},
    {S::refunded, "charge.paid",             S::refunded, X::overpaid,    false},
    {S::refunded, "charge.underpaid",        S::refunded, X::overpaid,    false},
    {S::refunded, "charge.expired",          S::refunded, X::none,        false},
    {S::refunded, "charge.late_deposit",     S::refunded, X::overpaid,    false},
    {S::refunded, "charge.settled",          S::refunded, X::none,        false},
    {S::refunded, "charge.refunded",         S::refunded, X::none,        false},  // a second refund adds up
    {S::refunded, "charge.failed",           S::refunded, X::wrong_token, false},
    {S::refunded, "charge.refund_requested", S::refunded, X::none, false},  // the request is on record
    {S::refunded, "charge.refund_rejected",  S::refunded, X::none, true},   // nothing requested to reject
    {S::refunded, "charge.exception_resolved", S::refunded, X::none, true},  // nothing to resolve
};
// clang-format on

ChargeState without_ids(ChargeState s) {
    s.seen_event_ids.clear();
    return s;
}

TEST(ChargeMatrix, GivenStatesHaveTheirStatus) {
    for (Status s : kAllStatuses) EXPECT_EQ(fold(given(s)).status, s) << to_string(s);
}

TEST(ChargeMatrix, CoversEveryStatusTimesEveryEventType) {
    std::set<std::pair<Status, std::string_view>> cells;
    for (const auto& c : kMatrix)
        EXPECT_TRUE(cells.emplace(c.given, c.when).second) << "duplicate cell";
    for (Status s : kAllStatuses)
        for (auto t : kEventTypes)
            EXPECT_TRUE(cells.contains({s, t})) << to_string(s) << " x " << t;
    EXPECT_EQ(cells.size(), std::size(kAllStatuses) * std::size(kEventTypes));
}

TEST(ChargeMatrix, EveryCellHasItsDocumentedOutcome) {
    for (const auto& c : kMatrix) {
        const ChargeState before = fold(given(c.given));
        const ChargeState after = evolve(before, when(c.when));
        const std::string cell = std::string(to_string(c.given)) + " x " + std::string(c.when);
        EXPECT_EQ(after.status, c.then) << cell << " -> " << to_string(after.status);
        EXPECT_EQ(after.exception, c.exception) << cell << " -> " << to_string(after.exception);
        if (c.ignored) {
            EXPECT_EQ(without_ids(after), without_ids(before)) << cell << " should change nothing";
        } else {
            EXPECT_NE(without_ids(after), without_ids(before)) << cell << " should be recorded";
        }
        // The same event again is a duplicate: nothing at all changes.
        EXPECT_EQ(evolve(after, when(c.when)), after) << cell << " twice";
        // A status change is on the timeline with the event's time, and so is a resolution (its
        // status unchanged).
        const bool resolution = c.when == ExceptionResolved::kType && !c.ignored;
        if (after.status != before.status || resolution) {
            ASSERT_EQ(after.timeline.size(), before.timeline.size() + 1) << cell;
            EXPECT_EQ(after.timeline.back().status, c.then);
            EXPECT_EQ(after.timeline.back().resolution.has_value(), resolution) << cell;
        } else {
            EXPECT_EQ(after.timeline, before.timeline) << cell;
        }
    }
}

}  // namespace
}  // namespace duepay::domain::charge
