// `duepay admin` edges against the real stack: `topic create` makes a topic that
// keeps events forever with the replication the operator asked for, and `demo` never revives a
// revoked demo key. The binary of this build tree runs as a subprocess.
#include <gtest/gtest.h>

#include <pqxx/pqxx>

#include "infra/kafka/topic_admin.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

int admin(const std::vector<std::string>& args, std::string& output) {
    std::vector<std::string> argv{duepay_binary(), "admin"};
    argv.insert(argv.end(), args.begin(), args.end());
    return run_command(argv, {}, output, std::chrono::seconds(30));
}

TEST(AdminCliIt, TopicCreateRetainsForeverWithTheAskedReplication) {
    DUEPAY_REQUIRE_STACK(env);
    const std::string topic = "duepay.test.admin-topic." + unique_suffix();
    std::string out;
    ASSERT_EQ(admin({"topic", "create", "--name", topic, "--partitions", "2",
                     "--replication-factor", "1"},
                    out),
              0)
        << out;
    EXPECT_NE(out.find(R"("replicationFactor":1,"minInsyncReplicas":1)"), std::string::npos) << out;
    const auto config =
        infra::kafka::describe_topic_config(env.kafka_bootstrap, topic, std::chrono::seconds(10));
    EXPECT_EQ(config.at("retention.ms"), "-1");
    EXPECT_EQ(config.at("retention.bytes"), "-1");
    EXPECT_EQ(config.at("min.insync.replicas"), "1");

    // The replication factor reaches the broker: the dev stack has one broker, so 3 is refused
    // (before the fix every topic got replication 1 whatever the operator wanted).
    const std::string wide = "duepay.test.admin-rf3." + unique_suffix();
    EXPECT_NE(
        admin({"topic", "create", "--name", wide, "--partitions", "1", "--replication-factor", "3"},
              out),
        0);
    EXPECT_NE(out.find("eplication"), std::string::npos) << out;

    // Flags that cannot work are usage errors.
    EXPECT_EQ(admin({"topic", "create", "--name", wide, "--replication-factor", "0"}, out), 2);
    EXPECT_EQ(admin({"topic", "create", "--name", wide, "--replication-factor", "1",
                     "--min-insync-replicas", "2"},
                    out),
              2);
}

// Un-revokes the demo key at the end of the test whatever happens (other suites use it).
struct RestoreDemoKey {
    std::string database_url;
    ~RestoreDemoKey() {
        try {
            pqxx::connection conn(database_url);
            pqxx::work tx(conn);
            tx.exec("update api_keys set revoked_at = null where id = 'key_demo_test'");
            tx.commit();
        } catch (const std::exception& e) {
            ADD_FAILURE() << "could not restore the demo key: " << e.what();
        }
    }
};

TEST(AdminCliIt, DemoDoesNotReviveARevokedDemoKey) {
    DUEPAY_REQUIRE_STACK(env);
    std::string out;
    ASSERT_EQ(admin({"demo"}, out), 0) << out;
    RestoreDemoKey restore{env.database_url};
    ASSERT_EQ(admin({"key", "revoke", "--key-id", "key_demo_test"}, out), 0) << out;
    EXPECT_EQ(admin({"demo"}, out), 1) << out;
    EXPECT_NE(out.find("key_revoked"), std::string::npos) << out;
    pqxx::connection conn(env.database_url);
    pqxx::nontransaction tx(conn);
    EXPECT_FALSE(
        tx.exec1("select revoked_at from api_keys where id = 'key_demo_test'")[0].is_null())
        << "admin demo revived the revoked key";
}

}  // namespace
}  // namespace duepay::tests
