// The paid-time histogram: bucket edges, ranges that tile the seconds, the median's precision.
#include "domain/reports/paid_time.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

namespace duepay::domain::reports {
namespace {

TEST(PaidTime, BucketsTable) {
    struct Row {
        std::int64_t seconds;
        int bucket;
    };
    const Row rows[] = {
        {-5, 0},
        {0, 0},
        {1, 1},
        {15, 15},
        {16, 16},
        {17, 16},
        {18, 17},
        {31, 23},
        {32, 24},
        {35, 24},
        {36, 25},
        {63, 31},
        {64, 32},
        {3600, 16 + 8 * 7 + 6},  // 3600 in [3584, 4096): e = 11, m = 6
        {(std::int64_t{1} << 31) - 1, kPaidTimeBuckets - 1},
        {std::int64_t{1} << 40, kPaidTimeBuckets - 1},
    };
    for (const auto& r : rows) EXPECT_EQ(paid_time_bucket(r.seconds), r.bucket) << r.seconds;
}

TEST(PaidTime, RangesTileTheSecondsAndHoldTheirBucket) {
    std::int64_t next = 0;
    for (int b = 0; b < kPaidTimeBuckets; ++b) {
        const auto r = paid_time_range(b);
        EXPECT_EQ(r.low, next) << b;
        EXPECT_GT(r.high, r.low) << b;
        EXPECT_EQ(paid_time_bucket(r.low), b);
        EXPECT_EQ(paid_time_bucket(r.high - 1), b);
        // At most 1/8 of the lower bound wide: the middle is within 1/16 of any value in it.
        if (r.low >= 16) {
            EXPECT_LE((r.high - r.low) * 8, r.low) << b;
        }
        next = r.high;
    }
    EXPECT_EQ(next, std::int64_t{1} << 31);
    EXPECT_THROW(paid_time_range(-1), std::out_of_range);
    EXPECT_THROW(paid_time_range(kPaidTimeBuckets), std::out_of_range);
}

std::vector<std::int64_t> histogram(const std::vector<std::int64_t>& seconds) {
    std::vector<std::int64_t> h(kPaidTimeBuckets, 0);
    for (const auto s : seconds) ++h[static_cast<std::size_t>(paid_time_bucket(s))];
    return h;
}

TEST(PaidTime, MedianTable) {
    struct Row {
        std::vector<std::int64_t> seconds;
        std::optional<std::int64_t> median;
    };
    const Row rows[] = {
        {{}, std::nullopt},
        {{7}, 7},                          // exact below 16 s
        {{3, 9, 12}, 9},                   // odd count: the middle one
        {{3, 9, 12, 14}, 9},               // even count: the lower median
        {{100, 100, 100, 5000}, 99},       // 100 in [96, 104): middle 99
        {{1, 2, 3600, 3600, 3600}, 3711},  // 3600 in [3584, 3840): middle 3711
    };
    for (const auto& r : rows) {
        const auto h = histogram(r.seconds);
        const auto got = median_seconds(h);
        if (!r.median) {
            EXPECT_FALSE(got.has_value());
            continue;
        }
        ASSERT_TRUE(got.has_value());
        EXPECT_EQ(got, r.median);
        // Within 1/16 of the true lower median.
        auto sorted = r.seconds;
        std::sort(sorted.begin(), sorted.end());
        const auto truth = sorted[(sorted.size() - 1) / 2];
        EXPECT_LE(std::abs(*got - truth) * 16, std::max<std::int64_t>(truth, 16)) << truth;
    }
}

TEST(PaidTime, MedianOfMergedDaysIsTheMedianOfTheUnion) {
    // Two days' histograms summed bucket by bucket: the median of all their charges.
    auto a = histogram({10, 20, 30});
    const auto b = histogram({40, 50, 60, 70});
    for (std::size_t i = 0; i < a.size(); ++i) a[i] += b[i];
    EXPECT_EQ(a, histogram({10, 20, 30, 40, 50, 60, 70}));
    const auto r = paid_time_range(paid_time_bucket(40));
    EXPECT_EQ(median_seconds(a), (r.low + r.high - 1) / 2);
}

TEST(PaidTime, MedianRefusesABrokenHistogram) {
    std::vector<std::int64_t> h(3, 1);
    h[1] = -1;
    EXPECT_THROW(median_seconds(h), std::invalid_argument);
    EXPECT_THROW(median_seconds(std::vector<std::int64_t>(kPaidTimeBuckets + 1, 0)),
                 std::invalid_argument);
}

}  // namespace
}  // namespace duepay::domain::reports
