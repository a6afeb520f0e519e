// duepay replay writes its shadow by COPY (ADR 0200), against the real stack (label
// integration): duplicate records and one Postgres refuses, replayed with small batches and one
// big one, give the live rows. The fixture: replay_fixture.hpp.
#include <gtest/gtest.h>

#include <limits>
#include <pqxx/pqxx>
#include <string>
#include <utility>
#include <vector>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "tests/integration/analysts/replay_fixture.hpp"
#include "tests/integration/pipeline/event_stream.hpp"

namespace duepay::tests {
namespace {

// The replay writes its shadow by COPY (ADR 0200). A topic with duplicate records (every charge of
// make_event_stream re-emits a detection under the same event id, and one charge is appended twice
// over) makes the journal's COPY meet an event id already there: the batch falls back to the
// INSERT ... ON CONFLICT path. A decodable record Postgres refuses in the charges row (a chain id
// beyond bigint) makes the charges' COPY fail: the batch goes one record at a time and quarantines
// it, as the live projector does. Both ways, with small batches and one big one, the shadow
// equals the live tables, journal included.
TEST_F(ReplayTest, DuplicateAndRefusedRecordsReplayByCopyToTheLiveRows) {
    const std::string tag = "replay-copy-" + unique_suffix();
    auto records = make_event_stream(12, tag);  // 60 records, 48 distinct events
    const auto first_charge = std::vector(records.begin(), records.begin() + 5);
    records.insert(records.end(), first_charge.begin(), first_charge.end());
    auto huge = domain::events::decode_event(records.front().value).value();
    huge.id = "replay-copy-huge-" + tag;
    huge.invoice_id.bytes[31] ^= 0x5a;
    huge.chain_id = domain::ChainId{std::numeric_limits<std::uint64_t>::max()};
    records.push_back({domain::to_hex(huge.invoice_id), domain::events::encode_event(huge)});
    ASSERT_EQ(produce_all(env_.kafka_bootstrap, server_.topic, records), records.size());
    const std::int64_t distinct = 12 * 4;
    pqxx::connection db(url_);
    ASSERT_TRUE(wait_until(
        [&] {
            return count(db,
                         "select coalesce(sum(next_offset), 0) from consumer_offsets where "
                         "group_id = '" +
                             server_.group + "'") == static_cast<std::int64_t>(records.size());
        },
        std::chrono::seconds(60)))
        << server_.process->log();
    ASSERT_EQ(count(db, "select count(*) from charge_events"), distinct);
    ASSERT_EQ(count(db, "select count(*) from quarantined_events where error like '%22003%'"), 1);

    std::string out;
    for (const auto& [schema, batch] : std::vector<std::pair<std::string, std::string>>{
             {"copy_small", "7"}, {"copy_big", "20000"}}) {
        ASSERT_EQ(replay({"--schema", schema, "--batch", batch}, out), 0) << out;
        const auto report = parse(out);
        ASSERT_TRUE(report.IsObject()) << out;
        EXPECT_EQ(report["applied"].GetInt64(), static_cast<std::int64_t>(records.size())) << out;
        EXPECT_TRUE(report["comparison"]["equal"].GetBool()) << out;
        EXPECT_EQ(report["comparison"]["charges"].GetInt64(), 12) << out;
        EXPECT_EQ(count(db, "select count(*) from " + schema + ".charge_events"), distinct);
        // Only the refused record: no duplicate is quarantined.
        EXPECT_EQ(count(db,
                        "select count(*) from quarantined_events where consumer_group = "
                        "'duepay-replay-" +
                            schema + "' and error like '%22003%'"),
                  1);
        EXPECT_EQ(count(db,
                        "select count(*) from quarantined_events where consumer_group = "
                        "'duepay-replay-" +
                            schema + "'"),
                  1);
    }
}

}  // namespace
}  // namespace duepay::tests
