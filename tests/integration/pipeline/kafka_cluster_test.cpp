// Beyond one broker: a three-broker KRaft cluster on loopback (infra/dev/kafka-cluster.sh, the dev
// broker's jars), the topic with replication factor 3 and min.insync.replicas=2, a real
// `duepay dev` (api + projector) on it, and one broker killed -9 while four clients create
// charges. Every acknowledged create (201) is one event in the topic and one row in the read model;
// creates keep succeeding after the kill. Postgres is the dev stack's. Bounded: ~35 s here.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>

#include "infra/kafka/topic_admin.hpp"
#include "tests/integration/pipeline/create_load.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

#ifndef DUEPAY_SOURCE_DIR
#define DUEPAY_SOURCE_DIR "."
#endif

namespace duepay::tests {
namespace {

using Clock = std::chrono::steady_clock;

const std::string kScript = std::string(DUEPAY_SOURCE_DIR) + "/infra/dev/kafka-cluster.sh";

int cluster(const std::string& args, std::string& out, std::chrono::seconds timeout) {
    return run_command({"/bin/bash", "-c", kScript + " " + args}, {}, out, timeout);
}

// Removes the cluster (every node, its data) at the end of the test, whatever happened.
struct ClusterGuard {
    ~ClusterGuard() {
        std::string out;
        cluster("wipe", out, std::chrono::seconds(60));
    }
};

TEST(KafkaCluster, OneOfThreeBrokersKilledWhileCreatesRunAndEveryAcknowledgedCreateIsKept) {
    DUEPAY_REQUIRE_STACK(env);
    ClusterGuard guard;
    std::string out;
    {
        std::string ignored;
        cluster("wipe", ignored, std::chrono::seconds(60));  // a fresh cluster every run
    }
    const auto started = Clock::now();
    ASSERT_EQ(cluster("start", out, std::chrono::seconds(180)), 0) << out;
    std::cout << "cluster up in "
              << std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started).count()
              << " s" << std::endl;
    ASSERT_EQ(cluster("bootstrap", out, std::chrono::seconds(10)), 0) << out;
    const std::string bootstrap = out.substr(0, out.find('\n'));

    StackEnv on_cluster = env;
    on_cluster.kafka_bootstrap = bootstrap;
    infra::kafka::TopicSettings topic;
    topic.partitions = 6;
    topic.replication_factor = 3;
    topic.min_insync_replicas = 2;
    auto server = start_dev_server(on_cluster, "cluster", topic, {{"KAFKA_BOOTSTRAP", bootstrap}});
    ASSERT_TRUE(server.process->alive()) << server.process->log();
    // A broker that has not learnt of the new topic yet answers "unknown topic": ask again.
    std::map<std::string, std::string> config;
    std::string describe_error;
    wait_until(
        [&] {
            try {
                config = infra::kafka::describe_topic_config(bootstrap, server.topic,
                                                             std::chrono::seconds(5));
                return true;
            } catch (const std::exception& e) {
                describe_error = e.what();
                return false;
            }
        },
        std::chrono::seconds(20));
    ASSERT_FALSE(config.empty()) << describe_error;
    EXPECT_EQ(config.at("min.insync.replicas"), "2");
    EXPECT_EQ(config.at("retention.ms"), "-1");
    const auto key = demo_key(env);
    ASSERT_FALSE(key.empty());

    CreateLoad load(server.base_url, key, "cluster", 4);
    const bool warmed =
        wait_until([&] { return load.created_since({}) >= 40; }, std::chrono::seconds(30));
    // Node 1 leads a third of the partitions; which node also leads the controller quorum does
    // not matter, the test passes with either.
    const auto killed_at = Clock::now();
    const int kill_rc = cluster("kill 1", out, std::chrono::seconds(30));
    std::cout << out;
    // The cluster keeps taking creates with two brokers: at least 40 more, within 60 s.
    const bool survived = wait_until(
        [&] {
            return load.created_since(killed_at) >= 40 &&
                   Clock::now() - killed_at > std::chrono::seconds(8);
        },
        std::chrono::seconds(60));
    load.stop();
    const auto outcomes = load.outcomes();
    ASSERT_TRUE(warmed) << "no 40 creates before the kill\n" << server.process->log();
    ASSERT_EQ(kill_rc, 0);
    EXPECT_TRUE(survived) << "creates did not go on after one broker of three died\n"
                          << server.process->log();

    const auto counts = count_outcomes(outcomes);
    std::size_t after = 0;
    std::chrono::milliseconds slowest{0};
    for (const auto& o : outcomes) {
        if (o.status != 201) continue;
        after += o.at > killed_at ? 1 : 0;
        slowest = std::max(slowest, o.took);
    }
    std::cout << "creates: " << outcomes.size() << " total, " << counts.created << " x 201 ("
              << after << " after the kill), " << counts.unavailable
              << " x 503 event_log_unavailable, " << counts.unknown
              << " x 503 event_log_outcome_unknown, " << counts.other << " other; slowest 201 "
              << slowest.count() << " ms" << std::endl;
    EXPECT_EQ(counts.other, 0u) << "every failure must be a 503 of the event log";

    // The topic, read from the two surviving brokers: each 201 as exactly one event (a record
    // repeated byte for byte after the leader moved is counted: see TopicCheck::redelivered), no
    // 503 event_log_unavailable in it.
    const auto messages = read_topic(bootstrap, server.topic, counts.created + counts.unknown,
                                     std::chrono::seconds(60));
    const auto check = check_creates_in_topic(outcomes, messages);
    for (const auto& e : check.errors) ADD_FAILURE() << e;
    std::cout << "records in the topic: " << messages.size() << ", of which redelivered "
              << check.redelivered << std::endl;

    // The read model: the projector (its group coordinator possibly on the dead broker) applied
    // every message of the topic, and each row is the fold of its events.
    EXPECT_TRUE(wait_until(
        [&] {
            return stored_offset_sum(env.database_url, server.group, server.topic) ==
                   static_cast<long long>(messages.size());
        },
        std::chrono::seconds(60)))
        << stored_offset_sum(env.database_url, server.group, server.topic) << " of "
        << messages.size() << "\n"
        << server.process->log();
    const auto model = check_read_model(env.database_url, server.topic, messages);
    EXPECT_EQ(model.rows_checked, check.invoices);
    EXPECT_GE(model.rows_checked, counts.created);
    for (const auto& m : model.mismatches) ADD_FAILURE() << m;
    EXPECT_EQ(server.process->stop(std::chrono::seconds(20)), 0);
    std::cout << "test took "
              << std::chrono::duration_cast<std::chrono::seconds>(Clock::now() - started).count()
              << " s" << std::endl;
}

}  // namespace
}  // namespace duepay::tests
