// The time from a charge's creation to its payment as a histogram of fixed buckets, so that a
// median over any set of days is read from summed bucket counts, never from the charges (ADR 0245).
// Buckets, by whole seconds s: one per second below 16 s; above, each power of two [2^e, 2^(e+1))
// is cut into 8 equal buckets, so a bucket is at most 1/8 of its lower bound wide. The median is
// reported as the middle of the bucket that holds it: within 1/16 (6.25 %) of the true median,
// exact below 16 s. Negative times (clocks of two roles) count as 0; times from 2^31 s on (68
// years) fall into the last bucket.
#pragma once

#include <cstdint>
#include <optional>
#include <span>

namespace duepay::domain::reports {

inline constexpr int kPaidTimeBuckets = 232;

// The bucket of `seconds`: 0 .. kPaidTimeBuckets - 1.
int paid_time_bucket(std::int64_t seconds);

// The whole seconds a bucket holds: [low, high).
struct SecondsRange {
    std::int64_t low = 0;
    std::int64_t high = 0;
    bool operator==(const SecondsRange&) const = default;
};
// `bucket` outside 0 .. kPaidTimeBuckets - 1: std::out_of_range.
SecondsRange paid_time_range(int bucket);

// The median of a histogram (`counts[b]`: the charges of bucket b; at most kPaidTimeBuckets
// entries, negative counts are a broken read model: std::invalid_argument): the lower median (the
// ceil(n/2)-th smallest time) as the middle second of its bucket, (low + high - 1) / 2 rounded
// down. nullopt when the histogram is empty.
std::optional<std::int64_t> median_seconds(std::span<const std::int64_t> counts);

}  // namespace duepay::domain::reports
