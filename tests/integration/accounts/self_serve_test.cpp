// The key roll over REST against the real stack (var/dev.env), docs/accounts.md: a rolled key seen
// by TWO api processes (self_serve_suite.hpp), its overlap honoured, then refused everywhere within
// the cache bound. /v1/project and the payout wallet are self_serve_project_test.cpp.
#include <gtest/gtest.h>

#include <chrono>
#include <iostream>
#include <thread>

#include "infra/random/key_material.hpp"
#include "tests/integration/accounts/self_serve_suite.hpp"

namespace duepay::tests {
namespace {

using Clock = std::chrono::steady_clock;

long long ms_since(Clock::time_point t) {
    return std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t).count();
}

TEST_F(SelfServe, RolledKeyWorksForItsOverlapOnEveryApiProcessThenStops) {
    auto [project, old_key, old_id] = new_project();
    ASSERT_EQ(probe(server_->base_url, old_key), 404);
    ASSERT_EQ(probe(*b_url_, old_key), 404);  // warm in both caches

    auto rolled = call("POST", on_a("/v1/api-keys/roll"), old_key, R"({"expiresInSeconds":3})");
    const auto t0 = Clock::now();
    ASSERT_EQ(rolled.status, 201) << rolled.body;
    auto d = parse(rolled.body);
    const auto& data = d["data"];
    const auto new_key = text(data, "key");
    const auto new_id = text(data, "keyId");
    EXPECT_EQ(new_key.rfind("dp_test_", 0), 0u) << rolled.body;
    EXPECT_EQ(new_key.size(), 8u + 64u) << rolled.body;
    EXPECT_EQ(text(data, "projectId"), project);
    EXPECT_EQ(text(data, "mode"), "test");
    EXPECT_EQ(text(data, "prefix"), new_key.substr(0, 12));
    EXPECT_NE(new_id, old_id);
    EXPECT_EQ(text(data["previousKey"], "keyId"), old_id);
    EXPECT_TRUE(data["previousKey"]["expiresAt"].IsString()) << rolled.body;

    // Rolling the old key again while it still works: refused, so one key yields one successor.
    auto twice = call("POST", on_b("/v1/api-keys/roll"), old_key, R"({"expiresInSeconds":0})");
    EXPECT_EQ(twice.status, 409) << twice.body;
    EXPECT_EQ(meta_code(twice), "key_already_rolled");

    // The new key works at once on both processes; the old one until its expiry.
    EXPECT_EQ(probe(server_->base_url, new_key), 404);
    EXPECT_EQ(probe(*b_url_, new_key), 404);
    std::this_thread::sleep_until(t0 + 2000ms);
    EXPECT_EQ(probe(server_->base_url, old_key), 404) << "refused before its expiresAt";
    EXPECT_EQ(probe(*b_url_, old_key), 404) << "refused before its expiresAt";

    // Then refused on both, at its expiry: the caches never keep a rolled key past expiresAt.
    ASSERT_TRUE(wait_until([&] { return probe(*b_url_, old_key) == 401; }, 5s));
    const auto stopped_b = ms_since(t0);
    ASSERT_TRUE(wait_until([&] { return probe(server_->base_url, old_key) == 401; }, 5s));
    const auto stopped_a = ms_since(t0);
    std::cout << "rolled key (3 s) refused after " << stopped_b << " ms (b), " << stopped_a
              << " ms (a)\n";
    EXPECT_LE(stopped_b, 3300);
    EXPECT_LE(stopped_a, 3300);
    EXPECT_EQ(probe(server_->base_url, new_key), 404);

    // Hash-only storage: the new key's row holds its SHA-256, and no column holds the key.
    auto row =
        query("select key_hash, key_prefix, replaced_by from api_keys where id = $1", new_id);
    ASSERT_EQ(row.size(), 1u);
    const auto hash = infra::random::sha256(new_key);
    pqxx::binarystring stored(row[0][0]);
    EXPECT_EQ(std::string(stored.str()), std::string(hash.begin(), hash.end()));
    EXPECT_EQ(row[0][1].as<std::string>(), new_key.substr(0, 12));
    auto leaks =
        query("select count(*) from api_keys k where position($1 in k::text) > 0", new_key);
    EXPECT_EQ(leaks[0][0].as<int>(), 0) << "the key itself is stored somewhere";
    auto old_row = query("select replaced_by from api_keys where id = $1", old_id);
    EXPECT_EQ(old_row[0][0].as<std::string>(), new_id);

    // One audit row, naming the key that rolled.
    auto audit = query(
        "select key_id, changes->>'newKeyId' from account_audit where project_id = $1 and "
        "action = 'api_key.rolled'",
        project);
    ASSERT_EQ(audit.size(), 1u);
    EXPECT_EQ(audit[0][0].as<std::string>(), old_id);
    EXPECT_EQ(audit[0][1].as<std::string>(), new_id);
}

TEST_F(SelfServe, RollWithZeroStopsTheOldKeyWithinTheCacheBoundEverywhere) {
    auto [project, old_key, old_id] = new_project();
    ASSERT_EQ(probe(server_->base_url, old_key), 404);  // warm in both caches
    ASSERT_EQ(probe(*b_url_, old_key), 404);
    auto rolled = call("POST", on_b("/v1/api-keys/roll"), old_key, R"({"expiresInSeconds":0})");
    const auto t0 = Clock::now();
    ASSERT_EQ(rolled.status, 201) << rolled.body;
    const auto new_key = text(parse(rolled.body)["data"], "key");
    ASSERT_TRUE(wait_until([&] { return probe(server_->base_url, old_key) == 401; }, 3s));
    const auto stopped_a = ms_since(t0);
    ASSERT_TRUE(wait_until([&] { return probe(*b_url_, old_key) == 401; }, 3s));
    const auto stopped_b = ms_since(t0);
    std::cout << "key rolled with 0 refused after " << stopped_a << " ms (a), " << stopped_b
              << " ms (b)\n";
    EXPECT_LE(stopped_a, 1200) << "documented bound: 1 s (the key cache TTL)";
    EXPECT_LE(stopped_b, 1200) << "documented bound: 1 s (the key cache TTL)";
    auto refused = call("POST", on_a("/v1/api-keys/roll"), old_key, R"({"expiresInSeconds":0})");
    EXPECT_EQ(refused.status, 401) << refused.body;
    EXPECT_EQ(probe(server_->base_url, new_key), 404);
    EXPECT_EQ(probe(*b_url_, new_key), 404);
}

TEST_F(SelfServe, RollRejections) {
    auto [project, key, id] = new_project();
    const auto roll = on_a("/v1/api-keys/roll");
    for (const char* body : {"{}", R"({"expiresInSeconds":-1})", R"({"expiresInSeconds":604801})",
                             R"({"expiresInSeconds":"60"})", R"({"expiresInSeconds":1.5})",
                             R"({"expiresInSeconds":null})"}) {
        auto r = call("POST", roll, key, body);
        EXPECT_EQ(r.status, 400) << body << " " << r.body;
        EXPECT_EQ(meta_code(r), "invalid_expires_in") << body;
    }
    auto typo = call("POST", roll, key, R"({"expiresInSeconds":5,"expiresInSecond":5})");
    EXPECT_EQ(typo.status, 400) << typo.body;
    EXPECT_EQ(meta_code(typo), "unknown_field");
    auto bad_json = call("POST", roll, key, "[1]");
    EXPECT_EQ(meta_code(bad_json), "invalid_json");
    auto get = call("GET", roll, key);
    EXPECT_EQ(get.status, 405) << get.body;
    auto anonymous =
        http("POST", roll, {{"content-type", "application/json"}}, R"({"expiresInSeconds":0})");
    EXPECT_EQ(anonymous.status, 401) << anonymous.body;
    // Nothing was rolled by any of these.
    EXPECT_EQ(probe(server_->base_url, key), 404);
    auto audit = query(
        "select count(*) from account_audit where project_id = $1 and action not in "
        "('project.created', 'api_key.created')",
        project);
    EXPECT_EQ(audit[0][0].as<int>(), 0);
}

}  // namespace
}  // namespace duepay::tests
