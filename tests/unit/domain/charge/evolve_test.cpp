// Given events / when event / then state, story by story: payments that add up, reorgs, late
// deposits, refunds, duplicates, sums. Every status x every event type is evolve_matrix_test.cpp.
#include <gtest/gtest.h>

#include "domain/charge/charge_state.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;
using S = Status;
using X = Exception;

TEST(Charge, EventsBeforeCreatedAndForOtherInvoicesAreIgnored) {
    const Payment p = payment(1, 100);
    EXPECT_EQ(fold(std::vector{deposit("d1", p), expired()}), initial_state());
    Event other = deposit("d2", p);
    other.invoice_id = InvoiceId{bytes32(0x99)};
    const ChargeState s = fold(std::vector{created(100)});
    EXPECT_EQ(evolve(s, other), s);
    // and a created event for another invoice does not re-create the charge
    Event created2 = created(5, "c2");
    created2.invoice_id = InvoiceId{bytes32(0x99)};
    EXPECT_EQ(evolve(s, created2), s);
}

TEST(Charge, CreatedSetsAmountDueAndTimeline) {
    const ChargeState s = fold(std::vector{created(100)});
    EXPECT_TRUE(s.created);
    EXPECT_EQ(s.status, S::pending);
    EXPECT_EQ(s.amount_due.value, 100);
    ASSERT_EQ(s.timeline.size(), 1u);
    EXPECT_EQ(s.timeline[0].status, S::pending);
    EXPECT_EQ(s.timeline[0].at, "2026-11-21T22:00:00.000Z");
    EXPECT_EQ(s.timeline[0].tx_hash, "");
}

TEST(Charge, DuplicateIdsChangeNothingEvenWithOtherContent) {
    ChargeState s = fold(std::vector{created(100), deposit("d1", payment(1, 60))});
    // A re-emitted chain fact carries the same deterministic id.
    EXPECT_EQ(evolve(s, deposit("d1", payment(1, 60))), s);
    EXPECT_EQ(evolve(s, deposit("d1", payment(2, 60))), s);
    EXPECT_EQ(s.amount_confirmed.value, 60);
}

TEST(Charge, SamePaymentUnderAnotherIdCountsOnce) {
    // deposit_seen then the underpaid decision carrying the same deposit: 60, not 120.
    const Payment p = payment(1, 60);
    const ChargeState s = fold(std::vector{created(100), deposit("d1", p), underpaid("u1", p, 60)});
    EXPECT_EQ(s.amount_confirmed.value, 60);
    EXPECT_EQ(s.status, S::underpaid);
}

TEST(Charge, TransferDepositsAddUpAndTopUpPays) {
    const ChargeState s =
        fold(std::vector{created(100), detected("t1", payment(1, 30)),
                         deposit("d1", payment(1, 30)), underpaid("u1", payment(1, 30), 30),
                         detected("t2", payment(2, 30)), deposit("d2", payment(2, 30)),
                         underpaid("u2", payment(2, 30), 60), detected("t3", payment(3, 40)),
                         deposit("d3", payment(3, 40)), paid("p3", payment(3, 40), 100)});
    EXPECT_EQ(s.status, S::paid);
    EXPECT_EQ(s.exception, X::none);
    EXPECT_EQ(s.amount_confirmed.value, 100);
    EXPECT_EQ(s.amount_unconfirmed.value, 0);
    std::vector<Status> path;
    for (const auto& t : s.timeline) path.push_back(t.status);
    EXPECT_EQ(path, (std::vector<Status>{S::pending, S::confirming, S::underpaid, S::confirming,
                                         S::underpaid, S::confirming, S::paid}));
    EXPECT_EQ(s.timeline.back().tx_hash,
              "0x0003030303030303030303030303030303030303030303030303030303030303");
}

TEST(Charge, OverpaymentStaysPaid) {
    const ChargeState s = fold(std::vector{created(100), deposit("d1", payment(1, 150))});
    EXPECT_EQ(s.status, S::paid);
    EXPECT_EQ(s.exception, X::overpaid);
    EXPECT_EQ(s.amount_confirmed.value, 150);
}

TEST(Charge, ExactPaymentIsNotOverpaid) {
    const ChargeState s = fold(
        std::vector{created(100), deposit("d1", payment(1, 99)), deposit("d2", payment(2, 1))});
    EXPECT_EQ(s.status, S::paid);
    EXPECT_EQ(s.exception, X::none);
}

