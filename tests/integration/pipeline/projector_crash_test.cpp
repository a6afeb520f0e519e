// kill -9 of the projector in the middle of a 10,000-event stream, restart, and the read model
// equals the fold of the topic row by row: nothing missing, nothing applied twice.
#include <gtest/gtest.h>

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

}  // namespace
}  // namespace duepay::tests
