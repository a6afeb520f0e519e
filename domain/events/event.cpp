#include "domain/events/event.hpp"

#include <algorithm>
#include <array>
#include <cstdio>

#include "domain/events/detail/json_text.hpp"
#include "domain/text.hpp"

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

std::string_view to_string(RefundRejection reason) {
    switch (reason) {
        case RefundRejection::not_found:
            return "not_found";
        case RefundRejection::transaction_failed:
            return "transaction_failed";
        case RefundRejection::no_transfer:
            return "no_transfer";
        case RefundRejection::wrong_token:
            return "wrong_token";
        case RefundRejection::wrong_sender:
            return "wrong_sender";
        case RefundRejection::exceeds_paid:
            return "exceeds_paid";
    }
    return "not_found";
}

std::string_view to_string(ResolvedException exception) {
    switch (exception) {
        case ResolvedException::overpaid:
            return "overpaid";
        case ResolvedException::paid_late:
            return "paid_late";
        case ResolvedException::partial:
            return "partial";
        case ResolvedException::wrong_token:
            return "wrong_token";
        case ResolvedException::refund_rejected:
            return "refund_rejected";
    }
    return "partial";
}

std::string_view to_string(ActorKind kind) { return kind == ActorKind::wallet ? "wallet" : "key"; }

std::optional<ResolvedException> parse_resolved_exception(std::string_view text) {
    for (auto e :
         {ResolvedException::overpaid, ResolvedException::paid_late, ResolvedException::partial,
          ResolvedException::wrong_token, ResolvedException::refund_rejected}) {
        if (to_string(e) == text) return e;
    }
    return std::nullopt;
}

std::optional<ActorKind> parse_actor_kind(std::string_view text) {
    if (text == "wallet") return ActorKind::wallet;
    if (text == "key") return ActorKind::key;
    return std::nullopt;
}

namespace {

bool prefixed_id(std::string_view text, std::string_view prefix) {
    return text.size() > prefix.size() && text.size() <= 128 && text.starts_with(prefix) &&
           detail::is_id_charset(text);
}

bool note_space(char c) { return c == ' ' || c == '\t' || c == '\n'; }

}  // namespace

bool is_key_id(std::string_view text) { return prefixed_id(text, "key_"); }
bool is_session_id(std::string_view text) { return prefixed_id(text, "ses_"); }

