#include "domain/webhooks/retry_schedule.hpp"

#include <charconv>
#include <string>

namespace duepay::domain::webhooks {
namespace {

using std::chrono::milliseconds;

std::optional<milliseconds> parse_duration(std::string_view text) {
    std::uint64_t n = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
    if (ec != std::errc{} || end == text.data()) return std::nullopt;
    const std::string_view unit(end, static_cast<std::size_t>(text.data() + text.size() - end));
    std::uint64_t scale = 0;
    if (unit == "ms") scale = 1;
    if (unit == "s") scale = 1000;
    if (unit == "m") scale = 60'000;
    if (unit == "h") scale = 3'600'000;
    if (unit == "d") scale = 86'400'000;
    if (scale == 0 || n > 400ULL * 86'400'000 / scale) return std::nullopt;
    return milliseconds(static_cast<std::int64_t>(n * scale));
}

}  // namespace

RetrySchedule default_retry_schedule() {
    using namespace std::chrono_literals;
    return RetrySchedule{{5s, 5min, 30min, 2h, 5h, 10h}, 72h};
}

Result<RetrySchedule> parse_retry_schedule(std::string_view text) {
    auto bad = [&] {
        return make_error("invalid_retry_schedule",
                          "retry schedule must look like 5s,5m,30m/3d (units ms, s, m, h, d): " +
                              std::string(text));
    };
    RetrySchedule out;
    out.delays.clear();
    if (auto slash = text.find('/'); slash != std::string_view::npos) {
        auto total = parse_duration(text.substr(slash + 1));
        if (!total) return bad();
        out.give_up_after = *total;
        text = text.substr(0, slash);
    }
    for (;;) {
        const auto comma = text.find(',');
        auto d = parse_duration(text.substr(0, comma));
        if (!d || d->count() == 0) return bad();
        out.delays.push_back(*d);
        if (comma == std::string_view::npos) break;
        text = text.substr(comma + 1);
    }
    return out;
}

std::optional<milliseconds> next_retry_delay(const RetrySchedule& schedule, int failures,
                                             milliseconds since_first_attempt, double jitter) {
    if (failures < 1 || schedule.delays.empty()) return std::nullopt;
    const auto index =
        std::min<std::size_t>(static_cast<std::size_t>(failures - 1), schedule.delays.size() - 1);
    const auto base = schedule.delays[index];
    if (jitter < 0) jitter = 0;
    if (jitter >= 1) jitter = 0.999999;
    const auto delay = milliseconds(
        static_cast<std::int64_t>(static_cast<double>(base.count()) * (0.8 + 0.4 * jitter)));
    if (since_first_attempt + delay > schedule.give_up_after) return std::nullopt;
    return delay;
}

}  // namespace duepay::domain::webhooks
