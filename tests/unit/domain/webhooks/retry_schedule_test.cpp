#include "domain/webhooks/retry_schedule.hpp"

#include <gtest/gtest.h>

namespace dw = duepay::domain::webhooks;
using namespace std::chrono_literals;
using std::chrono::milliseconds;

TEST(RetrySchedule, DefaultStartsFastAndBacksOff) {
    const auto s = dw::default_retry_schedule();
    EXPECT_EQ(*dw::next_retry_delay(s, 1, 0ms, 0.5), milliseconds(5s));
    EXPECT_EQ(*dw::next_retry_delay(s, 2, 5s, 0.5), milliseconds(5min));
    EXPECT_EQ(*dw::next_retry_delay(s, 3, 5min, 0.5), milliseconds(30min));
    EXPECT_EQ(*dw::next_retry_delay(s, 4, 1h, 0.5), milliseconds(2h));
    EXPECT_EQ(*dw::next_retry_delay(s, 6, 8h, 0.5), milliseconds(10h));
    EXPECT_EQ(*dw::next_retry_delay(s, 9, 40h, 0.5), milliseconds(10h));  // then every ~10 h
}

TEST(RetrySchedule, JitterSpreadsByTwentyPercent) {
    const auto s = dw::default_retry_schedule();
    EXPECT_EQ(*dw::next_retry_delay(s, 1, 0ms, 0.0), 4000ms);
    EXPECT_GE(*dw::next_retry_delay(s, 1, 0ms, 0.999), 5990ms);
    EXPECT_LT(*dw::next_retry_delay(s, 1, 0ms, 0.999), 6000ms);
}

TEST(RetrySchedule, GivesUpAfterThreeDays) {
    const auto s = dw::default_retry_schedule();
    EXPECT_TRUE(dw::next_retry_delay(s, 8, 60h, 0.5).has_value());
    EXPECT_FALSE(dw::next_retry_delay(s, 9, 65h, 0.5).has_value());  // 65 h + 10 h > 72 h
    EXPECT_FALSE(dw::next_retry_delay(s, 0, 0ms, 0.5).has_value());
}

TEST(RetrySchedule, Parse) {
    auto s = dw::parse_retry_schedule("500ms,2s,1m/10m");
    ASSERT_TRUE(s.ok());
    EXPECT_EQ(s->delays, (std::vector<milliseconds>{500ms, 2s, 1min}));
    EXPECT_EQ(s->give_up_after, milliseconds(10min));
    auto d = dw::parse_retry_schedule("5s");
    ASSERT_TRUE(d.ok());
    EXPECT_EQ(d->give_up_after, milliseconds(72h));
    for (const char* bad : {"", "5", "5x", "5s,", ",5s", "5s/", "0s", "-1s", "5s/abc"}) {
        auto r = dw::parse_retry_schedule(bad);
        ASSERT_FALSE(r.ok()) << bad;
        EXPECT_EQ(r.error().code, "invalid_retry_schedule");
    }
}
