#include "domain/events/event.hpp"

#include <cstdio>

namespace duepay::domain::events {

std::string_view to_string(Mode mode) { return mode == Mode::test ? "test" : "live"; }

std::string_view to_string(PaymentMode mode) {
    switch (mode) {
        case PaymentMode::wallet:
            return "wallet";
        case PaymentMode::transfer:
            return "transfer";
        case PaymentMode::both:
            return "both";
    }
    return "both";
}

std::string_view to_string(Rail rail) { return rail == Rail::wallet ? "wallet" : "transfer"; }

std::string_view to_string(FailureReason reason) {
    switch (reason) {
        case FailureReason::wrong_token:
            return "wrong_token";
    }
    return "wrong_token";
}

std::string_view event_type(const EventData& data) {
    return std::visit([](const auto& d) { return std::decay_t<decltype(d)>::kType; }, data);
}

std::string format_rfc3339_millis_utc(std::int64_t unix_ms) {
    if (unix_ms < 0) unix_ms = 0;
    const std::int64_t days = unix_ms / 86'400'000;
    const std::int64_t ms_of_day = unix_ms % 86'400'000;
    // days since 1970-01-01 -> (year, month, day): Howard Hinnant's civil_from_days.
    const std::int64_t z = days + 719468;
    const std::int64_t era = z / 146097;
    const std::int64_t doe = z - era * 146097;
    const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
    const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    const std::int64_t mp = (5 * doy + 2) / 153;
    const std::int64_t day = doy - (153 * mp + 2) / 5 + 1;
    const std::int64_t month = mp < 10 ? mp + 3 : mp - 9;
    const std::int64_t year = yoe + era * 400 + (month <= 2 ? 1 : 0);
    char buf[32];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", static_cast<int>(year),
                  static_cast<int>(month), static_cast<int>(day),
                  static_cast<int>(ms_of_day / 3'600'000),
                  static_cast<int>(ms_of_day / 60'000 % 60),
                  static_cast<int>(ms_of_day / 1000 % 60), static_cast<int>(ms_of_day % 1000));
    return buf;
}

bool is_rfc3339_millis_utc(std::string_view t) {
    // 0123456789012345678901234
    // 2026-11-21T22:00:00.000Z
    if (t.size() != 24) return false;
    auto digits = [&](std::size_t from, std::size_t n, int& out) {
        out = 0;
        for (std::size_t i = from; i < from + n; ++i) {
            if (t[i] < '0' || t[i] > '9') return false;
            out = out * 10 + (t[i] - '0');
        }
        return true;
    };
    int year, month, day, hour, minute, second, millis;
    if (!digits(0, 4, year) || t[4] != '-' || !digits(5, 2, month) || t[7] != '-' ||
        !digits(8, 2, day) || t[10] != 'T' || !digits(11, 2, hour) || t[13] != ':' ||
        !digits(14, 2, minute) || t[16] != ':' || !digits(17, 2, second) || t[19] != '.' ||
        !digits(20, 3, millis) || t[23] != 'Z')
        return false;
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month == 2 && day == 29 && !leap) return false;
    return hour < 24 && minute < 60 && second < 60;
}

}  // namespace duepay::domain::events
