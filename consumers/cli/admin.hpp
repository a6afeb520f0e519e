// `duepay admin …`: account management, JSON out (docs/design.md). Projects, keys, payout wallet
// proof (admin_accounts.cpp) and the chain registry (admin_chains.cpp), docs/accounts.md; the
// demo project and its deterministic test key; topic creation for isolated test topics;
// quarantine (admin_quarantine.cpp) and webhook endpoints (admin_webhooks.cpp). Its words are
// parsed with CLI11, like every other subcommand, by an App of its own, so that its usage errors
// come out in its one error shape ({"error":{"code","message"}} on stderr, exit 2) rather than
// in CLI11's text (ADR 0196).
#pragma once

#include <functional>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace CLI {
class App;
}

namespace duepay::consumers {

// Parses `args` (the words after `admin`) and runs the command they name; returns the exit
// status: 0, 1 for a rejection or failure, 2 for usage.
int run_admin(const std::vector<std::string>& args);

// A subcommand of `duepay admin` (or of one of its groups) as every admin command has it: flags
// it does not declare are passed over, and extra words are left for its run to judge, as the
// hand parser before CLI11 did (docs/accounts.md shows no other use).
CLI::App& admin_subcommand(CLI::App& parent, const std::string& name, const std::string& help);

// Declares the flag `name` ("--name") on `cmd`: its value as given ("" when given as ''), the
// first one when the flag is repeated, nullopt when it is absent.
void admin_option(CLI::App& cmd, const std::string& name, std::optional<std::string>& value,
                  const std::string& help);

// A rejection of an admin command's input: {"error":{"code","message"}} on stderr. A
// std::invalid_argument whose what() is the message; thrown as AdminRejection{code, message}.
struct AdminRejection : std::invalid_argument {
    AdminRejection(std::string rejection_code, const std::string& text)
        : std::invalid_argument(text), code(std::move(rejection_code)), message(text) {}
    std::string code;
    std::string message;
};

// The value of a flag that must be given and not be empty; else AdminRejection missing_argument
// ("--name is required").
std::string required_admin_flag(const std::optional<std::string>& value, std::string_view name);

// Prints the rejection; returns its exit status: 2 for "usage" and "missing_argument", else 1.
int report_admin_rejection(const AdminRejection& rejection);

// What a group of admin commands declares: once the words are parsed, it runs the one of its
// commands they named and returns its exit status, or nullopt when they named none of its groups.
using AdminGroupRun = std::function<std::optional<int>()>;

// project | key | wallet (admin_accounts.cpp, docs/accounts.md).
AdminGroupRun define_account_commands(CLI::App& admin);

// chains: the registry of DUEPAY_CHAINS_FILE (admin_chains.cpp, docs/accounts.md).
AdminGroupRun define_chains_command(CLI::App& admin);

// quarantine list|retry (admin_quarantine.cpp, docs/operations.md).
AdminGroupRun define_quarantine_commands(CLI::App& admin);

// webhook add|list|show|update|delete|rotate|test|deliveries|redeliver (admin_webhooks.cpp,
// docs/webhooks.md).
AdminGroupRun define_webhook_commands(CLI::App& admin);

// The one error shape of every admin command: {"error":{"code","message"}} on stderr.
void print_admin_error(const std::string& code, const std::string& message);

// For `catch (...)` after a command's own rejections: prints the exception in flight as an admin
// error (config_error, database_unavailable with the driver's text, or internal_error) and
// returns the exit status, 1.
int report_admin_exception();

// The deterministic demo test key: "dp_test_" + the first 48 hex digits of
// HMAC-SHA256(server_secret_bytes, key_id). Exposed for tests.
std::string derive_test_key(const std::string& server_secret_hex, const std::string& key_id);

}  // namespace duepay::consumers
