// tune_follower_fetch (consumers/roles/consumer_loop.hpp): the fetch knobs of the consumers no
// request waits on, their defaults, what they set, and their bounds.
#include <gtest/gtest.h>
#include <stdlib.h>

#include "consumers/roles/consumer_loop.hpp"
#include "infra/config/env.hpp"

namespace duepay::consumers {
namespace {

class FollowerFetchTest : public ::testing::Test {
  protected:
    void SetUp() override { clear(); }
    void TearDown() override { clear(); }
    static void clear() {
        ::unsetenv("DUEPAY_FOLLOWER_FETCH_WAIT_MS");
        ::unsetenv("DUEPAY_FOLLOWER_FETCH_MIN_BYTES");
    }
};

TEST_F(FollowerFetchTest, UnsetKeepsTheConsumersDefaults) {
    infra::kafka::ConsumerSettings s;
    tune_follower_fetch(s);
    EXPECT_EQ(s.fetch_wait_max_ms, infra::kafka::ConsumerSettings{}.fetch_wait_max_ms);
    EXPECT_EQ(s.fetch_min_bytes, 1);
}

TEST_F(FollowerFetchTest, SetsBothFromTheEnvironment) {
    ::setenv("DUEPAY_FOLLOWER_FETCH_WAIT_MS", "250", 1);
    ::setenv("DUEPAY_FOLLOWER_FETCH_MIN_BYTES", "65536", 1);
    infra::kafka::ConsumerSettings s;
    tune_follower_fetch(s);
    EXPECT_EQ(s.fetch_wait_max_ms, 250);
    EXPECT_EQ(s.fetch_min_bytes, 65536);
}

TEST_F(FollowerFetchTest, RefusesValuesOutOfRange) {
    infra::kafka::ConsumerSettings s;
    ::setenv("DUEPAY_FOLLOWER_FETCH_WAIT_MS", "60001", 1);
    EXPECT_THROW(tune_follower_fetch(s), infra::config::ConfigError);
    clear();
    ::setenv("DUEPAY_FOLLOWER_FETCH_MIN_BYTES", "0", 1);
    EXPECT_THROW(tune_follower_fetch(s), infra::config::ConfigError);
    clear();
    ::setenv("DUEPAY_FOLLOWER_FETCH_WAIT_MS", "soon", 1);
    EXPECT_THROW(tune_follower_fetch(s), infra::config::ConfigError);
}

}  // namespace
}  // namespace duepay::consumers
