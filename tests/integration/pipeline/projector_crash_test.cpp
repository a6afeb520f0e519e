// kill -9 of the projector in the middle of a 10,000-event stream, restart, and the read model
// equals the fold of the topic row by row: nothing missing, nothing applied twice. Then three
// projectors in one group, one killed -9 mid-stream: the other two take its partitions over and
// the read model equals the one a single projector builds from the same topic.
#include <gtest/gtest.h>

#include <array>
#include <memory>

#include "infra/kafka/topic_admin.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

TEST(ProjectorCrash, Kill9MidStreamThenRestartConvergesToTheFoldOfTheTopic) {
    DUEPAY_REQUIRE_STACK(env);
    const auto suffix = unique_suffix();
    const std::string topic = "duepay.test.crash." + suffix;
    const std::string group = "duepay-test-crash-" + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, topic, 6, std::chrono::seconds(20));

    const auto records = make_event_stream(2000, "crash" + suffix);
    ASSERT_EQ(records.size(), 10'000u);
    ASSERT_EQ(produce_all(env.kafka_bootstrap, topic, records), 10'000u);

    const std::vector<std::string> argv{duepay_binary(), "projector", "--topic", topic,
                                        "--group",       group,       "--batch", "100"};
    const std::string log = "/tmp/duepay-crash-" + suffix + ".log";
    {
        Process first(argv, {}, log);
        ASSERT_TRUE(wait_until(
            [&] { return journal_count(env.database_url, topic) >= 1500 || !first.alive(); },
            std::chrono::seconds(60)))
            << first.log();
        first.kill_hard();  // SIGKILL: no close(), no last commit
    }
    const auto at_kill = journal_count(env.database_url, topic);
    EXPECT_LT(at_kill, 8000)
        << "the projector finished before the kill; the test did not test a crash";
    std::cout << "killed the projector with " << at_kill << " of 8000 distinct events journaled"
              << std::endl;

    Process second(argv, {}, log);
    ASSERT_TRUE(
        wait_until([&] { return stored_offset_sum(env.database_url, group, topic) >= 10'000; },
                   std::chrono::seconds(120)))
        << second.log();
    EXPECT_EQ(second.stop(), 0) << "projector did not exit cleanly on SIGTERM";
    EXPECT_EQ(stored_offset_sum(env.database_url, group, topic), 10'000);

    const auto messages =
        read_topic(env.kafka_bootstrap, topic, records.size(), std::chrono::seconds(60));
    ASSERT_EQ(messages.size(), 10'000u);
    const auto check = check_read_model(env.database_url, topic, messages);
    EXPECT_EQ(check.invoices, 2000u);
    EXPECT_EQ(check.distinct_events, 8000u);
    EXPECT_EQ(check.journal_rows, 8000u);
    EXPECT_EQ(check.rows_checked, 2000u);
    for (const auto& m : check.mismatches) ADD_FAILURE() << m;
}

TEST(ProjectorCrash, ThreeInOneGroupOneKilledTheOthersTakeOverAndMatchASingleReplay) {
    DUEPAY_REQUIRE_STACK(env);
    const auto suffix = unique_suffix();
    const std::string topic = "duepay.test.trio." + suffix;
    const std::string group = "duepay-test-trio-" + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, topic, 6, std::chrono::seconds(20));
    const auto argv = [&](const std::string& g) {
        return std::vector<std::string>{duepay_binary(), "projector", "--topic", topic,
                                        "--group",       g,           "--batch", "100"};
    };
    std::array<std::unique_ptr<Process>, 3> trio;
    for (std::size_t i = 0; i < trio.size(); ++i) {
        trio[i] = std::make_unique<Process>(
            argv(group), std::map<std::string, std::string>{},
            "/tmp/duepay-trio-" + std::to_string(i) + "-" + suffix + ".log");
    }
    const auto logs = [&] {
        std::string out;
        for (const auto& p : trio) out += "\n--- " + p->log_path() + "\n" + p->log();
        return out;
    };
    // The group settled: each of the three holds two of the six partitions.
    ASSERT_TRUE(wait_until(
        [&] {
            for (const auto& p : trio) {
                if (last_assignment(p->log()) != 2) return false;
            }
            return true;
        },
        std::chrono::seconds(60)))
        << logs();

    // 1,200 charges, 6,000 records (4,800 distinct events): half before the kill, half after.
    const auto records = make_event_stream(1200, "trio" + suffix);
    const std::vector<ports::LogRecord> first(records.begin(),
                                              records.begin() + records.size() / 2);
    const std::vector<ports::LogRecord> second(records.begin() + records.size() / 2, records.end());
    ASSERT_EQ(produce_all(env.kafka_bootstrap, topic, first), first.size());
    ASSERT_TRUE(wait_until([&] { return journal_count(env.database_url, topic) >= 600; },
                           std::chrono::seconds(60)))
        << logs();
    trio[0]->kill_hard();  // SIGKILL mid-stream: no close, no last commit, no leave-group
    std::cout << "killed one of three projectors with " << journal_count(env.database_url, topic)
              << " events journaled" << std::endl;
    ASSERT_EQ(produce_all(env.kafka_bootstrap, topic, second), second.size());

    // The survivors take the dead member's partitions over (after its session times out) and
    // finish the stream.
    ASSERT_TRUE(
        wait_until([&] { return stored_offset_sum(env.database_url, group, topic) >= 6000; },
                   std::chrono::seconds(120)))
        << logs();
    EXPECT_EQ(last_assignment(trio[1]->log()) + last_assignment(trio[2]->log()), 6) << logs();
    EXPECT_EQ(trio[1]->stop(), 0);
    EXPECT_EQ(trio[2]->stop(), 0);
    EXPECT_EQ(stored_offset_sum(env.database_url, group, topic), 6000);

    const auto messages =
        read_topic(env.kafka_bootstrap, topic, records.size(), std::chrono::seconds(60));
    ASSERT_EQ(messages.size(), 6000u);
    const auto check = check_read_model(env.database_url, topic, messages);
    EXPECT_EQ(check.rows_checked, 1200u);
    EXPECT_EQ(check.journal_rows, 4800u);
    for (const auto& m : check.mismatches) ADD_FAILURE() << m;

    // A single projector in a fresh group builds the read model again from nothing: row for row
    // the same.
    const auto shared = read_model_rows(env.database_url, topic);
    ASSERT_EQ(shared.size(), 1200u + 4800u);
    drop_read_model(env.database_url, topic);
    ASSERT_TRUE(read_model_rows(env.database_url, topic).empty());
    const std::string replay_group = group + "-replay";
    Process single(argv(replay_group), {}, "/tmp/duepay-trio-replay-" + suffix + ".log");
    ASSERT_TRUE(
        wait_until([&] { return stored_offset_sum(env.database_url, replay_group, topic) >= 6000; },
                   std::chrono::seconds(120)))
        << single.log();
    EXPECT_EQ(single.stop(), 0);
    const auto replayed = read_model_rows(env.database_url, topic);
    ASSERT_EQ(replayed.size(), shared.size());
    std::size_t differing = 0;
    for (std::size_t i = 0; i < shared.size(); ++i) {
        if (shared[i] == replayed[i]) continue;
        if (++differing <= 5) {
            ADD_FAILURE() << "row " << i << " differs:\n three: " << shared[i]
                          << "\n  one: " << replayed[i];
        }
    }
    EXPECT_EQ(differing, 0u);
}

}  // namespace
}  // namespace duepay::tests
