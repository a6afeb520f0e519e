#include "api/http/api_types.hpp"

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

std::vector<std::pair<std::string, std::string>> ApiRequest::query_params() const {
    std::vector<std::pair<std::string, std::string>> out;
    std::string_view rest = query;
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

std::optional<std::string> ApiRequest::query_param(std::string_view name) const {
    for (auto& [key, value] : query_params()) {
        if (key == name) return std::move(value);
    }
    return std::nullopt;
}

}  // namespace duepay::api
