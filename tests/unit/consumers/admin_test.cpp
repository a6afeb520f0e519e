// `duepay admin` pieces that need no stack: test key derivation (reference values from Python's
// hmac/hashlib) and rejections that happen before any database access.
#include "consumers/cli/admin.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <sstream>
#include <type_traits>

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

TEST(AdminRejection, IsAStdExceptionThatKeepsItsCodeAndMessage) {
    static_assert(std::is_base_of_v<std::exception, AdminRejection>);
    try {
        throw AdminRejection{"invalid_mode", "--mode must be test or live"};
    } catch (const std::exception& e) {
        EXPECT_STREQ(e.what(), "--mode must be test or live");
        const auto* rejection = dynamic_cast<const AdminRejection*>(&e);
        ASSERT_NE(rejection, nullptr);
        EXPECT_EQ(rejection->code, "invalid_mode");
        EXPECT_EQ(rejection->message, "--mode must be test or live");
    }
}

// Captures std::cerr while alive.
struct CaptureErr {
    std::stringstream out;
    std::streambuf* old = std::cerr.rdbuf(out.rdbuf());
    ~CaptureErr() { std::cerr.rdbuf(old); }
};

// Captures std::cout while alive.
struct CaptureOut {
    std::stringstream out;
    std::streambuf* old = std::cout.rdbuf(out.rdbuf());
    ~CaptureOut() { std::cout.rdbuf(old); }
};

TEST(RunAdmin, BadAddressIsAJsonRejectionBeforeAnyDatabaseAccess) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    EXPECT_EQ(run_admin({"wallet", "challenge", "--project", "prj_x", "--address", "0x1234"}), 1);
    EXPECT_EQ(err.out.str().rfind(R"({"error":{"code":"invalid_address","message":)", 0), 0u)
        << err.out.str();
}

TEST(RunAdmin, MissingFlagIsAUsageError) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    EXPECT_EQ(
        run_admin({"wallet", "verify", "--address", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}),
        2);
    EXPECT_NE(err.out.str().find(R"("code":"missing_argument")"), std::string::npos)
        << err.out.str();
    EXPECT_NE(err.out.str().find("--project"), std::string::npos) << err.out.str();
}

TEST(RunAdmin, WithoutDatabaseUrlSaysWhichSettingIsMissing) {
    ::unsetenv("DATABASE_URL");
    CaptureErr err;
    EXPECT_EQ(run_admin({"project", "show", "--project", "prj_x"}), 1);
    EXPECT_NE(err.out.str().find(R"("code":"config_error")"), std::string::npos) << err.out.str();
    EXPECT_NE(err.out.str().find("DATABASE_URL"), std::string::npos) << err.out.str();
}

// The flag semantics of the hand parser CLI11 replaced (docs/accounts.md relies on none other):
// a flag a command does not take is passed over, the first of a repeated flag counts, '' is a
// value, and flags go anywhere after the command's words.
TEST(RunAdmin, UnknownFlagsArePassedOverAndTheFirstOfARepeatedFlagCounts) {
    ::unsetenv("DATABASE_URL");
    {
        CaptureErr err;
        EXPECT_EQ(
            run_admin({"wallet", "challenge", "--bogus", "1", "--project", "prj_x", "--address",
                       "0x1234", "--address", "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}),
            1);
        EXPECT_NE(err.out.str().find(R"("code":"invalid_address")"), std::string::npos)
            << err.out.str();
    }
    {
        CaptureErr err;  // given as '': present but empty, so still required
        EXPECT_EQ(run_admin({"wallet", "verify", "--project", "", "--address", "0x1"}), 2);
        EXPECT_NE(err.out.str().find("--project is required"), std::string::npos) << err.out.str();
    }
    {
        CaptureErr err;  // a valid address, a project: past the flags, to the database
        EXPECT_EQ(run_admin({"wallet", "challenge", "--address",
                             "0x70997970C51812dc3A010C7d01b50e0d17dc79C8", "--project=prj_x"}),
                  1);
        EXPECT_NE(err.out.str().find(R"("code":"config_error")"), std::string::npos)
            << err.out.str();
    }
}

TEST(RunAdmin, UsageErrorsExitTwo) {
    {
        CaptureErr err;  // an unknown command: the whole usage on stderr
        EXPECT_EQ(run_admin({"bogus"}), 2);
        EXPECT_NE(err.out.str().find("usage: duepay admin demo"), std::string::npos);
    }
    {
        CaptureErr err;  // a flag without its value
        EXPECT_EQ(run_admin({"wallet", "challenge", "--project"}), 2);
        EXPECT_NE(err.out.str().find(R"({"error":{"code":"usage")"), std::string::npos)
            << err.out.str();
    }
    {
        CaptureErr err;
        EXPECT_EQ(run_admin({"quarantine", "retry", "abc"}), 2);
        EXPECT_NE(err.out.str().find("retry <id>"), std::string::npos) << err.out.str();
    }
    {
        CaptureErr err;  // checked before KAFKA_BOOTSTRAP is read
        EXPECT_EQ(run_admin({"topic", "create", "--name", "t", "--replication-factor", "0"}), 2);
        EXPECT_EQ(run_admin({"topic", "create", "--name", "t", "--min-insync-replicas", "2"}), 2);
        EXPECT_NE(err.out.str().find("--min-insync-replicas must be from 1"), std::string::npos)
            << err.out.str();
    }
    {
        CaptureErr err;
        EXPECT_EQ(run_admin({"webhook", "add", "--project", "prj_x", "--mode", "staging"}), 1);
        EXPECT_NE(err.out.str().find(R"("code":"invalid_mode")"), std::string::npos)
            << err.out.str();
        EXPECT_EQ(run_admin({"webhook", "bogus"}), 2);
        EXPECT_NE(err.out.str().find("unknown webhook command: bogus"), std::string::npos)
            << err.out.str();
    }
}

TEST(RunAdmin, HelpGoesToStdoutAndExitsZero) {
    {
        CaptureOut out;
        EXPECT_EQ(run_admin({"--help"}), 0);
        for (const char* line : {"admin demo", "admin topic create", "admin project create",
                                 "admin key revoke", "admin wallet verify", "admin chains",
                                 "admin quarantine retry", "admin webhook", "simulate-payment"}) {
            EXPECT_NE(out.out.str().find(line), std::string::npos) << line;
        }
    }
    {
        CaptureOut out;
        EXPECT_EQ(run_admin({"webhook", "--help"}), 0);
        EXPECT_NE(out.out.str().find("redeliver --id we_... --event evt_..."), std::string::npos);
    }
    {
        CaptureOut out;  // one command's flags, from CLI11
        EXPECT_EQ(run_admin({"project", "create", "--help"}), 0);
        for (const char* flag :
             {"--name", "--plan", "--window-seconds", "--logo-url", "--accent-color"}) {
            EXPECT_NE(out.out.str().find(flag), std::string::npos) << flag << out.out.str();
        }
    }
    {
        CaptureOut out;
        EXPECT_EQ(run_admin({}), 2);  // no command: the usage, exit 2
        EXPECT_NE(out.out.str().find("usage: duepay admin"), std::string::npos);
    }
}

}  // namespace
}  // namespace duepay::consumers
