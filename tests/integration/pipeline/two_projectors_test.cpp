// Two projector processes in one consumer group share the partitions and together apply every
// event exactly once.
#include <gtest/gtest.h>

#include "infra/kafka/topic_admin.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

TEST(TwoProjectors, OneGroupSharesPartitionsAndAppliesEveryEventOnce) {
    DUEPAY_REQUIRE_STACK(env);
    const auto suffix = unique_suffix();
    const std::string topic = "duepay.test.pair." + suffix;
    const std::string group = "duepay-test-pair-" + suffix;
    infra::kafka::ensure_topic(env.kafka_bootstrap, topic, 6, std::chrono::seconds(20));

    const std::vector<std::string> argv{duepay_binary(), "projector", "--topic", topic,
                                        "--group",       group,       "--batch", "200"};
    Process a(argv, {}, "/tmp/duepay-pair-a-" + suffix + ".log");
    Process b(argv, {}, "/tmp/duepay-pair-b-" + suffix + ".log");
    // Both members joined and the group settled: 6 partitions split between them.
    ASSERT_TRUE(wait_until(
        [&] {
            const int x = last_assignment(a.log());
            const int y = last_assignment(b.log());
            return x > 0 && y > 0 && x + y == 6;
        },
        std::chrono::seconds(60)))
        << a.log() << "\n---\n"
        << b.log();

    const auto records =
        make_event_stream(1200, "pair" + suffix);  // 6,000 messages, 4,800 distinct
    ASSERT_EQ(produce_all(env.kafka_bootstrap, topic, records), records.size());
    ASSERT_TRUE(
        wait_until([&] { return stored_offset_sum(env.database_url, group, topic) >= 6000; },
                   std::chrono::seconds(120)))
        << a.log() << "\n---\n"
        << b.log();

    const int share_a = last_assignment(a.log());
    const int share_b = last_assignment(b.log());
    EXPECT_GT(share_a, 0);
    EXPECT_GT(share_b, 0);
    EXPECT_EQ(share_a + share_b, 6);
    EXPECT_EQ(a.stop(), 0);
    EXPECT_EQ(b.stop(), 0);

    const auto messages =
        read_topic(env.kafka_bootstrap, topic, records.size(), std::chrono::seconds(60));
    ASSERT_EQ(messages.size(), 6000u);
    const auto check = check_read_model(env.database_url, topic, messages);
    EXPECT_EQ(check.invoices, 1200u);
    EXPECT_EQ(check.journal_rows, 4800u);
    EXPECT_EQ(check.rows_checked, 1200u);
    for (const auto& m : check.mismatches) ADD_FAILURE() << m;
}

}  // namespace
}  // namespace duepay::tests
