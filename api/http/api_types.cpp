#include "api/http/api_types.hpp"

#include <algorithm>
#include <cctype>

namespace duepay::api {
namespace {

std::string form_decode(std::string_view s) {
    std::string out;
    out.reserve(s.size());
    auto hex = [](char c) { return std::isxdigit(static_cast<unsigned char>(c)) != 0; };
    for (std::size_t i = 0; i < s.size(); ++i) {
        if (s[i] == '+') {
            out.push_back(' ');
        } else if (s[i] == '%' && i + 2 < s.size() && hex(s[i + 1]) && hex(s[i + 2])) {
            out.push_back(
                static_cast<char>(std::stoi(std::string(s.substr(i + 1, 2)), nullptr, 16)));
            i += 2;
        } else {
            out.push_back(s[i]);
        }
    }
    return out;
}

}  // namespace

std::string form_encode(std::string_view text) {
    static constexpr std::string_view kHex = "0123456789ABCDEF";
    std::string out;
    out.reserve(text.size());
    for (const unsigned char ch : text) {
        if (std::isalnum(ch) != 0 || ch == '-' || ch == '_' || ch == '.' || ch == '~') {
            out += static_cast<char>(ch);
        } else {
            out += '%';
            out += kHex[ch >> 4U];
            out += kHex[ch & 15U];
        }
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> form_params(std::string_view text) {
    std::vector<std::pair<std::string, std::string>> out;
    std::string_view rest = text;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const auto pair = rest.substr(0, amp);
        if (!pair.empty()) {
            const auto eq = pair.find('=');
            out.emplace_back(
                form_decode(pair.substr(0, eq)),
                eq == std::string_view::npos ? std::string() : form_decode(pair.substr(eq + 1)));
        }
        if (amp == std::string_view::npos) break;
        rest.remove_prefix(amp + 1);
    }
    return out;
}

std::vector<std::pair<std::string, std::string>> ApiRequest::query_params() const {
    return form_params(query);
}

std::optional<std::string> ApiRequest::query_param(std::string_view name) const {
    for (auto& [key, value] : query_params()) {
        if (key == name) return std::move(value);
    }
    return std::nullopt;
}

std::optional<std::string> ApiRequest::unknown_query_param(
    std::initializer_list<std::string_view> known) const {
    std::string_view rest = query;
    while (!rest.empty()) {
        const auto amp = rest.find('&');
        const auto pair = rest.substr(0, amp);
        if (!pair.empty()) {
            auto name = form_decode(pair.substr(0, pair.find('=')));
            if (std::find(known.begin(), known.end(), name) == known.end()) return name;
        }
        if (amp == std::string_view::npos) break;
        rest.remove_prefix(amp + 1);
    }
    return std::nullopt;
}

std::optional<std::size_t> parse_limit_param(const ApiRequest& request) {
    auto text = request.query_param("limit");
    if (!text) return 20;
    if (text->empty() || text->size() > 3 ||
        text->find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    const auto n = std::stoul(*text);
    if (n < 1 || n > 100) return std::nullopt;
    return n;
}

}  // namespace duepay::api
