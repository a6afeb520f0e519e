// The live projector folds a charge journaled for the first time by a batch from that batch's
// records, and re-reads the journal of every other charge (ADR 0186). Both must give the rows the
// fold of the whole topic gives, whatever the batch boundaries, duplicates and order.
#include <gtest/gtest.h>

#include <algorithm>
#include <pqxx/pqxx>
#include <set>
#include <string>
#include <vector>

#include "infra/postgres/charge_store.hpp"
#include "projections/charges/charge_projector.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

infra::postgres::JournalEntry entry(const std::string& event_id, const std::string& invoice_id,
                                    const std::string& topic, std::int64_t offset) {
    return {event_id, invoice_id, topic, 0, offset, "charge.created", "{}"};
}

std::set<std::string> insert(pqxx::transaction_base& tx,
                             const std::vector<infra::postgres::JournalEntry>& entries,
                             std::set<std::string>* first) {
    std::vector<const infra::postgres::JournalEntry*> pointers;
    for (const auto& e : entries) pointers.push_back(&e);
    return infra::postgres::insert_journal_entries(tx, pointers, first);
}

// The statement itself tells which invoices had no journal row before it: not those with an
// earlier row (from an earlier statement of the same transaction), whatever the duplicates.
TEST(ProjectorJournal, TheInsertNamesTheInvoicesItJournalsFirst) {
    DUEPAY_REQUIRE_STACK(env);
    const std::string tag = "pjournal-" + unique_suffix();
    const std::string topic = "duepay.test." + tag;
    const std::string a = "0xa" + tag, b = "0xb" + tag, c = "0xc" + tag;
    pqxx::connection conn(env.database_url);
    infra::postgres::prepare_charge_statements(conn);
    pqxx::work tx(conn);
    std::set<std::string> first;
    auto inserted = insert(tx, {entry(tag + "-b1", b, topic, 0)}, &first);
    EXPECT_EQ(inserted, (std::set<std::string>{tag + "-b1"}));
    EXPECT_EQ(first, (std::set<std::string>{b}));

    first.clear();
    inserted = insert(tx,
                      {entry(tag + "-a1", a, topic, 1), entry(tag + "-b2", b, topic, 2),
                       entry(tag + "-a2", a, topic, 3), entry(tag + "-a1", a, topic, 4),
                       entry(tag + "-b1", b, topic, 5), entry(tag + "-c1", c, topic, 6)},
                      &first);
    EXPECT_EQ(inserted,
              (std::set<std::string>{tag + "-a1", tag + "-a2", tag + "-b2", tag + "-c1"}));
    EXPECT_EQ(first, (std::set<std::string>{a, c}));  // b had a row before this statement

    first.clear();
    inserted =
        insert(tx, {entry(tag + "-c1", c, topic, 7), entry(tag + "-a1", a, topic, 8)}, &first);
    EXPECT_TRUE(inserted.empty());  // duplicates only
    EXPECT_TRUE(first.empty());
    tx.abort();
}

// The first-row probe stays an index lookup whatever plan the statement cache keeps: a generic
// plan made while the journal is empty (a fresh stack) must not read the whole journal. Without
// `offset 0` in the probe this plan is a seq scan of charge_events (a hashed subplan).
TEST(ProjectorJournal, TheFirstRowProbeIsAnIndexLookupEvenInAPlanMadeOnAnEmptyJournal) {
    DUEPAY_REQUIRE_STACK(env);
    pqxx::connection conn(env.database_url);
    {
        pqxx::nontransaction setup(conn);
        // A temp table is found first on the search path: the statements below bind to it.
        setup.exec("create temp table charge_events (like public.charge_events including all)");
        setup.exec("set plan_cache_mode = force_generic_plan");
    }
    infra::postgres::prepare_charge_statements(conn);
    pqxx::work tx(conn);
    // libpqxx prepares on first use: journal one event into the empty temp journal.
    std::set<std::string> first;
    insert(tx, {entry("probe-1", "0xprobe", "t", 0)}, &first);
    ASSERT_EQ(first, (std::set<std::string>{"0xprobe"}));
    std::string plan;
    for (const auto& row : tx.exec("explain execute insert_journal_first("
                                   "'{}', '{}', '{}', '{}', '{}', '{}', '{}')"))
        plan += row[0].as<std::string>() + "\n";
    EXPECT_EQ(plan.find("Seq Scan on charge_events"), std::string::npos) << plan;
    EXPECT_NE(plan.find(" using charge_events_"), std::string::npos) << plan;  // an index
    tx.abort();
}

// Batches of 3 cut every charge across batches (its first records folded from the batch, the
// rest re-read); each charge carries a duplicate event; the last charge's payment is journaled
// a batch before its charge.created (no row, then a row built from the journal).
TEST(ProjectorJournal, RowsEqualTheFoldOfTheTopicWhereverTheBatchesCut) {
    DUEPAY_REQUIRE_STACK(env);
    const std::string tag = "pjrows-" + unique_suffix();
    const std::string topic = "duepay.test." + tag;
    const std::string group = "duepay-test-" + tag;
    auto stream = make_event_stream(7, tag);
    // Charge 6: detection, paid, the detection again | charge.created, settled.
    std::rotate(stream.begin() + 30, stream.begin() + 31, stream.begin() + 34);
    std::vector<infra::kafka::ConsumedMessage> messages;
    for (std::size_t i = 0; i < stream.size(); ++i) {
        infra::kafka::ConsumedMessage m;
        m.topic = topic;
        m.partition = 0;
        m.offset = static_cast<std::int64_t>(i);
        m.key = stream[i].key;
        m.value = stream[i].value;
        messages.push_back(std::move(m));
    }
    pqxx::connection conn(env.database_url);
    infra::postgres::prepare_charge_statements(conn);
    std::size_t charges = 0;
    for (std::size_t start = 0; start < messages.size(); start += 3) {
        const auto end = std::min(messages.size(), start + 3);
        const std::vector<infra::kafka::ConsumedMessage> batch(
            messages.begin() + static_cast<std::ptrdiff_t>(start),
            messages.begin() + static_cast<std::ptrdiff_t>(end));
        pqxx::work tx(conn);
        const auto stats = projections::charges::apply_batch(tx, group, batch);
        EXPECT_EQ(stats.quarantined, 0u);
        charges += stats.charges;
        tx.commit();
    }
    EXPECT_GT(charges, 7u);  // rows written more than once per charge: batches cut them
    const auto check = check_read_model(env.database_url, topic, messages);
    EXPECT_EQ(check.invoices, 7u);
    EXPECT_EQ(check.rows_checked, 7u);
    EXPECT_EQ(check.journal_rows, check.distinct_events);
    for (const auto& m : check.mismatches) ADD_FAILURE() << m;
    drop_read_model(env.database_url, topic);
}

}  // namespace
}  // namespace duepay::tests