TEST(Charge, ReorgTakesAConfirmingPaymentBack) {
    const Payment p = payment(1, 100, Rail::wallet, 7);
    ChargeState s = fold(std::vector{created(100), detected("t1", p)});
    EXPECT_EQ(s.status, S::confirming);
    EXPECT_EQ(s.amount_unconfirmed.value, 100);
    s = evolve(s, reorged("r1", p));
    EXPECT_EQ(s.status, S::pending);
    EXPECT_EQ(s.amount_unconfirmed.value, 0);
    // Re-included in another block: detected again (new id, new block hash), then confirmed.
    const Payment again = payment(1, 100, Rail::wallet, 8, 1);
    s = evolve(s, detected("t1b", again));
    EXPECT_EQ(s.status, S::confirming);
    s = evolve(s, paid("p1", again, 100));
    EXPECT_EQ(s.status, S::paid);
}

TEST(Charge, ReorgBackToUnderpaidWhenConfirmedDepositsExist) {
    const Payment p2 = payment(2, 60, Rail::transfer, 9);
    const ChargeState s = fold(std::vector{created(100), deposit("d1", payment(1, 40)),
                                           detected("t2", p2), reorged("r2", p2)});
    EXPECT_EQ(s.status, S::underpaid);
    EXPECT_EQ(s.amount_confirmed.value, 40);
    EXPECT_EQ(s.amount_unconfirmed.value, 0);
}

TEST(Charge, ReorgOfAnOlderBlockDoesNotWithdrawTheNewDetection) {
    const Payment old_block = payment(1, 100, Rail::transfer, 7, 0);
    const Payment new_block =
        payment(1, 100, Rail::transfer, 7, 1);  // same tx, re-mined on the new fork
    const ChargeState s =
        fold(std::vector{created(100), detected("t-old", old_block), detected("t-new", new_block),
                         reorged("r-old", old_block)});
    EXPECT_EQ(s.status, S::confirming);
    EXPECT_EQ(s.amount_unconfirmed.value, 100);
}

TEST(Charge, LateDepositsAfterExpiry) {
    // 40 in time, then expired, then 60 late: the amount is complete, but late.
    ChargeState s = fold(std::vector{created(100), deposit("d1", payment(1, 40)), expired()});
    EXPECT_EQ(s.status, S::expired);
    EXPECT_EQ(s.exception, X::partial);
    s = evolve(s, late("l1", payment(2, 30)));
    EXPECT_EQ(s.status, S::expired);
    EXPECT_EQ(s.exception, X::partial);
    EXPECT_EQ(s.amount_late.value, 30);
    s = evolve(s, late("l2", payment(3, 30)));
    EXPECT_EQ(s.status, S::expired);
    EXPECT_EQ(s.exception, X::paid_late);
    EXPECT_EQ(s.amount_late.value, 60);
    EXPECT_EQ(s.amount_confirmed.value, 40);
}

TEST(Charge, DetectedThenLateMovesOutOfUnconfirmed) {
    const Payment p = payment(1, 100);
    const ChargeState s =
        fold(std::vector{created(100), expired(), detected("t1", p), late("l1", p)});
    EXPECT_EQ(s.status, S::expired);
    EXPECT_EQ(s.exception, X::paid_late);
    EXPECT_EQ(s.amount_unconfirmed.value, 0);
    EXPECT_EQ(s.amount_late.value, 100);
}

TEST(Charge, WrongTokenFailsAndIsRecorded) {
    const ChargeState s = fold(
        std::vector{created(100), failed("f1", payment(1, 7, Rail::transfer, 1, 0, kOtherToken))});
    EXPECT_EQ(s.status, S::failed);
    EXPECT_EQ(s.exception, X::wrong_token);
    EXPECT_EQ(s.amount_wrong_token.value, 7);
    EXPECT_EQ(s.amount_confirmed.value, 0);
}

TEST(Charge, RefundAndSettleBookkeeping) {
    ChargeState s = fold(std::vector{created(100), paid("p1", payment(1, 100, Rail::wallet), 100),
                                     settled("s1", 100)});
    EXPECT_TRUE(s.settled);
    EXPECT_EQ(s.amount_settled.value, 100);
    EXPECT_EQ(s.status, S::paid);
    s = evolve(s, refunded("r1", 100));
    EXPECT_EQ(s.status, S::refunded);
    EXPECT_EQ(s.amount_refunded.value, 100);
    EXPECT_EQ(s.timeline.back().tx_hash,
              "0x00efefefefefefefefefefefefefefefefefefefefefefefefefefefefefefef");
}

