// `duepay admin …`: account management that prints JSON (DESIGN 7). Projects, keys, payout wallet
// proof and the chain registry (admin_accounts.cpp, docs/accounts.md); the demo project and its
// deterministic test key; topic creation for isolated test topics.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace duepay::consumers {

int run_admin(const std::vector<std::string>& args);

// The one reader of `duepay admin` flags, shared by every admin command: the word after the first
// `name` in args (empty when given as ''), or nullopt when `name` is not there or is last. Flags
// it is not asked for are passed over.
std::optional<std::string> admin_flag(const std::vector<std::string>& args, std::string_view name);

// A rejection of an admin command's input: {"error":{"code","message"}} on stderr.
struct AdminRejection {
    std::string code;
    std::string message;
};

// admin_flag for a flag that must be given and not be empty; else AdminRejection
// missing_argument ("--name is required").
std::string required_admin_flag(const std::vector<std::string>& args, std::string_view name);

// Prints the rejection; returns its exit status: 2 for "usage" and "missing_argument", else 1.
int report_admin_rejection(const AdminRejection& rejection);

// project | key | wallet | chains (admin_accounts.cpp); nullopt when args[0] is none of them.
std::optional<int> run_account_command(const std::vector<std::string>& args);

// quarantine list|retry (admin_quarantine.cpp, docs/operations.md); nullopt when args[0] is not
// "quarantine".
std::optional<int> run_quarantine_command(const std::vector<std::string>& args);

// webhook add|list|show|update|delete|rotate|test|deliveries|redeliver (admin_webhooks.cpp,
// docs/webhooks.md); nullopt when args[0] is not "webhook".
std::optional<int> run_webhook_command(const std::vector<std::string>& args);

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
