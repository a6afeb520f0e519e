// The replay's in-memory fold (ChargeMemory): folding a charge's events over several batches
// gives the row project_charge gives for the whole journal; a charge it does not hold is folded
// once from its journal (a resume), staged states follow keep/discard, eviction reloads; a row
// is new only in the fold that brings the charge.created (the replay COPYs those, ADR 0200).
#include "projections/charges/charge_memory.hpp"

#include <gtest/gtest.h>

#include <set>

#include "domain/hex.hpp"
#include "projections/charges/charge_projection.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::projections::charges {
namespace {

namespace ev = domain::events;
namespace ex = domain::events::examples;

// Every example event type once, as a journal holds them: one row per event id.
std::vector<ev::Event> journal_of_one_charge() {
    std::vector<ev::Event> out;
    std::set<std::string> ids;
    for (auto& e : ex::all()) {
        if (ids.insert(e.id).second) out.push_back(std::move(e));
    }
    return out;
}

std::vector<const ev::Event*> pointers(std::span<const ev::Event> events) {
    std::vector<const ev::Event*> out;
    for (const auto& e : events) out.push_back(&e);
    return out;
}

// A loader that must not be called.
ChargeEvents no_load(const std::vector<std::string>& ids) {
    ADD_FAILURE() << "loaded " << ids.size() << " charges";
    return {};
}

TEST(ChargeMemory, FoldingInBatchesGivesTheRowOfTheWholeJournal) {
    const auto journal = journal_of_one_charge();
    ASSERT_GE(journal.size(), 6u);
    const auto expected = project_charge(journal);
    ASSERT_TRUE(expected.has_value());
    for (std::size_t cut = 1; cut < journal.size(); ++cut) {
        ChargeMemory memory(true);
        const std::span<const ev::Event> all(journal);
        auto first = memory.fold(pointers(all.first(cut)), no_load);
        memory.keep();
        // The fold that brings the charge.created makes a new row; later folds update it.
        EXPECT_TRUE(first.rows.empty());
        ASSERT_EQ(first.new_rows.size(), 1u);
        EXPECT_EQ(first.new_rows[0], *project_charge(all.first(cut))) << "cut " << cut;
        auto second = memory.fold(pointers(all.subspan(cut)), no_load);
        memory.keep();
        EXPECT_TRUE(second.new_rows.empty());
        ASSERT_EQ(second.rows.size(), 1u);
        EXPECT_EQ(second.rows[0], *expected) << "cut " << cut;
        EXPECT_EQ(second.rows[0].event_count, static_cast<int>(journal.size()));
    }
}

TEST(ChargeMemory, AChargeItDoesNotHoldIsFoldedFromItsJournalOnceThenKept) {
    const auto journal = journal_of_one_charge();
    const std::span<const ev::Event> all(journal);
    const auto id = domain::to_hex(journal[0].invoice_id);
    ChargeMemory memory(false);  // a resume: the journal holds the first three already
    int loads = 0;
    // The loader sees the journal as the transaction does: the new events are journaled too.
    auto first = memory.fold(pointers(all.subspan(3, 2)), [&](const auto& ids) {
        ++loads;
        EXPECT_EQ(ids, std::vector<std::string>{id});
        return ChargeEvents{{id, {journal.begin(), journal.begin() + 5}}};
    });
    memory.keep();
    EXPECT_TRUE(first.new_rows.empty());  // its charge.created was journaled before
    ASSERT_EQ(first.rows.size(), 1u);
    EXPECT_EQ(first.rows[0], *project_charge(all.first(5)));
    auto rest = memory.fold(pointers(all.subspan(5)), no_load);
    memory.keep();
    EXPECT_EQ(loads, 1);
    EXPECT_EQ(memory.loaded(), 1u);
    ASSERT_EQ(rest.rows.size(), 1u);
    EXPECT_EQ(rest.rows[0], *project_charge(all));
}

// The sums of two batches' stats (what two upserts leave in the tables).
domain::reports::StatsRows merged(domain::reports::StatsRows a,
                                  const domain::reports::StatsRows& b) {
    for (const auto& [k, c] : b.daily) {
        auto& r = a.daily[k];
        r.token_symbol = c.token_symbol;
        r.token_decimals = c.token_decimals;
        r.created += c.created;
        r.converted += c.converted;
        for (std::size_t i = 0; i < r.entered.size(); ++i) r.entered[i] += c.entered[i];
        r.payments += c.payments;
        r.paid += c.paid;
        r.paid_fiat += c.paid_fiat;
        r.refunds += c.refunds;
        r.refunded += c.refunded;
        r.refunded_fiat += c.refunded_fiat;
    }
    for (const auto& [k, n] : b.paid_time) a.paid_time[k] += n;
    for (const auto& [k, n] : b.statuses) a.statuses[k] += n;
    std::erase_if(a.statuses, [](const auto& e) { return e.second == 0; });
    return a;
}

domain::reports::StatsRows without_zero_statuses(domain::reports::StatsRows r) {
    std::erase_if(r.statuses, [](const auto& e) { return e.second == 0; });
    return r;
}

// The stats of a charge's events counted over several batches, or after a resume that folds the
// charge from its journal, are the stats of counting every event once (ADR 0245).
TEST(ChargeMemory, StatsOverBatchesAndAfterAResumeCountEachEventOnce) {
    const auto journal = journal_of_one_charge();
    const std::span<const ev::Event> all(journal);
    domain::reports::StatsRows whole;
    ASSERT_TRUE(project_charge(
                    all, [](const ev::Event&) { return true; }, whole)
                    .has_value());
    ASSERT_FALSE(whole.daily.empty());
    whole = without_zero_statuses(whole);
    for (std::size_t cut = 1; cut < journal.size(); ++cut) {
        ChargeMemory memory(true);
        auto first = memory.fold(pointers(all.first(cut)), no_load);
        memory.keep();
        auto second = memory.fold(pointers(all.subspan(cut)), no_load);
        memory.keep();
        EXPECT_EQ(merged(first.stats, second.stats), whole) << "cut " << cut;
    }
    // A resume: the first three were counted by the run that journaled them; the memory loads
    // the journal (five events, two of them fresh) and counts only the fresh ones.
    domain::reports::StatsRows before_resume;
    const auto first_three = std::set<std::string>{journal[0].id, journal[1].id, journal[2].id};
    ASSERT_TRUE(project_charge(
                    all.first(3), [&](const ev::Event& e) { return first_three.contains(e.id); },
                    before_resume)
                    .has_value());
    ChargeMemory memory(false);
    const auto id = domain::to_hex(journal[0].invoice_id);
    auto resumed = memory.fold(pointers(all.subspan(3, 2)), [&](const auto&) {
        return ChargeEvents{{id, {journal.begin(), journal.begin() + 5}}};
    });
    memory.keep();
    auto rest = memory.fold(pointers(all.subspan(5)), no_load);
    EXPECT_EQ(merged(merged(before_resume, resumed.stats), rest.stats), whole);
    // The live projector's re-fold from the journal counts only the events `fresh` names.
    domain::reports::StatsRows live;
    project_charge(
        all, [&](const ev::Event& e) { return !first_three.contains(e.id); }, live);
    EXPECT_EQ(merged(before_resume, live), whole);
}

TEST(ChargeMemory, AChargeLoadedWithItsChargeCreatedAmongTheFreshEventsIsANewRow) {
    // A memory that is not complete (a resume, an eviction) meets a charge whose first events are
    // this fold's: the loader returns them (journaled just before), and the row is new.
    const auto journal = journal_of_one_charge();
    const std::span<const ev::Event> all(journal);
    const auto id = domain::to_hex(journal[0].invoice_id);
    ChargeMemory memory(false);
    auto first = memory.fold(pointers(all.first(3)), [&](const auto&) {
        return ChargeEvents{{id, {journal.begin(), journal.begin() + 3}}};
    });
    memory.keep();
    EXPECT_TRUE(first.rows.empty());
    ASSERT_EQ(first.new_rows.size(), 1u);
    EXPECT_EQ(first.new_rows[0], *project_charge(all.first(3)));
    auto rest = memory.fold(pointers(all.subspan(3)), no_load);
    memory.keep();
    EXPECT_TRUE(rest.new_rows.empty());
    ASSERT_EQ(rest.rows.size(), 1u);
    EXPECT_EQ(rest.rows[0], *project_charge(all));
}

TEST(ChargeMemory, DiscardDropsWhatASavepointRolledBack) {
    const auto journal = journal_of_one_charge();
    const std::span<const ev::Event> all(journal);
    ChargeMemory memory(true);
    memory.fold(pointers(all.first(2)), no_load);
    memory.keep();
    memory.fold(pointers(all.subspan(2, 1)), no_load);  // rolled back: never journaled
    memory.discard();
    auto again = memory.fold(pointers(all.subspan(3)), no_load);
    memory.keep();
    EXPECT_TRUE(again.new_rows.empty());
    std::vector<ev::Event> applied(journal.begin(), journal.begin() + 2);
    applied.insert(applied.end(), journal.begin() + 3, journal.end());
    ASSERT_EQ(again.rows.size(), 1u);
    EXPECT_EQ(again.rows[0], *project_charge(applied));
    EXPECT_EQ(again.rows[0].event_count, static_cast<int>(applied.size()));
}

TEST(ChargeMemory, EventsBeforeTheChargeCreatedDeferTheRow) {
    const auto journal = journal_of_one_charge();
    const std::span<const ev::Event> all(journal);
    ChargeMemory memory(true);
    const auto orphan = memory.fold(pointers(all.subspan(1, 2)), no_load);
    memory.keep();
    EXPECT_TRUE(orphan.rows.empty());
    EXPECT_EQ(orphan.deferred, std::vector<std::string>{domain::to_hex(journal[0].invoice_id)});
    std::vector<ev::Event> in_log_order(journal.begin() + 1, journal.begin() + 3);
    in_log_order.push_back(journal[0]);
    const auto created = memory.fold(pointers(all.first(1)), no_load);
    EXPECT_TRUE(created.rows.empty());
    ASSERT_EQ(created.new_rows.size(), 1u);
    EXPECT_EQ(created.new_rows[0], *project_charge(in_log_order));
    EXPECT_EQ(created.new_rows[0].event_count, 3);
}

TEST(ChargeMemory, BeyondItsCapacityItDropsIdleChargesAndLoadsThemAgain) {
    auto a = ex::envelope("a-created", ex::created_data());
    auto b = ex::envelope("b-created", ex::created_data());
    b.invoice_id.bytes.fill(0x22);
    auto a_paid = ex::envelope(
        "a-paid", ev::ChargePaid{ex::payment(ev::Rail::wallet, 7, "1"), domain::TokenAmount{1}});
    ChargeMemory memory(true, 1);
    for (const auto* e : {&a, &b, &b, &b}) {  // b keeps being touched; a idles
        memory.fold(std::vector<const ev::Event*>{e}, no_load);
        memory.keep();
    }
    EXPECT_EQ(memory.size(), 1u);
    const std::vector<ev::Event> a_journal{a, a_paid};
    int loads = 0;
    const auto row = memory.fold(std::vector<const ev::Event*>{&a_paid}, [&](const auto&) {
        ++loads;
        return ChargeEvents{{domain::to_hex(a.invoice_id), a_journal}};
    });
    EXPECT_EQ(loads, 1);
    EXPECT_TRUE(row.new_rows.empty());
    ASSERT_EQ(row.rows.size(), 1u);
    EXPECT_EQ(row.rows[0], *project_charge(a_journal));
}

}  // namespace
}  // namespace duepay::projections::charges