TEST(Charge, PartialRefundsAddUpToRefunded) {
    const std::string rf1 = "rf_" + std::string(24, '1');
    const std::string rf2 = "rf_" + std::string(24, '2');
    const std::string rf3 = "rf_" + std::string(24, '3');
    ChargeState s = fold(std::vector{created(100), paid("p1", payment(1, 100, Rail::wallet), 100),
                                     event(rf1, RefundRequested{rf1, bytes32(0xa1)}),
                                     event(rf2, RefundRequested{rf2, bytes32(0xa2)}),
                                     event(rf3, RefundRequested{rf3, bytes32(0xa3)})});
    ASSERT_EQ(s.refunds.size(), 3u);
    EXPECT_TRUE(refund_pending(s));
    EXPECT_EQ(s.refunds[0].requested_at, "2026-11-21T22:00:00.000Z");
    EXPECT_EQ(s.refunds[0].status, RefundStatus::pending);
    s = evolve(s, event("r1", ChargeRefunded{rf1, bytes32(0xa1), 3, 9, address(0x22), kToken,
                                             TokenAmount{60}}));
    EXPECT_EQ(s.status, S::paid);  // 60 of 100 given back: still paid
    EXPECT_EQ(s.amount_refunded.value, 60);
    EXPECT_EQ(refundable(s).value, 40);
    EXPECT_EQ(s.refunds[0].status, RefundStatus::succeeded);
    EXPECT_EQ(s.refunds[0].amount.value, 60);
    EXPECT_EQ(s.refunds[0].log_index, 3u);
    EXPECT_EQ(s.refunds[0].to, address(0x22));
    s = evolve(s, event("r2", RefundRejected{rf2, bytes32(0xa2), RefundRejection::wrong_sender}));
    EXPECT_EQ(s.refunds[1].status, RefundStatus::rejected);
    EXPECT_EQ(s.refunds[1].reason, RefundRejection::wrong_sender);
    EXPECT_EQ(s.amount_refunded.value, 60);
    // A verdict once given stays: a later refunded for the rejected id changes nothing.
    const auto before = s.amount_refunded;
    s = evolve(s, event("r2b", ChargeRefunded{rf2, bytes32(0xa2), 1, 9, address(0x22), kToken,
                                              TokenAmount{10}}));
    EXPECT_EQ(s.amount_refunded, before);
    s = evolve(s, event("r3", ChargeRefunded{rf3, bytes32(0xa3), 0, 9, address(0x22), kToken,
                                             TokenAmount{40}}));
    EXPECT_EQ(s.status, S::refunded);  // the refunds reached the 100 received
    EXPECT_EQ(s.amount_refunded.value, 100);
    EXPECT_EQ(refundable(s).value, 0);
    EXPECT_FALSE(refund_pending(s));
    // Final: a later deposit does not take it back to paid.
    s = evolve(s, deposit("d9", payment(9, 5)));
    EXPECT_EQ(s.status, S::refunded);
}

TEST(Charge, EvolveLeavesItsInputAlone) {
    const ChargeState s = fold(std::vector{created(100)});
    const ChargeState copy = s;
    (void)evolve(s, deposit("d1", payment(1, 100)));
    EXPECT_EQ(s, copy);
}

TEST(Charge, SumsSaturateInsteadOfWrapping) {
    ChargeState s = fold(std::vector{created(100)});
    Payment big = payment(1, 0);
    big.amount = TokenAmount{~uint256(0)};
    Payment big2 = payment(2, 0);
    big2.amount = TokenAmount{~uint256(0)};
    s = evolve(evolve(s, deposit("d1", big)), deposit("d2", big2));
    EXPECT_EQ(s.amount_confirmed.value, ~uint256(0));
    EXPECT_EQ(s.status, S::paid);
    EXPECT_EQ(s.exception, X::overpaid);
}

// ---- Resolutions (charge.exception_resolved, ADR 0230) ----

TEST(Charge, ResolutionRecordsWhoWhatWhenAndKeepsTheStatus) {
    using RX = ResolvedException;
    const Payment t40 = payment(1, 40);
    ChargeState s = fold(std::vector{created(100), deposit("d1", t40), underpaid("u1", t40, 40)});
    ASSERT_EQ(issues(s), (std::vector<Issue>{{RX::partial, ""}}));
    ASSERT_EQ(open_issue(s), (Issue{RX::partial, ""}));
    const auto before = s;
    s = evolve(s, resolved("r1", RX::partial, std::nullopt, "buyer pays the rest by bank",
                           wallet_actor(), "2026-11-22T10:00:00.000Z"));
    EXPECT_EQ(s.status, S::underpaid);
    EXPECT_EQ(s.exception, X::none);
    EXPECT_EQ(s.amount_confirmed, before.amount_confirmed);
    ASSERT_EQ(s.resolutions.size(), 1u);
    Resolution want;
    want.issue.exception = RX::partial;
    want.resolved_by = wallet_actor();
    want.note = "buyer pays the rest by bank";
    want.at = "2026-11-22T10:00:00.000Z";
    EXPECT_EQ(s.resolutions[0], want);
    EXPECT_EQ(resolution_of(s, {RX::partial, ""}), &s.resolutions[0]);
    EXPECT_FALSE(open_issue(s));
    ASSERT_EQ(s.timeline.size(), before.timeline.size() + 1);
    EXPECT_EQ(s.timeline.back().status, S::underpaid);
    EXPECT_EQ(s.timeline.back().at, "2026-11-22T10:00:00.000Z");
    EXPECT_EQ(s.timeline.back().tx_hash, "");
    EXPECT_EQ(s.timeline.back().resolution, want);
}