Result<std::string> normalize_resolution_note(std::string_view raw) {
    std::string note;
    note.reserve(raw.size());
    for (std::size_t i = 0; i < raw.size(); ++i) {
        if (raw[i] != '\r') {
            note += raw[i];
        } else if (i + 1 == raw.size() || raw[i + 1] != '\n') {
            note += '\n';  // a lone CR; a CR before LF is dropped
        }
    }
    std::size_t begin = 0;
    std::size_t end = note.size();
    while (begin < end && note_space(note[begin])) ++begin;
    while (end > begin && note_space(note[end - 1])) --end;
    note = note.substr(begin, end - begin);
    const bool controls = std::any_of(note.begin(), note.end(), [](char c) {
        const auto u = static_cast<unsigned char>(c);
        return (u < 0x20 && c != '\t' && c != '\n') || u == 0x7f;
    });
    if (note.empty() || controls || !is_storable_text(note) ||
        utf8_code_points(note) > kMaxResolutionNoteChars) {
        return make_error("invalid_note",
                          "note must be 1 to " + std::to_string(kMaxResolutionNoteChars) +
                              " characters once trimmed, without control characters other than "
                              "tabs and line breaks");
    }
    return note;
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
    if (year > 9999) {
        std::array<char, 40> buf{};
        std::snprintf(buf.data(), buf.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ",
                      static_cast<int>(year), static_cast<int>(month), static_cast<int>(day),
                      static_cast<int>(ms_of_day / 3'600'000),
                      static_cast<int>(ms_of_day / 60'000 % 60),
                      static_cast<int>(ms_of_day / 1000 % 60), static_cast<int>(ms_of_day % 1000));
        return buf.data();
    }
    // Digits written in place: snprintf was 4 % of a GET /v1/charges page's CPU (ADR 0188).
    std::string out = "0000-00-00T00:00:00.000Z";
    auto put = [&out](std::size_t at, std::size_t width, std::int64_t value) {
        for (std::size_t i = at + width; i-- > at; value /= 10)
            out[i] = static_cast<char>('0' + value % 10);
    };
    put(0, 4, year);
    put(5, 2, month);
    put(8, 2, day);
    put(11, 2, ms_of_day / 3'600'000);
    put(14, 2, ms_of_day / 60'000 % 60);
    put(17, 2, ms_of_day / 1000 % 60);
    put(20, 3, ms_of_day % 1000);
    return out;
}

namespace {

// Howard Hinnant's days_from_civil: days since 1970-01-01 of a proleptic Gregorian date.
std::int64_t days_from_civil(std::int64_t y, std::int64_t m, std::int64_t d) {
    y -= m <= 2 ? 1 : 0;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const std::int64_t yoe = y - era * 400;
    const std::int64_t doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + doe - 719468;
}

bool valid_date(int year, int month, int day) {
    static constexpr std::array kDays{31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
    if (month < 1 || month > 12 || day < 1 || day > kDays[static_cast<std::size_t>(month - 1)])
        return false;
    const bool leap = (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
    return !(month == 2 && day == 29 && !leap);
}

}  // namespace

std::optional<std::int64_t> parse_rfc3339_millis(std::string_view t) {
    std::size_t at = 0;
    auto digits = [&](std::size_t n, int& out) {
        if (at + n > t.size()) return false;
        out = 0;
        for (std::size_t i = at; i < at + n; ++i) {
            if (t[i] < '0' || t[i] > '9') return false;
            out = out * 10 + (t[i] - '0');
        }
        at += n;
        return true;
    };
    auto expect = [&](char c) {
        if (at >= t.size() || (t[at] != c && t[at] != (c | 0x20))) return false;
        ++at;
        return true;
    };
    int year = 0, month = 0, day = 0, hour = 0, minute = 0, second = 0;
    if (!digits(4, year) || !expect('-') || !digits(2, month) || !expect('-') || !digits(2, day) ||
        !valid_date(year, month, day))
        return std::nullopt;
    std::int64_t offset_minutes = 0;
    std::int64_t millis = 0;
    if (at < t.size()) {
        if (!expect('T') || !digits(2, hour) || !expect(':') || !digits(2, minute) ||
            !expect(':') || !digits(2, second) || hour > 23 || minute > 59 || second > 59)
            return std::nullopt;
        if (at < t.size() && t[at] == '.') {
            ++at;
            std::size_t n = 0;
            for (; at < t.size() && t[at] >= '0' && t[at] <= '9'; ++at, ++n) {
                if (n < 3) millis = millis * 10 + (t[at] - '0');
            }
            if (n == 0) return std::nullopt;
            for (; n < 3; ++n) millis *= 10;
        }
        if (at < t.size() && (t[at] == '+' || t[at] == '-')) {
            const int sign = t[at] == '+' ? 1 : -1;
            ++at;
            int oh = 0, om = 0;
            if (!digits(2, oh) || !expect(':') || !digits(2, om) || oh > 23 || om > 59)
                return std::nullopt;
            offset_minutes = std::int64_t{sign} * (oh * 60 + om);
        } else if (!expect('Z')) {
            return std::nullopt;
        }
        if (at != t.size()) return std::nullopt;
    }
    const std::int64_t seconds = days_from_civil(year, month, day) * 86'400 +
                                 std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second -
                                 offset_minutes * 60;
    if (seconds < 0) return std::nullopt;
    return seconds * 1000 + millis;
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
    return valid_date(year, month, day) && hour < 24 && minute < 60 && second < 60;
}

}  // namespace duepay::domain::events
