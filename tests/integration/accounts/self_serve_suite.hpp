// The fixture of the self-serve tests (self_serve_test.cpp: the key roll;
// self_serve_project_test.cpp: /v1/project and the payout wallet), one suite in one binary so the
// stack is started once: `duepay dev` (api A) and a second `duepay api` (api B) on the same topic
// and database, each with its own key cache. Audit rows and stored key hashes are read from
// Postgres directly.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <tuple>

#include "tests/integration/accounts/accounts_support.hpp"
#include "tests/integration/pipeline/dev_server_suite.hpp"

namespace duepay::tests {

using namespace std::chrono_literals;

class SelfServe : public DevServerSuite<SelfServe> {
  public:
    static constexpr const char* kServerName = "selfserve";
    static constexpr int kPartitions = 1;

  protected:
    using Base = DevServerSuite<SelfServe>;
    static void SetUpTestSuite() {
        Base::SetUpTestSuite();  // api A: `duepay dev`
        if (env_ == nullptr) return;
        // api B: a second API process on the same topic and database, with its own key cache.
        const int port = free_port();
        b_url_ = new std::string("http://127.0.0.1:" + std::to_string(port));
        b_ = new Process({duepay_binary(), "api"},
                         {{"DUEPAY_TOPIC", server_->topic},
                          {"DUEPAY_LISTEN", "127.0.0.1:" + std::to_string(port)},
                          {"DUEPAY_CHECKOUT_URL", *b_url_}},
                         "/tmp/duepay-selfserve-api-b-" + unique_suffix() + ".log");
        wait_until(
            [] { return http("GET", *b_url_ + "/healthz", {}).status == 200 || !b_->alive(); },
            30s);
    }
    static void TearDownTestSuite() {
        if (b_ != nullptr) {
            EXPECT_EQ(b_->stop(), 0);
        }
        delete b_;
        delete b_url_;
        b_ = nullptr;
        b_url_ = nullptr;
        Base::TearDownTestSuite();
    }
    void SetUp() override {
        Base::SetUp();
        if (IsSkipped() || HasFatalFailure()) return;
        ASSERT_TRUE(b_->alive()) << b_->log();
    }

    static std::string on_a(const std::string& path) { return server_->base_url + path; }
    static std::string on_b(const std::string& path) { return *b_url_ + path; }

    static HttpResponse call(const std::string& method, const std::string& url,
                             const std::string& key, const std::string& body = "") {
        std::map<std::string, std::string> h{{"x-api-key", key}};
        if (!body.empty()) h["content-type"] = "application/json";
        return http(method, url, h, body);
    }

    // 404 charge_not_found: the key is valid there; 401: refused.
    static long probe(const std::string& base, const std::string& key) {
        return call("GET", base + "/v1/charges/0x" + std::string(64, '0') + "/status", key).status;
    }

    // A project with a test key; returns {projectId, key, keyId}.
    static std::tuple<std::string, std::string, std::string> new_project() {
        auto p = admin({"project", "create", "--name", "Self-serve IT", "--logo-url",
                        "https://shop.example/logo.png", "--accent-color", "#0A7B5C"});
        EXPECT_EQ(p.rc, 0) << p.output;
        const auto project = text(p.json, "projectId");
        auto k = admin({"key", "create", "--project", project, "--mode", "test"});
        EXPECT_EQ(k.rc, 0) << k.output;
        return {project, text(k.json, "key"), text(k.json, "keyId")};
    }

    static pqxx::result query(const std::string& sql, const std::string& param) {
        pqxx::connection c(env_->database_url);
        pqxx::work tx(c);
        return tx.exec_params(sql, param);
    }

    static std::string project_field(const std::string& key, const char* field) {
        auto r = call("GET", on_a("/v1/project"), key);
        EXPECT_EQ(r.status, 200) << r.body;
        auto d = parse(r.body);
        if (!d.IsObject() || !d.HasMember("data") || !d["data"].HasMember(field)) return "<none>";
        const auto& v = d["data"][field];
        if (v.IsNull()) return "null";
        if (v.IsInt()) return std::to_string(v.GetInt());
        return v.IsString() ? v.GetString() : "<?>";
    }

    inline static Process* b_ = nullptr;
    inline static std::string* b_url_ = nullptr;
};

}  // namespace duepay::tests