TEST(Charge, OnlyAnOpenIssueOfTheChargeIsResolved) {
    using RX = ResolvedException;
    const Payment t40 = payment(1, 40);
    const Payment t150 = payment(2, 150);
    const ChargeState under =
        fold(std::vector{created(100), deposit("d1", t40), underpaid("u1", t40, 40)});
    const ChargeState over = fold(std::vector{created(100), deposit("d2", t150)});
    const ChargeState pending = fold(std::vector{created(100)});
    auto without_ids = [](ChargeState x) {
        x.seen_event_ids.clear();
        return x;
    };
    struct Case {
        const char* name;
        const ChargeState& given;
        Event when;
        bool recorded;
    };
    const Case cases[] = {
        {"partial of an underpaid charge", under, resolved("a", RX::partial), true},
        {"overpaid of an underpaid charge (not its issue)", under, resolved("b", RX::overpaid),
         false},
        {"overpaid of an overpaid charge", over, resolved("c", RX::overpaid), true},
        {"partial of an overpaid charge", over, resolved("d", RX::partial), false},
        {"a refund that was never rejected", over,
         resolved("e", RX::refund_rejected, "rf_" + std::string(24, 'c')), false},
        {"nothing of a pending charge", pending, resolved("f", RX::partial), false},
    };
    for (const auto& c : cases) {
        const auto after = evolve(c.given, c.when);
        EXPECT_EQ(after.resolutions.size(), c.recorded ? 1u : 0u) << c.name;
        if (!c.recorded) {
            EXPECT_EQ(without_ids(after), without_ids(c.given)) << c.name;
        }
    }
}

TEST(Charge, ASecondResolutionOfTheSameIssueChangesNothing) {
    using RX = ResolvedException;
    const Payment t40 = payment(1, 40);
    // Two resolves that raced past decide: the first in the log wins.
    const ChargeState s =
        fold(std::vector{created(100), deposit("d1", t40), underpaid("u1", t40, 40),
                         resolved("r1", RX::partial, std::nullopt, "first"),
                         resolved("r2", RX::partial, std::nullopt, "second")});
    ASSERT_EQ(s.resolutions.size(), 1u);
    EXPECT_EQ(s.resolutions[0].note, "first");
    EXPECT_EQ(s.timeline.size(), 3u);  // pending, underpaid, the resolution
}

TEST(Charge, RejectedRefundsAreIssuesOfTheirOwn) {
    using RX = ResolvedException;
    const std::string rf1 = "rf_" + std::string(24, '1');
    const std::string rf2 = "rf_" + std::string(24, '2');
    const Payment w100 = payment(1, 100, Rail::wallet);
    auto asked = [](const std::string& rf) {
        return event(rf, RefundRequested{rf, bytes32(0xc1)});
    };
    auto rejected = [](const std::string& rf) {
        return event(rf + ":rejected",
                     RefundRejected{rf, bytes32(0xc1), RefundRejection::wrong_sender});
    };
    ChargeState s = fold(std::vector{created(100), paid("p1", w100, 100), asked(rf1), asked(rf2)});
    EXPECT_TRUE(issues(s).empty());  // pending requests are not issues
    s = evolve(evolve(s, rejected(rf1)), rejected(rf2));
    EXPECT_EQ(issues(s),
              (std::vector<Issue>{{RX::refund_rejected, rf1}, {RX::refund_rejected, rf2}}));
    s = evolve(s, resolved("r1", RX::refund_rejected, rf1));
    EXPECT_EQ(open_issue(s), (Issue{RX::refund_rejected, rf2}));
    s = evolve(s, resolved("r2", RX::refund_rejected, rf2));
    EXPECT_FALSE(open_issue(s));
    EXPECT_EQ(s.status, S::paid);
}

TEST(Charge, AFullRefundSettlesTheExceptionButNotARejectedRefund) {
    using RX = ResolvedException;
    const Payment t150 = payment(1, 150);
    ChargeState s = fold(std::vector{created(100), deposit("d1", t150)});
    EXPECT_EQ(issues(s), (std::vector<Issue>{{RX::overpaid, ""}}));
    s = evolve(s, refunded("ref-1", 150));
    EXPECT_EQ(s.status, S::refunded);
    EXPECT_EQ(s.exception, X::overpaid);  // kept, as docs/events.md says
    EXPECT_TRUE(issues(s).empty());
}

}  // namespace
}  // namespace duepay::domain::charge
