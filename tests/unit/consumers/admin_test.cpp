// `duepay admin` pieces that need no stack: test key derivation (reference values from Python's
// hmac/hashlib) and rejections that happen before any database access.
#include "consumers/cli/admin.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

#include "infra/config/env.hpp"

namespace duepay::consumers {
namespace {

constexpr const char* kSecret = "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff";

TEST(DeriveTestKey, MatchesHmacSha256ReferenceValues) {
    EXPECT_EQ(derive_test_key(kSecret, "key_demo_test"),
              "dp_test_99b59d2fe748ae4949c84d51ffbad492997d41f304d91926");
    EXPECT_EQ(derive_test_key(kSecret, "key_0123456789abcdef01234567"),
              "dp_test_4d40adf6fef12a030d4f6575d53b7c97802cc1dc115e510c");
}

TEST(DeriveTestKey, DependsOnTheSecret) {
    EXPECT_NE(derive_test_key(kSecret, "key_demo_test"),
              derive_test_key("ff112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
                              "key_demo_test"));
}

TEST(DeriveTestKey, RefusesShortOrMalformedSecrets) {
    EXPECT_THROW(derive_test_key("0011223344", "key_x"), infra::config::ConfigError);
    EXPECT_THROW(derive_test_key("not hex at all, not hex at all!!", "key_x"),
                 infra::config::ConfigError);
}

// Captures std::cerr while alive.
struct CaptureErr {
    std::stringstream out;
    std::streambuf* old = std::cerr.rdbuf(out.rdbuf());
    ~CaptureErr() { std::cerr.rdbuf(old); }
};

TEST(AccountCommand, UnknownGroupsAreNotMine) {
    EXPECT_FALSE(run_account_command({}).has_value());
    EXPECT_FALSE(run_account_command({"demo"}).has_value());
    EXPECT_FALSE(run_account_command({"topic", "create"}).has_value());
}

TEST(AccountCommand, BadAddressIsAJsonRejectionBeforeAnyDatabaseAccess) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    auto rc =
        run_account_command({"wallet", "challenge", "--project", "prj_x", "--address", "0x1234"});
    ASSERT_TRUE(rc.has_value());
    EXPECT_EQ(*rc, 1);
    EXPECT_EQ(err.out.str().rfind(R"({"error":{"code":"invalid_address","message":)", 0), 0u)
        << err.out.str();
}

TEST(AccountCommand, MissingFlagIsAUsageError) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    auto rc = run_account_command(
        {"wallet", "verify", "--address", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"});
    ASSERT_TRUE(rc.has_value());
    EXPECT_EQ(*rc, 2);
    EXPECT_NE(err.out.str().find(R"("code":"missing_argument")"), std::string::npos)
        << err.out.str();
    EXPECT_NE(err.out.str().find("--project"), std::string::npos) << err.out.str();
}

TEST(AccountCommand, WithoutDatabaseUrlSaysWhichSettingIsMissing) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    auto rc = run_account_command({"project", "show", "--project", "prj_x"});
    ASSERT_TRUE(rc.has_value());
    EXPECT_EQ(*rc, 1);
    EXPECT_NE(err.out.str().find(R"("code":"config_error")"), std::string::npos) << err.out.str();
    EXPECT_NE(err.out.str().find("DATABASE_URL"), std::string::npos) << err.out.str();
}

}  // namespace
}  // namespace duepay::consumers
