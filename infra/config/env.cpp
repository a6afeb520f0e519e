#include "infra/config/env.hpp"

#include <unistd.h>

#include <charconv>
#include <cstdlib>

#include "infra/config/env_table.hpp"

namespace duepay::infra::config {
namespace {

// Every read goes through the table (env_table.hpp): a name missing from it, or a default that
// differs from its row, is a mistake of this build that would make --help and the docs wrong.
const EnvVar& tabled(const char* name) {
    const auto* row = find_env_var(name);
    if (row == nullptr) {
        throw ConfigError(std::string("environment variable ") + name +
                          " is read but not in the table of infra/config/env_table.cpp");
    }
    return *row;
}

void check_default(const char* name, std::string_view fallback) {
    const auto& row = tabled(name);
    if (row.kind == EnvVar::Kind::defaulted && row.fallback != fallback) {
        throw ConfigError(std::string("environment variable ") + name + ": the code's default '" +
                          std::string(fallback) + "' is not the table's '" +
                          std::string(row.fallback) + "' (infra/config/env_table.cpp)");
    }
}

}  // namespace

std::string require_env(const char* name) {
    tabled(name);
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') {
        throw ConfigError(std::string("missing environment variable ") + name +
                          " (set it, or source var/dev.env written by infra/dev/stack.sh)");
    }
    return value;
}

std::string env_or(const char* name, std::string fallback) {
    check_default(name, fallback);
    const char* value = std::getenv(name);
    if (value == nullptr || *value == '\0') return fallback;
    return value;
}

std::vector<std::string> environment_entries(std::string_view prefix) {
    std::vector<std::string> out;
    for (char** e = environ; e != nullptr && *e != nullptr; ++e) {
        const std::string_view entry(*e);
        if (!entry.starts_with(prefix)) continue;
        const auto name = entry.substr(0, entry.find('='));
        if (find_env_var(name) == nullptr) {
            throw ConfigError("environment variable " + std::string(name) +
                              " is read but not in the table of infra/config/env_table.cpp");
        }
        out.emplace_back(entry);
    }
    return out;
}

bool env_is_set(const char* name) {
    tabled(name);
    return std::getenv(name) != nullptr;
}

long long env_int_or(const char* name, long long fallback, long long min, long long max) {
    check_default(name, std::to_string(fallback));
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
