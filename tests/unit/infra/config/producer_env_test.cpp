// producer_env (infra/config/producer_env.hpp): the event log producer's knobs from the
// environment, their defaults, their bounds, the rule against the linger and the refusal of the
// DUEPAY_KAFKA_* spellings the producer would override.
#include "infra/config/producer_env.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>

#include "infra/config/env.hpp"

namespace duepay::infra::config {
namespace {

class ProducerEnvTest : public ::testing::Test {
  protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        for (const char* name : {"DUEPAY_PRODUCER_LINGER_MS", "DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS",
                                 "DUEPAY_PRODUCER_COMPRESSION", "DUEPAY_KAFKA_MESSAGE_TIMEOUT_MS",
                                 "DUEPAY_KAFKA_DELIVERY_TIMEOUT_MS"}) {
            ::unsetenv(name);
        }
    }
    // The ConfigError's message of producer_env(), or "" when it returns.
    static std::string refusal() {
        try {
            producer_env();
        } catch (const ConfigError& e) {
            return e.what();
        }
        return "";
    }
};

TEST_F(ProducerEnvTest, UnsetMeansTheDefaults) {
    const auto p = producer_env();
    EXPECT_EQ(p.message_timeout_ms, 5000);
    EXPECT_EQ(p.linger_ms, 0);
    EXPECT_EQ(p.compression, "lz4");
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "", 1);  // empty is unset
    EXPECT_EQ(producer_env().message_timeout_ms, 5000);
}

TEST_F(ProducerEnvTest, ReadsTheTimeoutWithinItsBounds) {
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "2000", 1);
    EXPECT_EQ(producer_env().message_timeout_ms, 2000);
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "1000", 1);
    EXPECT_EQ(producer_env().message_timeout_ms, kMinMessageTimeoutMs);
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "300000", 1);
    EXPECT_EQ(producer_env().message_timeout_ms, kMaxMessageTimeoutMs);
}

TEST_F(ProducerEnvTest, RefusesAMalformedOrOutOfRangeTimeoutNamingIt) {
    for (const char* bad : {"999", "300001", "0", "-5000", "5s", "5000 ", "abc", "1e4"}) {
        ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", bad, 1);
        const auto why = refusal();
        EXPECT_NE(why.find("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS"), std::string::npos)
            << bad << ": " << why;
        EXPECT_NE(why.find("[1000, 300000]"), std::string::npos) << bad << ": " << why;
    }
}

TEST_F(ProducerEnvTest, TheTimeoutMustBeAboveTheLinger) {
    ::setenv("DUEPAY_PRODUCER_LINGER_MS", "1000", 1);
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "1000", 1);
    const auto why = refusal();
    EXPECT_NE(why.find("must be greater than DUEPAY_PRODUCER_LINGER_MS=1000"), std::string::npos)
        << why;
    ::setenv("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", "1001", 1);
    const auto p = producer_env();
    EXPECT_EQ(p.linger_ms, 1000);
    EXPECT_EQ(p.message_timeout_ms, 1001);
}

TEST_F(ProducerEnvTest, RefusesTheKafkaPassthroughSpellingsItWouldOverride) {
    for (const char* name :
         {"DUEPAY_KAFKA_MESSAGE_TIMEOUT_MS", "DUEPAY_KAFKA_DELIVERY_TIMEOUT_MS"}) {
        ::setenv(name, "20000", 1);
        const auto why = refusal();
        EXPECT_NE(why.find(name), std::string::npos) << why;
        EXPECT_NE(why.find("DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS"), std::string::npos) << why;
        ::unsetenv(name);
    }
    EXPECT_EQ(refusal(), "");
}

}  // namespace
}  // namespace duepay::infra::config
