#include "consumers/cli/admin.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <array>
#include <chrono>
#include <iostream>
#include <optional>

#include "domain/events/json_writer.hpp"
#include "domain/hex.hpp"
#include "infra/accounts/account_admin.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/topic_admin.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::consumers {
namespace {

constexpr const char* kDemoProjectId = "prj_demo";
constexpr const char* kDemoKeyId = "key_demo_test";
// anvil's well-known dev account #1: the demo payout wallet (its key is public; dev only).
constexpr const char* kDemoPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

const char* kAdminUsage =
    "usage: duepay admin demo\n"
    "           ensure the project \"Demo shop\" (verified payout wallet) and its deterministic "
    "test key;\n"
    "           prints {\"projectId\",\"keyId\",\"key\"}. Needs DATABASE_URL, "
    "DUEPAY_SERVER_SECRET.\n"
    "           A revoked or rolled demo key is not revived (error key_revoked, exit 1).\n"
    "       duepay admin topic create --name T --partitions N [--replication-factor R]\n"
    "                                 [--min-insync-replicas M]\n"
    "           create a topic (if missing) on KAFKA_BOOTSTRAP with infinite retention\n"
    "           (retention.ms=-1), R replicas (default 1) and min.insync.replicas M (default a\n"
    "           majority, (R+1)/2); prints {\"topic\",\"partitions\",\"replicationFactor\",\n"
    "           \"minInsyncReplicas\"}. An existing topic is left unchanged.\n"
    "       duepay admin project create --name N [--plan free|pro|scale|unmetered] "
    "[--window-seconds S]\n"
    "                                   [--logo-url U] [--accent-color #RRGGBB]\n"
    "       duepay admin project show --project P\n"
    "       duepay admin project update --project P [--name N] [--plan ..] [--window-seconds S]\n"
    "                                   [--logo-url U|''] [--accent-color #RRGGBB|'']\n"
    "       duepay admin key create --project P --mode test|live   (a live key is printed only "
    "now)\n"
    "       duepay admin key show --key-id K                      (test keys only)\n"
    "       duepay admin key list --project P\n"
    "       duepay admin key revoke --key-id K\n"
    "       duepay admin wallet challenge --project P --address A [--ttl-seconds S]\n"
    "       duepay admin wallet verify --project P --address A --signature 0x.. [--nonce N]\n"
    "       duepay admin chains                                   (the registry in "
    "DUEPAY_CHAINS_FILE)\n"
    "       duepay admin quarantine list [--group G] [--all]   (events consumers could not apply)\n"
    "       duepay admin quarantine retry <id>       (re-apply one; docs/operations.md)\n"
    "       duepay admin webhook add|list|show|update|delete|rotate|test|deliveries|redeliver ...\n"
    "                                   (duepay admin webhook --help; docs/webhooks.md)\n"
    "       duepay admin simulate-payment --invoice ID ...   (same as duepay simulate-payment)\n"
    "       `duepay admin <command> <subcommand> --help` shows the flags of one command.\n"
    "       All print JSON; errors are {\"error\":{\"code\",\"message\"}} on stderr, exit 1\n"
    "       (2 for usage). Details: docs/accounts.md.\n";

int demo() {
    const auto url = infra::config::require_env("DATABASE_URL");
    const auto secret = infra::config::require_env("DUEPAY_SERVER_SECRET");
    const auto key = derive_test_key(secret, kDemoKeyId);
    infra::accounts::AccountAdmin db(url);
    // Plan unmetered: the demo and the load benches create far more than any plan allows
    // (docs/limits.md). A revoked demo key stays revoked: ops revoked it for a reason
    // (docs/accounts.md).
    if (!db.ensure_demo({kDemoProjectId, "Demo shop", "unmetered", std::string(kDemoPayout)},
                        kDemoKeyId, "test", infra::random::sha256(key), key.substr(0, 12))) {
        std::cerr << R"({"error":{"code":"key_revoked","message":"the demo key )" << kDemoKeyId
                  << R"( was revoked or rolled and stays so; create another key with )"
                  << R"(duepay admin key create"}})" << std::endl;
        return 1;
    }
    std::cout << R"({"projectId":")" << kDemoProjectId << R"(","keyId":")" << kDemoKeyId
              << R"(","key":")" << key << "\"}" << std::endl;
    return 0;
}

// A small positive integer flag, or nullopt when it is not one.
std::optional<int> count_flag(const std::string& text) {
    if (text.empty() || text.size() > 4 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
        return std::nullopt;
    }
    const int v = std::stoi(text);
    return v >= 1 ? std::optional<int>(v) : std::nullopt;
}

struct TopicFlags {
    std::optional<std::string> name, partitions, replication_factor, min_insync_replicas;
};

