// Reading the process environment: one place that names the variable in every error, so a role
// that misses its configuration says which variable and where it usually comes from.
#pragma once

#include <string>

#include "infra/error.hpp"

namespace duepay::infra::config {

// A missing or malformed setting: not retryable, the process should exit with the message.
class ConfigError : public InfraError {
  public:
    explicit ConfigError(const std::string& what) : InfraError(what, false) {}
};

// The value of `name`, or throws ConfigError naming it (and var/dev.env, which defines them all).
std::string require_env(const char* name);

// The value of `name`, or `fallback` when unset or empty.
std::string env_or(const char* name, std::string fallback);

// An integer setting within [min, max], or `fallback` when unset; throws ConfigError if malformed.
long long env_int_or(const char* name, long long fallback, long long min, long long max);

}  // namespace duepay::infra::config
