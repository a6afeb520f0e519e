#include "domain/webhooks/delivery_log.hpp"

#include <algorithm>

#include "domain/text.hpp"

namespace duepay::domain::webhooks {
namespace {

constexpr std::string_view kReplacement = "\xEF\xBF\xBD";  // U+FFFD

// The length of the UTF-8 sequence a lead byte starts; 0 for a byte no sequence starts with.
std::size_t sequence_length(unsigned char lead) {
    if (lead < 0x80) return 1;
    if (lead >= 0xC2 && lead <= 0xDF) return 2;
    if (lead >= 0xE0 && lead <= 0xEF) return 3;
    if (lead >= 0xF0 && lead <= 0xF4) return 4;
    return 0;
}

char32_t decode(std::string_view seq) {
    const auto b = [&](std::size_t i) {
        return static_cast<char32_t>(static_cast<unsigned char>(seq[i]));
    };
    switch (seq.size()) {
        case 1:
            return b(0);
        case 2:
            return ((b(0) & 0x1F) << 6) | (b(1) & 0x3F);
        case 3:
            return ((b(0) & 0x0F) << 12) | ((b(1) & 0x3F) << 6) | (b(2) & 0x3F);
        default:
            return ((b(0) & 0x07) << 18) | ((b(1) & 0x3F) << 12) | ((b(2) & 0x3F) << 6) |
                   (b(3) & 0x3F);
    }
}

bool is_bidi_control(char32_t c) {
    return c == 0x061C || c == 0x200E || c == 0x200F || (c >= 0x202A && c <= 0x202E) ||
           (c >= 0x2066 && c <= 0x2069);
}

}  // namespace

std::string response_excerpt(std::string_view body, std::size_t max_bytes) {
    std::string out;
    std::size_t i = 0;
    while (i < body.size()) {
        const auto n = sequence_length(static_cast<unsigned char>(body[i]));
        std::string_view piece;
        if (n != 0 && i + n <= body.size() && is_valid_utf8(body.substr(i, n))) {
            const auto seq = body.substr(i, n);
            const char32_t c = decode(seq);
            i += n;
            if (c == '\t' || c == '\n' || c == '\r' || c == 0x2028 || c == 0x2029) {
                piece = " ";
            } else if (c < 0x20 || (c >= 0x7F && c <= 0x9F) || is_bidi_control(c)) {
                continue;
            } else {
                piece = seq;
            }
        } else {
            piece = kReplacement;
            ++i;
        }
        if (out.size() + piece.size() > max_bytes) break;
        out += piece;
    }
    return out;
}

std::optional<int> success_permille(const AttemptCounts& counts) {
    if (counts.attempts <= 0) return std::nullopt;
    const auto delivered = std::min(counts.delivered, counts.attempts);
    return static_cast<int>(delivered * 1000 / counts.attempts);
}

std::string success_rate_text(const AttemptCounts& counts) {
    const auto permille = success_permille(counts);
    if (!permille) return {};
    std::string out = std::to_string(*permille / 10);
    if (*permille % 10 != 0) {
        out += '.';
        out += static_cast<char>('0' + *permille % 10);
    }
    out += " %";
    return out;
}

EndpointHealth endpoint_health(const HealthInputs& in) {
    if (!in.enabled) {
        return in.disabled_for_failing ? EndpointHealth::disabled_failing
                                       : EndpointHealth::disabled;
    }
    if (in.failing) return EndpointHealth::failing;
    const auto permille = success_permille(in.counts);
    if (!permille) return EndpointHealth::idle;
    return *permille < 950 ? EndpointHealth::degraded : EndpointHealth::healthy;
}

std::string_view to_string(EndpointHealth h) {
    switch (h) {
        case EndpointHealth::disabled_failing:
            return "disabled_failing";
        case EndpointHealth::disabled:
            return "disabled";
        case EndpointHealth::failing:
            return "failing";
        case EndpointHealth::idle:
            return "idle";
        case EndpointHealth::degraded:
            return "degraded";
        case EndpointHealth::healthy:
            return "healthy";
    }
    return "idle";
}

}  // namespace duepay::domain::webhooks