int topic_create(const TopicFlags& flags) {
    const auto name = flags.name.value_or("");
    const auto partitions = count_flag(flags.partitions.value_or("6"));
    const auto replication = count_flag(flags.replication_factor.value_or("1"));
    if (name.empty() || !partitions || !replication) {
        std::cerr << kAdminUsage;
        return 2;
    }
    infra::kafka::TopicSettings settings;
    settings.partitions = *partitions;
    settings.replication_factor = *replication;
    if (const auto m = flags.min_insync_replicas.value_or(""); !m.empty()) {
        settings.min_insync_replicas = count_flag(m);
        if (!settings.min_insync_replicas || *settings.min_insync_replicas > *replication) {
            std::cerr << "duepay admin topic create: --min-insync-replicas must be from 1 to the "
                         "replication factor\n";
            return 2;
        }
    }
    infra::kafka::ensure_topic(infra::config::require_env("KAFKA_BOOTSTRAP"), name, settings,
                               std::chrono::milliseconds(10000));
    std::cout << R"({"topic":")" << name << R"(","partitions":)" << settings.partitions
              << R"(,"replicationFactor":)" << settings.replication_factor
              << R"(,"minInsyncReplicas":)" << infra::kafka::min_insync_replicas_for(settings)
              << "}" << std::endl;
    return 0;
}

}  // namespace

CLI::App& admin_subcommand(CLI::App& parent, const std::string& name, const std::string& help) {
    auto* cmd = parent.add_subcommand(name, help);
    cmd->allow_extras();
    cmd->set_help_flag("-h,--help", "print the flags of this command");
    return *cmd;
}

void admin_option(CLI::App& cmd, const std::string& name, std::optional<std::string>& value,
                  const std::string& help) {
    cmd.add_option(name, value, help)->multi_option_policy(CLI::MultiOptionPolicy::TakeFirst);
}

std::string required_admin_flag(const std::optional<std::string>& value, std::string_view name) {
    if (!value || value->empty())
        throw AdminRejection{"missing_argument", std::string(name) + " is required"};
    return *value;
}

int report_admin_rejection(const AdminRejection& rejection) {
    print_admin_error(rejection.code, rejection.message);
    return rejection.code == "usage" || rejection.code == "missing_argument" ? 2 : 1;
}

std::string derive_test_key(const std::string& server_secret_hex, const std::string& key_id) {
    auto secret = domain::from_hex(server_secret_hex);
    if (!secret || secret->size() < 16) {
        throw infra::config::ConfigError("DUEPAY_SERVER_SECRET must be at least 16 bytes of hex");
    }
    return infra::random::derive_test_key(*secret, key_id);
}

void print_admin_error(const std::string& code, const std::string& message) {
    rapidjson::StringBuffer b;
    domain::json::Writer w(b);
    w.StartObject();
    w.Key("error");
    w.StartObject();
    domain::json::str(w, "code", code);
    domain::json::str(w, "message", message);
    w.EndObject();
    w.EndObject();
    std::cerr << b.GetString() << std::endl;
}

int report_admin_exception() {
    try {
        throw;
    } catch (const infra::config::ConfigError& e) {
        print_admin_error("config_error", e.what());
    } catch (const infra::postgres::DatabaseUnavailable& e) {
        print_admin_error("database_unavailable",
                          std::string("cannot reach Postgres (DATABASE_URL): ") + e.what());
    } catch (const std::exception& e) {
        print_admin_error("internal_error", e.what());
    }
    return 1;
}

int run_admin(const std::vector<std::string>& args) {
    if (args.empty() || args[0] == "--help" || args[0] == "-h") {
        std::cout << kAdminUsage;
        return args.empty() ? 2 : 0;
    }
    CLI::App admin("accounts and ops, JSON out", "duepay admin");
    admin.set_help_flag();  // `duepay admin --help` is kAdminUsage, above
    admin.allow_extras();   // an unknown command is kAdminUsage on stderr, below
    auto& demo_cmd = admin_subcommand(admin, "demo", "ensure the demo project and its test key");
    auto& topic = admin_subcommand(admin, "topic", "topics on KAFKA_BOOTSTRAP");
    auto& topic_create_cmd = admin_subcommand(topic, "create", "create a topic (if missing)");
    TopicFlags topic_flags;
    admin_option(topic_create_cmd, "--name", topic_flags.name, "topic name (required)");
    admin_option(topic_create_cmd, "--partitions", topic_flags.partitions, "partitions (6)");
    admin_option(topic_create_cmd, "--replication-factor", topic_flags.replication_factor,
                 "replicas (1)");
    admin_option(topic_create_cmd, "--min-insync-replicas", topic_flags.min_insync_replicas,
                 "min.insync.replicas (a majority of the replicas)");
    const std::array groups{define_account_commands(admin), define_chains_command(admin),
                            define_quarantine_commands(admin), define_webhook_commands(admin)};
    try {
        std::vector<std::string> reversed(args.rbegin(), args.rend());  // CLI11 pops from the back
        admin.parse(reversed);
    } catch (const CLI::CallForHelp&) {
        std::cout << admin.help();  // the help of the command named, with its flags
        return 0;
    } catch (const CLI::ParseError& e) {
        print_admin_error("usage", e.what());  // a flag without its value
        return 2;
    }
    if (demo_cmd.parsed()) return demo();
    for (const auto& group : groups) {
        if (auto rc = group()) return *rc;
    }
    if (topic_create_cmd.parsed()) return topic_create(topic_flags);
    std::cerr << kAdminUsage;
    return 2;
}

}  // namespace duepay::consumers
