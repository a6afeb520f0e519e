// Reading the process environment: one place that names the variable in every error, so a role
// that misses its configuration says which variable and where it usually comes from.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "infra/error.hpp"

namespace duepay::infra::config {

// A missing or malformed setting: not retryable, the process should exit with the message.
class ConfigError : public InfraError {
  public:
    // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
    explicit ConfigError(const std::string& what) : InfraError(what, false) {}
};

// The value of `name`, or throws ConfigError naming it (and var/dev.env, which defines them all).
std::string require_env(const char* name);

// The value of `name`, or `fallback` when unset or empty.
std::string env_or(const char* name, std::string fallback);

// True when `name` is set, even to the empty string (a flag such as DUEPAY_CHAINWATCH_TRACE).
bool env_is_set(const char* name);

// Every "NAME=value" entry of the environment whose name starts with `prefix` and is in the
// table (a family row such as DUEPAY_KAFKA_<property>), in order.
std::vector<std::string> environment_entries(std::string_view prefix);

// An integer setting within [min, max], or `fallback` when unset; throws ConfigError if malformed.
long long env_int_or(const char* name, long long fallback, long long min, long long max);

}  // namespace duepay::infra::config
