// Every environment variable duepay reads, in one table (ADR 0205): its name, its default and what
// it means. `duepay --help` prints it (env_help), docs/operations.md ("Environment") lists the
// same rows (the unit test infra_config_env_table_test compares them), and the reading functions
// of env.hpp refuse a name that is not in it, or a default that differs from it, with a
// ConfigError at the first read: code, help and docs cannot drift apart.
#pragma once

#include <span>
#include <string>
#include <string_view>

namespace duepay::infra::config {

struct EnvVar {
    enum class Kind {
        required,   // no default: a role that reads it does not start without it
        defaulted,  // `fallback` below is what an unset (or empty) variable means
        optional,   // unset means "none" or a value derived from another setting (`fallback` says)
    };
    std::string_view name;  // a family ends in "<...>": DUEPAY_START_BLOCK_<chainId>
    Kind kind = Kind::defaulted;
    std::string_view fallback;  // defaulted: the exact default; optional: what unset means
    std::string_view roles;     // who reads it
    std::string_view meaning;
};

std::span<const EnvVar> env_table();

// The row of `name` (a family's row for a name of the family), or nullptr.
const EnvVar* find_env_var(std::string_view name);

// The table as `duepay --help` shows it: one block per variable, name, default and meaning. With
// `role`, only the rows that role reads (its name in `roles`, or "every role").
std::string env_help(std::string_view role = {});

}  // namespace duepay::infra::config
