#include "domain/reports/paid_time.hpp"

#include <bit>
#include <stdexcept>

namespace duepay::domain::reports {

namespace {
constexpr std::int64_t kExact = 16;  // one bucket per second below this
}  // namespace

int paid_time_bucket(std::int64_t seconds) {
    if (seconds <= 0) return 0;
    if (seconds < kExact) return static_cast<int>(seconds);
    if (seconds >= (std::int64_t{1} << 31)) return kPaidTimeBuckets - 1;
    const auto s = static_cast<std::uint64_t>(seconds);
    const int e = static_cast<int>(std::bit_width(s)) - 1;  // 4 .. 30: s in [2^e, 2^(e+1))
    const int m = static_cast<int>((s >> (e - 3)) & 7);
    return static_cast<int>(kExact) + (8 * (e - 4)) + m;
}

SecondsRange paid_time_range(int bucket) {
    if (bucket < 0 || bucket >= kPaidTimeBuckets)
        throw std::out_of_range("paid_time_range: no bucket " + std::to_string(bucket));
    if (bucket < kExact) return {bucket, bucket + 1};
    const int e = (bucket - static_cast<int>(kExact)) / 8 + 4;
    const std::int64_t m = (bucket - kExact) % 8;
    return {(8 + m) << (e - 3), (9 + m) << (e - 3)};
}

std::optional<std::int64_t> median_seconds(std::span<const std::int64_t> counts) {
    if (counts.size() > static_cast<std::size_t>(kPaidTimeBuckets))
        throw std::invalid_argument("median_seconds: more buckets than the histogram has");
    std::int64_t total = 0;
    for (const auto c : counts) {
        if (c < 0) throw std::invalid_argument("median_seconds: a negative bucket count");
        total += c;
    }
    if (total == 0) return std::nullopt;
    const std::int64_t rank = (total + 1) / 2;
    std::int64_t seen = 0;
    for (std::size_t b = 0; b < counts.size(); ++b) {
        seen += counts[b];
        if (seen >= rank) {
            const auto r = paid_time_range(static_cast<int>(b));
            return (r.low + r.high - 1) / 2;
        }
    }
    return std::nullopt;  // unreachable: seen reaches total
}

}  // namespace duepay::domain::reports
