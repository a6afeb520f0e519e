// One base for infrastructure failures (infra/error.hpp): every adapter's exception is caught as
// InfraError and keeps what it says about retrying. scripts/check-errors.sh keeps bare
// std::runtime_error and std::logic_error throws out of infra/.
#include <gtest/gtest.h>

#include <functional>
#include <type_traits>

#include "infra/config/env.hpp"
#include "infra/curl/curl_error.hpp"
#include "infra/error.hpp"
#include "infra/kafka/kafka_error.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/random.hpp"
#include "infra/rates/rates.hpp"
#include "infra/rpc/rpc_client.hpp"

namespace duepay::infra {
namespace {

static_assert(std::is_base_of_v<InfraError, rpc::RpcError>);
static_assert(std::is_base_of_v<InfraError, rates::RateUnavailable>);
static_assert(std::is_base_of_v<InfraError, postgres::DatabaseUnavailable>);
static_assert(std::is_base_of_v<InfraError, kafka::KafkaError>);
static_assert(std::is_base_of_v<kafka::KafkaError, kafka::UnknownTopic>);
static_assert(std::is_base_of_v<InfraError, curl::CurlError>);
static_assert(std::is_base_of_v<InfraError, config::ConfigError>);
static_assert(std::is_base_of_v<InfraError, random::RandomError>);
// The ports' own errors (domain/ports/errors.hpp, ADR 0207): what the api catches.
static_assert(std::is_base_of_v<ports::StoreUnavailable, postgres::DatabaseUnavailable>);
static_assert(std::is_base_of_v<ports::RateUnavailable, rates::RateUnavailable>);

bool retryable_when_caught_as_base(const std::function<void()>& thrower) {
    try {
        thrower();
    } catch (const InfraError& e) {
        return e.retryable();
    }
    ADD_FAILURE() << "nothing thrown";
    return false;
}

TEST(InfraError, EveryAdapterErrorIsCaughtAsOneBaseAndKeepsRetryable) {
    EXPECT_FALSE(
        retryable_when_caught_as_base([] { throw rpc::RpcError("refused", false, -32601); }));
    EXPECT_TRUE(retryable_when_caught_as_base([] { throw rpc::RpcError("timeout", true); }));
    EXPECT_FALSE(
        retryable_when_caught_as_base([] { throw rates::RateUnavailable("no feed", false); }));
    EXPECT_TRUE(retryable_when_caught_as_base([] { throw rates::RateUnavailable("stale", true); }));
    EXPECT_TRUE(retryable_when_caught_as_base([] { throw postgres::DatabaseUnavailable("down"); }));
    EXPECT_TRUE(retryable_when_caught_as_base(
        [] { throw kafka::KafkaError("kafka admin: CreateTopics timed out", true); }));
    EXPECT_FALSE(retryable_when_caught_as_base([] { throw kafka::UnknownTopic("no topic t"); }));
    EXPECT_FALSE(
        retryable_when_caught_as_base([] { throw curl::CurlError("curl_easy_init failed"); }));
    EXPECT_FALSE(retryable_when_caught_as_base([] { throw config::ConfigError("missing"); }));
    EXPECT_FALSE(retryable_when_caught_as_base([] { throw random::RandomError("RAND_bytes"); }));
    try {
        throw rpc::RpcError("refused", false, -32601);
    } catch (const rpc::RpcError& e) {
        EXPECT_EQ(e.code(), -32601);
        EXPECT_STREQ(e.what(), "refused");
    }
}

// An adapter's error that is also a port's error is caught as either, and as one std::exception
// (a virtual base on both sides: no ambiguity), with the same message and retry verdict.
TEST(InfraError, AnAdapterErrorIsCaughtAsItsPortsErrorAndAsOneStdException) {
    try {
        throw postgres::DatabaseUnavailable("postgres: connection refused");
    } catch (const ports::StoreUnavailable& e) {
        EXPECT_STREQ(e.what(), "postgres: connection refused");
    }
    try {
        throw postgres::DatabaseUnavailable("postgres: no free connection");
    } catch (const std::exception& e) {
        EXPECT_STREQ(e.what(), "postgres: no free connection");
        EXPECT_NE(dynamic_cast<const InfraError*>(&e), nullptr);
    }
    for (bool retryable : {true, false}) {
        try {
            throw rates::RateUnavailable("no feed", retryable);
        } catch (const ports::RateUnavailable& e) {
            EXPECT_EQ(e.retryable(), retryable);
            EXPECT_STREQ(e.what(), "no feed");
        }
    }
    try {
        throw rates::RateUnavailable("stale", true);
    } catch (const std::exception& e) {
        EXPECT_STREQ(e.what(), "stale");
    }
}

}  // namespace
}  // namespace duepay::infra
