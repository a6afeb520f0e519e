// What an applied event adds to the stats (domain/reports/stats_delta.hpp), table by table:
// given the charge's events so far, when one more event, then the delta; then the sums of a
// batch (StatsRows) and the fiat rounding.
#include "domain/reports/stats_delta.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/reports/paid_time.hpp"
#include "domain/reports/settlement.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::reports {
namespace {

using namespace duepay::domain::charge::facts;
using charge::ChargeState;
using charge::Status;

Event at(Event e, std::string when) {
    e.occurred_at = std::move(when);
    return e;
}

const std::string kDay = "2026-11-21";

ChargeTerms terms() { return *terms_of(created(100)); }

// The delta of `when` on the fold of `given`.
StatsDelta delta_of(const std::vector<Event>& given, const Event& when,
                    const ChargeTerms& t = terms()) {
    const ChargeState before = charge::fold(given);
    return stats_delta(t, before, when, charge::evolve(before, when));
}

struct Row {
    const char* name;
    std::vector<Event> given;
    Event when;
    StatsDelta then;
};

StatsDelta expect(std::optional<Status> left, std::optional<Status> entered, int payments = 0,
                  int paid = 0) {
    StatsDelta d;
    d.day = kDay;
    d.left = left;
    d.entered = entered;
    d.payments = payments;
    d.paid = paid;
    return d;
}

TEST(StatsDelta, StatusAndPaymentTable) {
    const Payment p1 = payment(1, 60);
    const Payment p2 = payment(2, 40);
    const Payment wallet = payment(3, 100, Rail::wallet);
    StatsDelta created_delta = expect(std::nullopt, Status::pending);
    created_delta.created = true;
    StatsDelta paid_by_top_up = expect(Status::confirming, Status::paid, 1, 40);
    paid_by_top_up.converted_day = kDay;
    paid_by_top_up.seconds_to_paid = 0;
    StatsDelta paid_by_wallet = expect(Status::pending, Status::paid, 1, 100);
    paid_by_wallet.converted_day = kDay;
    paid_by_wallet.seconds_to_paid = 0;
    const Row rows[] = {
        {"created", {}, created(100), created_delta},
        {"detected: enters confirming, no volume",
         {created(100)},
         detected("t1", p1),
         expect(Status::pending, Status::confirming)},
        {"deposit confirmed below the amount: underpaid, 60 paid",
         {created(100), detected("t1", p1)},
         deposit("d1", p1),
         expect(Status::confirming, Status::underpaid, 1, 60)},
        {"the underpaid decision naming the same deposit adds nothing",
         {created(100), deposit("d1", p1)},
         underpaid("u1", p1, 60),
         expect(std::nullopt, std::nullopt)},
        {"a top-up that pays",
         {created(100), deposit("d1", p1), detected("t2", p2)},
         deposit("d2", p2),
         paid_by_top_up},
        {"charge.paid on the wallet rail", {created(100)}, paid("w1", wallet, 100), paid_by_wallet},
        {"a reorg back to pending: a status change, no volume",
         {created(100), detected("t1", p1)},
         reorged("r1", p1),
         expect(Status::confirming, Status::pending)},
        {"expired", {created(100)}, expired(), expect(Status::pending, Status::expired)},
        {"a late deposit counts as paid volume, the status stays expired",
         {created(100), expired()},
         late("l1", p1),
         expect(std::nullopt, std::nullopt, 1, 60)},
        {"a wrong-token deposit is no volume of the charge's token",
         {created(100)},
         failed("f1", payment(4, 50, Rail::transfer, 1, 0, kOtherToken)),
         expect(Status::pending, Status::failed)},
        {"a duplicate id adds nothing",
         {created(100), deposit("d1", p1)},
         deposit("d1", p1),
         expect(std::nullopt, std::nullopt)},
        {"a fact before charge.created adds nothing",
         {},
         deposit("d1", p1),
         expect(std::nullopt, std::nullopt)},
        {"a second charge.created adds nothing",
         {created(100)},
         created(100, "again"),
         expect(std::nullopt, std::nullopt)},
        {"settled: nothing",
         {created(100), deposit("d1", payment(1, 100))},
         settled("s1", 100),
         expect(std::nullopt, std::nullopt)},
    };
    for (const auto& r : rows) EXPECT_EQ(delta_of(r.given, r.when), r.then) << r.name;
}

TEST(StatsDelta, RefundTable) {
    const auto base = std::vector{created(100), deposit("d1", payment(1, 100))};
    StatsDelta partial = expect(std::nullopt, std::nullopt);
    partial.refunds = 1;
    partial.refunded = 30;
    EXPECT_EQ(delta_of(base, refunded("rf1", 30)), partial);
    StatsDelta full = expect(Status::paid, Status::refunded);
    full.refunds = 1;
    full.refunded = 70;
    auto after_partial = base;
    after_partial.push_back(refunded("rf1", 30));
    EXPECT_EQ(delta_of(after_partial, refunded("rf2", 70)), full);
    // The same refund reported again (another event id, same refund id): nothing more.
    Event again = refunded("rf1", 30);
    again.id = "rf1-again";
    EXPECT_EQ(delta_of(after_partial, again), expect(std::nullopt, std::nullopt));
    // Nothing received, nothing to refund: no refund counted.
    EXPECT_EQ(delta_of({created(100)}, refunded("rf3", 10)), expect(std::nullopt, std::nullopt));
}

// The overview's volume is the settlement report's rows: over a whole history (payments on time
// and late, a reorged deposit, a refund in two parts and one reported twice) the deltas count
// exactly the rows of settlement_entries, in number and in amount.
TEST(StatsDelta, CountsTheSettlementReportsRows) {
    Event again = refunded("rf1", 30);
    again.id = "rf1-again";
    const std::vector<Event> history{created(100),
                                     detected("s1", payment(1, 60)),
                                     reorged("r1", payment(1, 60)),
                                     deposit("d1", payment(2, 60)),
                                     paid("p1", payment(3, 40), 100),
                                     late("l1", payment(4, 25)),
                                     refunded("rf1", 30),
                                     again,
                                     refunded("rf2", 70)};
    ChargeState state = charge::initial_state();
    StatsDelta sum;
    for (const auto& e : history) {
        const ChargeState before = state;
        charge::apply(state, e);
        const auto d = stats_delta(terms(), before, e, state);
        sum.payments += d.payments;
        sum.paid += d.paid;
        sum.refunds += d.refunds;
        sum.refunded += d.refunded;
    }
    StatsDelta rows;
    for (const auto& row : settlement_entries(history)) {
        const bool payment_row = row.kind == RowKind::payment;
        (payment_row ? rows.payments : rows.refunds) += 1;
        (payment_row ? rows.paid : rows.refunded) += BigInt(row.amount.value);
    }
    EXPECT_EQ(sum.payments, rows.payments);
    EXPECT_EQ(sum.paid, rows.paid);
    EXPECT_EQ(sum.refunds, rows.refunds);
    EXPECT_EQ(sum.refunded, rows.refunded);
    // The history has rows of both kinds, and the late payment among them.
    EXPECT_EQ(rows.payments, 3);
    EXPECT_EQ(rows.paid, 125);
    EXPECT_EQ(rows.refunds, 2);
    EXPECT_EQ(rows.refunded, 100);
}

TEST(StatsDelta, DaysAndTimeToPaid) {
    // Created on the 21st, paid 90 s after midnight on the 22nd: the volume and the paid status
    // count on the 22nd, the conversion on the 21st, 9,090 s from creation to paid.
    const Event c = at(created(100), "2026-11-21T23:30:00.000Z");
    const Event p = at(paid("p", payment(1, 100, Rail::wallet), 100), "2026-11-22T00:01:30.999Z");
    const auto d = delta_of({c}, p);
    EXPECT_EQ(d.day, "2026-11-22");
    EXPECT_EQ(d.converted_day, "2026-11-21");
    EXPECT_EQ(d.seconds_to_paid, 1890);
    // A paid event stamped before the creation (two roles' clocks): 0 s, not negative.
    const Event early =
        at(paid("p", payment(1, 100, Rail::wallet), 100), "2026-11-21T23:29:59.000Z");
    EXPECT_EQ(delta_of({c}, early).seconds_to_paid, 0);
}

TEST(StatsDelta, FiatAtTheQuotedRate) {
    ChargeTerms t = terms();  // USDT, 6 decimals
    events::FiatQuote q;
    q.amount = money::FiatAmount{money::FiatCurrency::THB, 3500};
    q.rate = *money::parse_rate("35.12");  // THB per USDT
    t.fiat = q;
    // 1.000001 USDT at 35.12 = 35.12003512 THB -> 3512 satang; 0.5 USDT -> 17.56 THB.
    auto d = delta_of({created(100)}, deposit("d1", payment(1, 1'000'001)), t);
    EXPECT_EQ(d.paid_fiat, 3512);
    d = delta_of({created(2'000'000)}, deposit("d1", payment(1, 500'000)), t);
    EXPECT_EQ(d.paid_fiat, 1756);
    // Without a quote: no fiat.
    EXPECT_EQ(delta_of({created(100)}, deposit("d1", payment(1, 100))).paid_fiat, 0);
}

TEST(StatsRows, SumsABatchPerKey) {
    const ChargeTerms t = terms();
    StatsRows rows;
    ChargeState s = charge::initial_state();
    const Event c = at(created(100), "2026-11-21T10:00:00.000Z");
    const Payment p1 = payment(1, 60);
    const Payment p2 = payment(2, 40);
    for (const auto& e :
         {c, at(deposit("d1", p1), "2026-11-21T10:00:05.000Z"),
          at(deposit("d2", p2), "2026-11-22T10:00:10.000Z"),
          at(deposit("d2", p2), "2026-11-22T10:00:11.000Z")}) {  // the duplicate adds nothing
        apply_counting(s, t, e, rows);
    }
    EXPECT_EQ(s.status, Status::paid);
    ASSERT_EQ(rows.daily.size(), 2u);
    const DailyKey day1{"prj_test", events::Mode::test, "2026-11-21", ChainId{80002}, kToken, {}};
    auto day2 = day1;
    day2.day = "2026-11-22";
    const auto& r1 = rows.daily.at(day1);
    EXPECT_EQ(r1.token_symbol, "USDT");
    EXPECT_EQ(r1.token_decimals, 6u);
    EXPECT_EQ(r1.created, 1);
    EXPECT_EQ(r1.converted, 1);  // created on the 21st, paid on the 22nd
    EXPECT_EQ(r1.entered[static_cast<std::size_t>(Status::pending)], 1);
    EXPECT_EQ(r1.entered[static_cast<std::size_t>(Status::underpaid)], 1);
    EXPECT_EQ(r1.payments, 1);
    EXPECT_EQ(r1.paid, 60);
    const auto& r2 = rows.daily.at(day2);
    EXPECT_EQ(r2.created, 0);
    EXPECT_EQ(r2.converted, 0);
    EXPECT_EQ(r2.entered[static_cast<std::size_t>(Status::paid)], 1);
    EXPECT_EQ(r2.paid, 40);
    // One paid charge, 86,410 s after its creation, on the day it was paid.
    ASSERT_EQ(rows.paid_time.size(), 1u);
    EXPECT_EQ(rows.paid_time.begin()->first.day, "2026-11-22");
    EXPECT_EQ(rows.paid_time.begin()->first.bucket, paid_time_bucket(86'410));
    EXPECT_EQ(rows.paid_time.begin()->second, 1);
    // The current counts moved pending -> underpaid -> paid: +1 paid, 0 elsewhere.
    const auto count = [&](Status st) {
        const auto it = rows.statuses.find({"prj_test", events::Mode::test, st});
        return it == rows.statuses.end() ? 0 : it->second;
    };
    EXPECT_EQ(count(Status::paid), 1);
    EXPECT_EQ(count(Status::pending), 0);
    EXPECT_EQ(count(Status::underpaid), 0);
}

TEST(StatsRows, FiatChargesHaveRowsOfTheirCurrency) {
    ChargeTerms t = terms();
    StatsRows rows;
    rows.add(t, delta_of({}, created(100)));
    events::FiatQuote q;
    q.amount = money::FiatAmount{money::FiatCurrency::USD, 100};
    t.fiat = q;
    rows.add(t, delta_of({}, created(100)));
    ASSERT_EQ(rows.daily.size(), 2u);
    EXPECT_FALSE(rows.daily.begin()->first.currency.has_value());
    EXPECT_EQ(rows.daily.rbegin()->first.currency, money::FiatCurrency::USD);
    EXPECT_EQ(terms_of(deposit("d", payment(1, 1))), std::nullopt);
}

}  // namespace
}  // namespace duepay::domain::reports
