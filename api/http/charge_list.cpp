#include "api/http/charge_list.hpp"

#include <array>
#include <map>
#include <set>

#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/metadata.hpp"
#include "domain/hex.hpp"
#include "domain/text.hpp"

namespace duepay::api {
namespace {

constexpr std::string_view kCursorPrefix = "c1_";
constexpr std::string_view kMetadataPrefix = "metadata[";
constexpr std::int64_t kMinMicros = -62'135'596'800'000'000;  // 0001-01-01T00:00:00Z
constexpr std::int64_t kMaxMicros = 253'402'300'799'999'999;  // 9999-12-31T23:59:59.999999Z

bool lower_hex(std::string_view s) {
    for (char c : s) {
        if (!((c >= '0' && c <= '9') || (c >= 'a' && c <= 'f'))) return false;
    }
    return true;
}

// Fixed-width decimal digits at s[at, at + n); -1 when any is not a digit.
int digits(std::string_view s, std::size_t at, std::size_t n) {
    if (at + n > s.size()) return -1;
    int v = 0;
    for (std::size_t i = at; i < at + n; ++i) {
        if (s[i] < '0' || s[i] > '9') return -1;
        v = v * 10 + (s[i] - '0');
    }
    return v;
}

// Days from 1970-01-01 to y-m-d (proleptic Gregorian; H. Hinnant's days_from_civil).
std::int64_t days_from_civil(std::int64_t y, unsigned m, unsigned d) {
    y -= m <= 2;
    const std::int64_t era = (y >= 0 ? y : y - 399) / 400;
    const auto yoe = static_cast<unsigned>(y - era * 400);
    const unsigned doy = (153 * (m > 2 ? m - 3 : m + 9) + 2) / 5 + d - 1;
    const unsigned doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
    return era * 146097 + static_cast<std::int64_t>(doe) - 719468;
}

unsigned days_in_month(int y, int m) {
    static constexpr std::array<unsigned, 12> kDays = {31, 28, 31, 30, 31, 30,
                                                       31, 31, 30, 31, 30, 31};
    const bool leap = (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
    return m == 2 && leap ? 29 : kDays[static_cast<std::size_t>(m - 1)];
}

}  // namespace

std::string encode_list_cursor(const ListPosition& position) {
    std::array<std::uint8_t, 8> at{};
    auto us = static_cast<std::uint64_t>(position.created_us);
    for (int i = 7; i >= 0; --i, us >>= 8) at[static_cast<std::size_t>(i)] = us & 0xff;
    return std::string(kCursorPrefix) + domain::to_hex(at).substr(2) +
           position.invoice_id.substr(2);
}

std::optional<ListPosition> decode_list_cursor(std::string_view cursor) {
    if (cursor.size() != kCursorPrefix.size() + 80 || !cursor.starts_with(kCursorPrefix))
        return std::nullopt;
    const auto hex = cursor.substr(kCursorPrefix.size());
    if (!lower_hex(hex)) return std::nullopt;
    std::uint64_t us = 0;
    for (char c : hex.substr(0, 16)) {
        us = us << 4 | static_cast<std::uint64_t>(domain::hex_digit_value(c));
    }
    // Years 0001-9999, as parse_rfc3339_micros: a forged position past them is not a position.
    const auto created_us = static_cast<std::int64_t>(us);
    if (created_us < kMinMicros || created_us > kMaxMicros) return std::nullopt;
    std::string invoice_id = "0x";
    invoice_id += hex.substr(16);
    return ListPosition{created_us, std::move(invoice_id)};
}

std::optional<std::int64_t> parse_rfc3339_micros(std::string_view s) {
    // YYYY-MM-DDTHH:MM:SS
    if (s.size() < 20 || s[4] != '-' || s[7] != '-' || (s[10] != 'T' && s[10] != 't') ||
        s[13] != ':' || s[16] != ':') {
        return std::nullopt;
    }
    const int year = digits(s, 0, 4), month = digits(s, 5, 2), day = digits(s, 8, 2);
    const int hour = digits(s, 11, 2), minute = digits(s, 14, 2), second = digits(s, 17, 2);
    if (year < 1 || month < 1 || month > 12 || day < 1 ||
        static_cast<unsigned>(day) > days_in_month(year, month) || hour < 0 || hour > 23 ||
        minute < 0 || minute > 59 || second < 0 || second > 59) {
        return std::nullopt;
    }
    std::size_t at = 19;
    std::int64_t micros = 0;
    if (s[at] == '.') {
        ++at;
        std::size_t n = 0;
        for (; at < s.size() && s[at] >= '0' && s[at] <= '9'; ++at, ++n) {
            if (n < 6) micros = micros * 10 + (s[at] - '0');
        }
        if (n == 0 || n > 9) return std::nullopt;
        for (; n < 6; ++n) micros *= 10;
    }
    if (at >= s.size()) return std::nullopt;
    std::int64_t offset_s = 0;
    if (s[at] == 'Z' || s[at] == 'z') {
        ++at;
    } else if (s[at] == '+' || s[at] == '-') {
        const int oh = digits(s, at + 1, 2), om = digits(s, at + 4, 2);
        if (at + 6 > s.size() || s[at + 3] != ':' || oh < 0 || oh > 23 || om < 0 || om > 59)
            return std::nullopt;
        offset_s = (std::int64_t{oh} * 3600 + std::int64_t{om} * 60) * (s[at] == '-' ? -1 : 1);
        at += 6;
    } else {
        return std::nullopt;
    }
    if (at != s.size()) return std::nullopt;
    const std::int64_t seconds =
        days_from_civil(year, static_cast<unsigned>(month), static_cast<unsigned>(day)) * 86400 +
        std::int64_t{hour} * 3600 + std::int64_t{minute} * 60 + second - offset_s;
    return seconds * 1'000'000 + micros;
}

domain::Result<ChargeListQuery> parse_list_query(const ApiRequest& request, const KeyOwner& owner) {
    using domain::make_error;
    if (auto unknown = unknown_param(
            request,
            {"limit", "cursor", "status", "createdGte", "createdLt", "reference", "chainId"},
            kMetadataPrefix)) {
        return std::move(*unknown);
    }
    ChargeListQuery q;
    q.project_id = owner.project_id;
    q.mode = owner.mode;
    q.limit = kDefaultListLimit;
    std::set<std::string> seen;
    domain::events::Metadata metadata;
    for (const auto& [name, value] : request.query_params()) {
        if (name.starts_with(kMetadataPrefix)) {
            // metadata[<key>]=<value>: exact match of one key's value.
            if (!name.ends_with("]")) {
                return make_error("invalid_metadata",
                                  "a metadata filter is written metadata[<key>]=<value>");
            }
            const auto key =
                name.substr(kMetadataPrefix.size(), name.size() - kMetadataPrefix.size() - 1);
            if (!domain::events::is_metadata_key(key)) {
                return make_error("invalid_metadata",
                                  "metadata keys are 1-40 characters of A-Z a-z 0-9 _ . -");
            }
            if (!metadata.emplace(key, value).second) {
                return make_error("invalid_metadata",
                                  "metadata[" + key + "] is given more than once");
            }
            continue;
        }
        if (!seen.insert(name).second) {
            static const std::map<std::string, std::string> kCodes = {
                {"limit", "invalid_limit"},         {"cursor", "invalid_cursor"},
                {"status", "invalid_status"},       {"createdGte", "invalid_timestamp"},
                {"createdLt", "invalid_timestamp"}, {"reference", "invalid_reference"},
                {"chainId", "invalid_chain_id"}};
            return make_error(kCodes.at(name), name + " is given more than once");
        }
        if (name == "limit") {
            const bool number = !value.empty() && value.size() <= 3 &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            const auto n = number ? std::stoul(value) : 0;
            if (n < 1 || n > kMaxListLimit)
                return make_error("invalid_limit", "limit must be an integer from 1 to 100");
            q.limit = n;
        } else if (name == "cursor") {
            auto position = decode_list_cursor(value);
            if (!position) {
                return make_error("invalid_cursor",
                                  "cursor must be a nextCursor of an earlier page, unchanged");
            }
            q.after = std::move(*position);
        } else if (name == "status") {
            q.status = domain::charge::parse_status(value);
            if (!q.status) {
                return make_error("invalid_status",
                                  "status must be pending, confirming, paid, underpaid, expired, "
                                  "failed or refunded");
            }
        } else if (name == "createdGte" || name == "createdLt") {
            auto at = parse_rfc3339_micros(value);
            if (!at) {
                return make_error("invalid_timestamp",
                                  name +
                                      " must be an RFC 3339 time such as "
                                      "2026-11-23T10:00:00Z (percent-encode a + offset)");
            }
            (name == "createdGte" ? q.created_gte_us : q.created_lt_us) = *at;
        } else if (name == "reference") {
            if (!domain::is_storable_text(value) || domain::utf8_code_points(value) > 255) {
                return make_error("invalid_reference",
                                  "reference must be text of at most 255 characters");
            }
            q.reference = value;
        } else if (name == "chainId") {
            const bool number = !value.empty() && value.size() <= 18 && value[0] != '0' &&
                                value.find_first_not_of("0123456789") == std::string::npos;
            if (!number)
                return make_error("invalid_chain_id", "chainId must be a positive integer");
            q.chain_id = std::stoull(value);
        }
    }
    if (!metadata.empty()) {
        if (auto bad = domain::events::check_metadata(metadata))
            return make_error(bad->code, bad->message);
        q.metadata_json = domain::events::encode_metadata(metadata);
    }
    return q;
}

}  // namespace duepay::api
