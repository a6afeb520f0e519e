// Shared scaffolding of the HTTP integration suites: one `duepay dev` (api + projector on a fresh
// topic of the real stack) per suite with the demo key, and the exact failure envelope.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <string>

#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {

// The failure envelope, exactly: four members, success false, data null, error a message,
// meta.code, plus the x-request-id header and a JSON content type.
inline void expect_error_envelope(const HttpResponse& r, long status, const std::string& code) {
    EXPECT_EQ(r.status, status) << r.body;
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    ASSERT_FALSE(d.HasParseError()) << "not JSON: " << r.body;
    ASSERT_TRUE(d.IsObject()) << r.body;
    EXPECT_EQ(d.MemberCount(), 4u) << r.body;
    ASSERT_TRUE(d.HasMember("success") && d["success"].IsBool()) << r.body;
    EXPECT_FALSE(d["success"].GetBool());
    ASSERT_TRUE(d.HasMember("data")) << r.body;
    EXPECT_TRUE(d["data"].IsNull());
    ASSERT_TRUE(d.HasMember("error") && d["error"].IsString()) << r.body;
    EXPECT_GT(d["error"].GetStringLength(), 0u);
    ASSERT_TRUE(d.HasMember("meta") && d["meta"].IsObject() && d["meta"].HasMember("code"))
        << r.body;
    EXPECT_EQ(std::string(d["meta"]["code"].GetString()), code) << r.body;
    EXPECT_EQ(r.headers.count("x-request-id"), 1u) << "no x-request-id on " << status;
    ASSERT_EQ(r.headers.count("content-type"), 1u);
    EXPECT_EQ(r.headers.at("content-type").rfind("application/json", 0), 0u);
}

// A suite sharing one `duepay dev`: Suite names it with `static constexpr const char* kServerName`
// (also the topic prefix). Tests skip, with the reason, only when the stack variables are absent.
template <class Suite>
class DevServerSuite : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        std::string missing;
        auto env = stack_env(missing);
        if (!env) return;
        env_ = new StackEnv(*env);
        server_ = new DevServer(start_dev_server(*env, Suite::kServerName, partitions()));
        key_ = new std::string(demo_key(*env));
    }
    // 3 partitions unless the suite says `static constexpr int kPartitions = N`.
    static int partitions() {
        if constexpr (requires { Suite::kPartitions; }) {
            return Suite::kPartitions;
        } else {
            return 3;
        }
    }
    static void TearDownTestSuite() {
        if (server_ != nullptr) {
            EXPECT_EQ(server_->process->stop(), 0) << "duepay dev did not stop cleanly on SIGTERM";
        }
        delete server_;
        delete env_;
        delete key_;
        server_ = nullptr;
        env_ = nullptr;
        key_ = nullptr;
    }
    void SetUp() override {
        if (env_ == nullptr) {
            GTEST_SKIP() << "integration stack not configured (DATABASE_URL, KAFKA_BOOTSTRAP, "
                            "DUEPAY_CHAINS_FILE, "
                            "DUEPAY_SIGNER_KEY, DUEPAY_SERVER_SECRET): source var/dev.env or run "
                            "`make test`";
        }
        ASSERT_TRUE(server_->process->alive()) << server_->process->log();
        ASSERT_FALSE(key_->empty()) << "duepay admin demo printed no key";
    }
    std::string url(const std::string& path) const { return server_->base_url + path; }

    inline static StackEnv* env_ = nullptr;
    inline static DevServer* server_ = nullptr;
    inline static std::string* key_ = nullptr;
};

}  // namespace duepay::tests
