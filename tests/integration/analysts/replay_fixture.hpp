// The fixture of the replay tests (replay_test, replay_copy_test): a database of its own (every
// migration applied) so a swap never touches the read model other tests use, `duepay dev` (api +
// projector) on a fresh topic, the demo project, and `duepay replay` run against them.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <unistd.h>

#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {

// The replay's JSON report: the last line of its output.
inline rapidjson::Document parse(const std::string& text) {
    rapidjson::Document d;
    // The report is the last line (stderr, interleaved, has the progress lines).
    const auto start = text.rfind("\n{");
    d.Parse(text.c_str() + (start == std::string::npos ? 0 : start + 1));
    return d;
}

inline std::int64_t count(pqxx::connection& c, const std::string& sql) {
    pqxx::read_transaction tx(c);
    return tx.exec1(sql)[0].as<std::int64_t>();
}

class ReplayTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string missing;
        auto env = stack_env(missing);
        if (!env) GTEST_SKIP() << "integration stack not configured: " << missing;
        env_ = *env;
        db_name_ = "duepay_replay_test_" + std::to_string(getpid());
        url_ = create_database(env_, db_name_);
        server_ = start_dev_server(env_, "replay", 3, {{"DATABASE_URL", url_}});
        ASSERT_TRUE(server_.process->alive()) << server_.process->log();
        std::string out;
        ASSERT_EQ(run_command({duepay_binary(), "admin", "demo"}, {{"DATABASE_URL", url_}}, out,
                              std::chrono::seconds(20)),
                  0)
            << out;
        auto demo = parse(out);
        ASSERT_TRUE(demo.IsObject()) << out;
        key_ = demo["key"].GetString();
        project_ = demo["projectId"].GetString();
    }
    void TearDown() override {
        if (server_.process) {
            EXPECT_EQ(server_.process->stop(), 0);
        }
        if (!db_name_.empty()) {
            drop_database(env_, db_name_);
        }
    }

    std::map<std::string, std::string> replay_env() const {
        return {{"DATABASE_URL", url_},
                {"DUEPAY_TOPIC", server_.topic},
                {"DUEPAY_PROJECTOR_GROUP", server_.group}};
    }

    // The environment of a replay the test kills: its connections are named, so the test can
    // wait for their backends to end (a COMMIT sent before the kill may land after it).
    std::map<std::string, std::string> killed_env() const {
        auto env = replay_env();
        env["PGAPPNAME"] = kKilledApp;
        return env;
    }

    // After a kill: the killed replay's backends are gone, so its last transaction either
    // committed or never will.
    void wait_for_killed_backends(pqxx::connection& db) {
        ASSERT_TRUE(wait_until(
            [&] {
                return count(db, std::string("select count(*) from pg_stat_activity where "
                                             "application_name = '") +
                                     kKilledApp + "'") == 0;
            },
            std::chrono::seconds(30)));
    }

    static constexpr const char* kKilledApp = "duepay-replay-killed-by-test";

    int replay(const std::vector<std::string>& args, std::string& out) {
        std::vector<std::string> argv{duepay_binary(), "replay"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_command(argv, replay_env(), out, std::chrono::seconds(120));
    }

    std::string create_charge() {
        auto r = http("POST", server_.base_url + "/v1/invoices",
                      {{"x-api-key", key_}, {"content-type", "application/json"}},
                      R"({"chainId":80002,"amount":"2500000","expiresInSeconds":600})");
        EXPECT_EQ(r.status, 201) << r.body;
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        return d.HasParseError() ? "" : d["data"]["invoiceId"].GetString();
    }

    StackEnv env_;
    std::string db_name_;
    std::string url_;
    DevServer server_;
    std::string key_;
    std::string project_;
};

}  // namespace duepay::tests
