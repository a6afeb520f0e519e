#include "infra/config/env.hpp"

#include <charconv>
#include <cstdlib>

namespace duepay::infra::config {

std::string require_env(const char* name) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        throw ConfigError(std::string("missing environment variable ") + name +
                          " (set it, or source var/dev.env written by infra/dev/stack.sh)");
    }
    return value;
}

std::string env_or(const char* name, std::string fallback) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    return value;
}

long long env_int_or(const char* name, long long fallback, long long min, long long max) {
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    std::string_view text(value);
    long long parsed = 0;
    auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), parsed);
    if (ec != std::errc() || end != text.data() + text.size() || parsed < min || parsed > max) {
        throw ConfigError(std::string("environment variable ") + name + "='" + value +
                          "' is not an integer in [" + std::to_string(min) + ", " +
                          std::to_string(max) + "]");
    }
    return parsed;
}

}  // namespace duepay::infra::config
