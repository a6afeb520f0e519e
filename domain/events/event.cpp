#include "domain/events/event.hpp"

namespace duepay::domain::events {

std::string_view to_string(Mode mode) { return mode == Mode::test ? "test" : "live"; }

std::string_view to_string(PaymentMode mode) {
    switch (mode) {
        case PaymentMode::wallet: return "wallet";
        case PaymentMode::transfer: return "transfer";
        case PaymentMode::both: return "both";
    }
    return "both";
}

std::string_view to_string(Rail rail) { return rail == Rail::wallet ? "wallet" : "transfer"; }

std::string_view to_string(FailureReason reason) {
    switch (reason) {
        case FailureReason::wrong_token: return "wrong_token";
    }
    return "wrong_token";
}

std::string_view event_type(const EventData& data) {
    return std::visit([](const auto& d) { return std::decay_t<decltype(d)>::kType; }, data);
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
    if (!digits(0, 4, year) || t[4] != '-' || !digits(5, 2, month) || t[7] != '-' || !digits(8, 2, day) ||
        t[10] != 'T' || !digits(11, 2, hour) || t[13] != ':' || !digits(14, 2, minute) || t[16] != ':' ||
        !digits(17, 2, second) || t[19] != '.' || !digits(20, 3, millis) || t[23] != 'Z')
        return false;
    static constexpr int kDays[] = {31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > kDays[month - 1]) return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    if (month == 2 && day == 29 && !leap) return false;
    return hour < 24 && minute < 60 && second < 60;
}

}  // namespace duepay::domain::events
