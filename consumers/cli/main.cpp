// build/duepay: the composition root. kCommands is every subcommand, one line each: its name, its
// line in `duepay --help`, the function that declares its flags (CLI11) and returns what runs it,
// whether it is a long-running role (SIGINT/SIGTERM set its stop flag; the one signal mechanism
// of process.hpp) or a one-shot tool, and whether `duepay dev` runs it too. Configuration comes
// from the environment (var/dev.env); flags override.

#include <malloc.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <deque>
#include <exception>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "consumers/analysts/charge_history.hpp"
#include "consumers/analysts/events_export.hpp"
#include "consumers/analysts/replay.hpp"
#include "consumers/cli/admin.hpp"
#include "consumers/cli/command.hpp"
#include "consumers/cli/process.hpp"
#include "consumers/cli/supervisor.hpp"
#include "consumers/roles/api.hpp"
#include "consumers/roles/chainwatch.hpp"
#include "consumers/roles/checkout.hpp"
#include "consumers/roles/dashboard.hpp"
#include "consumers/roles/projector.hpp"
#include "consumers/roles/webhooks.hpp"
#include "consumers/tools/settle.hpp"
#include "consumers/tools/simulate.hpp"
#include "infra/config/env.hpp"
#include "infra/config/env_table.hpp"
#include "infra/kafka/client_config.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/ops_server.hpp"

namespace {

using namespace duepay;
using cli::Part;
using cli::run_together;

constexpr infra::log::Logger kLog{"duepay"};  // the process itself (its roles log as themselves)

enum class Kind { role, tool };
enum class Dev { no, yes, opt_in };  // opt_in: `duepay dev --with-<name>`, an extra

struct Command {
    const char* name;
    const char* usage;
    cli::Define define;
    Kind kind;
    Dev dev;
};

cli::Run define_api(CLI::App& cmd);
cli::Run define_checkout(CLI::App& cmd);
cli::Run define_projector(CLI::App& cmd);
cli::Run define_chainwatch(CLI::App& cmd);
cli::Run define_webhooks(CLI::App& cmd);
cli::Run define_dashboard(CLI::App& cmd);
cli::Run define_dev(CLI::App& cmd);
cli::Run define_admin(CLI::App& cmd);

// clang-format off
const auto kCommands = std::to_array<Command>({
    {"api", "serve the REST API", define_api, Kind::role, Dev::yes},
    {"checkout", "serve the hosted checkout: the buyer's page, public JSON and SSE "
                 "(docs/checkout.md)", define_checkout, Kind::role, Dev::yes},
    {"projector", "project charge events into the Postgres read models", define_projector,
     Kind::role, Dev::yes},
    {"chainwatch", "follow a chain (leader by Postgres advisory lock), append chain facts",
     define_chainwatch, Kind::role, Dev::opt_in},
    {"webhooks", "enqueue and deliver signed webhooks: own consumer group, libcurl multi "
                 "(docs/webhooks.md)", define_webhooks, Kind::role, Dev::opt_in},
    {"dashboard", "serve the merchant dashboard: sign in with a wallet, projects, keys, team "
                  "(docs/dashboard.md)", define_dashboard, Kind::role, Dev::yes},
    {"dev", "every role marked for dev in one process (threads): api + checkout + projector + "
            "dashboard; "
            "--with-chainwatch also follows each chain of DUEPAY_CHAIN_IDS, --with-webhooks "
            "also delivers webhooks (make run does both)",
     define_dev, Kind::role, Dev::no},
    {"settle", "sweep calldata for a charge's deposit address (--send: send it, dev chains)",
     consumers::define_settle, Kind::tool, Dev::no},
    {"simulate-payment", "pay a test-mode testnet charge from a dev buyer key",
     consumers::define_simulate_payment, Kind::tool, Dev::no},
    {"replay", "rebuild the read model from offset 0 into a fresh schema, compare, --swap "
               "it in (docs/analysts.md)", consumers::define_replay, Kind::role, Dev::no},
    {"charge", "charge history <invoiceId> [--at T]: events and status as of an instant "
               "(docs/analysts.md)", consumers::define_charge, Kind::tool, Dev::no},
    {"events", "events export: the topic as JSON Lines or CSV, by time range "
               "(docs/analysts.md)", consumers::define_events, Kind::role, Dev::no},
    {"admin", "accounts and ops, JSON out: project, key, wallet, chains, demo, topic create "
              "(duepay admin --help)", define_admin, Kind::tool, Dev::no},
});
// clang-format on

// The flags of the long-running roles, one variable per flag name: `duepay dev` declares the flags
// of every role it runs, and a flag that two roles have (--topic) is one flag for both.
struct RoleFlags {
    std::string topic;
    std::string listen;
    int threads = 0;
    std::string group;
    std::size_t batch = 0;
    std::uint64_t chain = 0;
    std::string checkout_listen;
    int checkout_threads = 0;
    std::string dashboard_listen;
    int dashboard_threads = 0;
    std::string webhooks_group;  // not --group: in `duepay dev` that one is the projector's
    std::string ops_listen;      // one ops listener per process, whatever roles it runs
};
RoleFlags g_flags;
std::vector<std::string> g_argv;  // the command line as given, for `duepay dev --supervise`

template <class T>
void role_flag(CLI::App& cmd, const std::string& name, T& target, const std::string& help) {
    if (cmd.get_option_no_throw(name) == nullptr) cmd.add_option(name, target, help);
}

// Every role has it: /metrics, /healthz, /readyz on their own listener (docs/operations.md).
void ops_flag(CLI::App& cmd) {
    role_flag(cmd, "--ops-listen", g_flags.ops_listen,
              "host:port of the ops listener: /metrics /healthz /readyz (DUEPAY_OPS_LISTEN; "
              "default: none)");
}

cli::Run define_api(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--topic", g_flags.topic, "event topic (DUEPAY_TOPIC)");
    role_flag(cmd, "--listen", g_flags.listen, "host:port (DUEPAY_LISTEN, 127.0.0.1:8080)");
    role_flag(cmd, "--threads", g_flags.threads, "server threads (DUEPAY_API_THREADS, 2)");
    return [](const std::atomic<bool>& stop) {
        return consumers::run_api({g_flags.topic, g_flags.listen, g_flags.threads}, stop);
    };
}

cli::Run define_checkout(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--checkout-listen", g_flags.checkout_listen,
              "host:port (DUEPAY_CHECKOUT_LISTEN, else the host:port of DUEPAY_CHECKOUT_URL)");
    role_flag(cmd, "--checkout-threads", g_flags.checkout_threads,
              "checkout server threads (DUEPAY_CHECKOUT_THREADS, 2)");
    // Inside `duepay dev` a taken port does not stop the other roles (several test harnesses run
    // `dev` at once; the first one serves the checkout).
    const bool in_dev = cmd.get_name() == "dev";
    return [in_dev](const std::atomic<bool>& stop) {
        std::string api_listen;
        if (in_dev) {
            api_listen = !g_flags.listen.empty()
                             ? g_flags.listen
                             : infra::config::env_or("DUEPAY_LISTEN", "127.0.0.1:8080");
        }
        return consumers::run_checkout(
            {g_flags.checkout_listen, g_flags.checkout_threads, in_dev, api_listen}, stop);
    };
}

cli::Run define_projector(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--topic", g_flags.topic, "event topic (DUEPAY_TOPIC)");
    role_flag(cmd, "--group", g_flags.group,
              "consumer group (DUEPAY_PROJECTOR_GROUP, duepay-projector)");
    role_flag(cmd, "--batch", g_flags.batch, "events per transaction (1000)");
    return [](const std::atomic<bool>& stop) {
        auto s = consumers::projector_settings_from_env();
        if (!g_flags.topic.empty()) s.topic = g_flags.topic;
        if (!g_flags.group.empty()) s.group_id = g_flags.group;
        if (g_flags.batch > 0) s.batch_max = g_flags.batch;
        return consumers::run_projector(s, stop);
    };
}

cli::Run define_chainwatch(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--topic", g_flags.topic, "event topic (DUEPAY_TOPIC)");
    role_flag(cmd, "--chain", g_flags.chain,
              "the chain to follow (default: each chain of DUEPAY_CHAIN_IDS, one thread each)");
    cmd.footer("A second process for the same chain waits as standby (docs/chainwatch.md).");
    return [](const std::atomic<bool>& stop) {
        const auto ids = g_flags.chain != 0 ? std::vector<std::uint64_t>{g_flags.chain}
                                            : consumers::chain_ids_from_env();
        std::vector<Part> watchers;
        for (const auto id : ids) {
            auto s = consumers::chainwatch_settings_from_env(id);
            if (!g_flags.topic.empty()) s.topic = g_flags.topic;
            watchers.push_back(
                Part{"chainwatch " + std::to_string(id),
                     [s](const std::atomic<bool>& st) { return consumers::run_chainwatch(s, st); },
                     false});  // one chain stopping leaves the others running
        }
        if (watchers.size() == 1) return watchers.front().run(stop);
        return run_together(std::move(watchers), stop);
    };
}

cli::Run define_webhooks(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--topic", g_flags.topic, "event topic (DUEPAY_TOPIC)");
    role_flag(cmd, "--webhooks-group", g_flags.webhooks_group,
              "consumer group (DUEPAY_WEBHOOKS_GROUP, duepay-webhooks)");
    cmd.footer("Delivery, retries and endpoints: docs/webhooks.md.");
    return [](const std::atomic<bool>& stop) {
        auto s = consumers::webhooks_settings_from_env();
        if (!g_flags.topic.empty()) s.topic = g_flags.topic;
        if (!g_flags.webhooks_group.empty()) s.group_id = g_flags.webhooks_group;
        return consumers::run_webhooks(s, stop);
    };
}

cli::Run define_dashboard(CLI::App& cmd) {
    ops_flag(cmd);
    role_flag(cmd, "--dashboard-listen", g_flags.dashboard_listen,
              "host:port (DUEPAY_DASHBOARD_LISTEN, else the host:port of DUEPAY_DASHBOARD_URL)");
    role_flag(cmd, "--dashboard-threads", g_flags.dashboard_threads,
              "dashboard server threads (DUEPAY_DASHBOARD_THREADS, 2)");
    const bool in_dev = cmd.get_name() == "dev";
    return [in_dev](const std::atomic<bool>& stop) {
        return consumers::run_dashboard(
            {g_flags.dashboard_listen, g_flags.dashboard_threads, in_dev}, stop);
    };
}

// The children of `duepay dev --supervise`: `duepay dev --only <role>` for each role it runs, with
// the supervisor's other flags. A child opens no ops listener of its own unless `ops_base_port` is
// set: then the role of kCommands' dev index i listens on 127.0.0.1:(ops_base_port + 1 + i), the
// same port for the same role whichever --with flags are given (make run; docs/operations.md,
// "Restarting a role that dies").
std::vector<cli::ChildSpec> dev_children(const std::vector<std::string>& roles, int ops_base_port) {
    std::vector<std::string> forwarded;
    for (std::size_t i = 2; i < g_argv.size(); ++i) {
        const auto& a = g_argv[i];
        const bool with_value = a == "--ops-listen" || a == "--only" || a == "--ops-base-port";
        if (with_value) {
            ++i;
            continue;
        }
        if (a == "--supervise" || a.rfind("--ops-listen=", 0) == 0 || a.rfind("--only=", 0) == 0 ||
            a.rfind("--ops-base-port=", 0) == 0)
            continue;
        forwarded.push_back(a);
    }
    std::vector<cli::ChildSpec> out;
    for (const auto& role : roles) {
        // This very binary, shown under the name it was started with.
        cli::ChildSpec c{role, "/proc/self/exe", {g_argv.at(0), "dev", "--only", role}};
        if (ops_base_port > 0) {
            int index = 0;
            for (const auto& command : kCommands) {
                if (command.dev == Dev::no) continue;
                if (role == command.name) break;
                ++index;
            }
            c.argv.emplace_back("--ops-listen");
            c.argv.push_back("127.0.0.1:" + std::to_string(ops_base_port + 1 + index));
        }
        c.argv.insert(c.argv.end(), forwarded.begin(), forwarded.end());
        out.push_back(std::move(c));
    }
    return out;
}

std::vector<std::string> children_environment() {
    std::vector<std::string> env;
    for (char** e = environ; *e != nullptr; ++e) {
        const std::string_view kv(*e);
        if (kv.rfind("DUEPAY_OPS_LISTEN=", 0) == 0) continue;
        env.emplace_back(kv);
    }
    return env;
}

cli::Run define_dev(CLI::App& cmd) {
    auto with = std::make_shared<std::deque<bool>>();  // stable references for add_flag
    auto supervise = std::make_shared<bool>(false);
    auto only = std::make_shared<std::string>();
    auto ops_base_port = std::make_shared<int>(0);
    std::vector<Part> always;
    std::vector<Part> optional;  // extras: `--with-<name>`, they end alone
    for (const auto& c : kCommands) {
        if (c.dev == Dev::no) continue;
        auto run = c.define(cmd);
        if (c.dev == Dev::yes) {
            always.push_back(Part{c.name, std::move(run), true});
        } else {
            with->push_back(false);
            cmd.add_flag(std::string("--with-") + c.name, with->back(),
                         std::string("also run ") + c.name);
            optional.push_back(Part{c.name, std::move(run), false});
        }
    }
    cmd.add_flag("--supervise", *supervise,
                 "each role in a child process of its own, restarted when it dies (make run)");
    cmd.add_option("--only", *only, "run this one role of the set (what --supervise starts)");
    cmd.add_option("--ops-base-port", *ops_base_port,
                   "with --supervise: each role's ops listener on 127.0.0.1:PORT+1.. in the order "
                   "api, checkout, projector, chainwatch, webhooks, dashboard (make run: 19100)")
        ->check(CLI::Range(1, 65530));
    cmd.footer("Takes the flags of each role it runs (duepay <role> --help).");
    return [with, supervise, only, ops_base_port, always, optional](const std::atomic<bool>& stop) {
        auto parts = always;
        for (std::size_t i = 0; i < optional.size(); ++i) {
            if ((*with)[i]) parts.push_back(optional[i]);
        }
        if (*supervise) {
            std::vector<std::string> roles;
            roles.reserve(parts.size());
            for (const auto& p : parts) roles.push_back(p.name);
            return cli::supervise(dev_children(roles, *ops_base_port), children_environment(),
                                  stop);
        }
        if (!only->empty()) {
            const auto it = std::find_if(parts.begin(), parts.end(),
                                         [&](const Part& p) { return p.name == *only; });
            if (it == parts.end()) {
                throw infra::config::ConfigError("--only " + *only +
                                                 ": not a role of this duepay dev");
            }
            auto part = *it;
            part.essential = true;
            return run_together({std::move(part)}, stop);
        }
        return run_together(std::move(parts), stop);
    };
}

cli::Run define_admin(CLI::App& cmd) {
    cmd.prefix_command();  // admin parses its own sub-commands (consumers/cli/admin.cpp)
    cmd.set_help_flag();   // and prints its own usage
    auto* simulate = cmd.add_subcommand("simulate-payment", "same as duepay simulate-payment");
    simulate->set_help_flag("-h,--help", "Print this help message and exit");
    auto run_simulate = consumers::define_simulate_payment(*simulate);
    return [&cmd, simulate, run_simulate](const std::atomic<bool>& stop) {
        if (simulate->parsed()) return run_simulate(stop);
        return consumers::run_admin(cmd.remaining());
    };
}

std::atomic<bool> g_stop{false};

// main's work; main only adds the last catch.
int run(int argc, char** argv) {
    g_argv.assign(argv, argv + argc);
    CLI::App app("duepay: crypto payment invoicing built around charges", "duepay");
    app.require_subcommand(1);
    std::vector<std::pair<CLI::App*, cli::Run>> runs;
    for (const auto& c : kCommands) {
        auto* sub = app.add_subcommand(c.name, c.usage);
        runs.emplace_back(sub, c.define(*sub));
    }
    // Every variable, its default and meaning, from the table the configuration reads (ADR 0205);
    // each command's --help lists the rows it reads.
    app.footer(
        infra::config::env_help() +
        "`duepay <command> --help` shows the flags of a command and the variables it reads.");
    for (const auto& [sub, _] : runs) {
        const std::string role = sub->get_name();
        if (role == "admin") continue;  // admin prints its own usage (consumers/cli/admin.cpp)
        const std::string footer = sub->get_footer();
        sub->footer((footer.empty() ? "" : footer + "\n\n") +
                    infra::config::env_help(role == "dev" ? "" : role));
    }
    const std::string first = argc > 1 ? argv[1] : "";
    if (argc < 2 || first == "help") {
        std::cout << app.help();
        return argc < 2 ? 2 : 0;
    }
    const auto known = [&](const std::string& name) {
        for (const auto& c : kCommands) {
            if (name == c.name) return true;
        }
        return false;
    };
    if (first[0] != '-' && !known(first)) {
        std::cerr << "duepay: unknown command '" << first << "'\n" << app.help();
        return 2;
    }
    try {
        app.parse(argc, argv);
    } catch (const CLI::ParseError& e) {
        const int rc = app.exit(e);
        return rc == 0 ? 0 : 2;
    }
    for (std::size_t i = 0; i < runs.size(); ++i) {
        if (!runs[i].first->parsed()) continue;
        const auto& command = kCommands[i];
        try {
            infra::log::init_from_env();  // DUEPAY_LOG_LEVEL
            // DUEPAY_KAFKA_*: every Kafka client of this process applies them (docs/security.md).
            infra::kafka::set_client_properties(infra::kafka::client_config_from_env(
                infra::config::environment_entries("DUEPAY_KAFKA_")));
            if (command.kind == Kind::role) {
                cli::SignalWaiter signals(g_stop);
                const std::string ops_listen = !g_flags.ops_listen.empty()
                                                   ? g_flags.ops_listen
                                                   : infra::config::env_or("DUEPAY_OPS_LISTEN", "");
                std::optional<infra::metrics::OpsServer> ops;
                if (!ops_listen.empty()) ops.emplace(ops_listen);
                return runs[i].second(g_stop);
            }
            return runs[i].second(g_stop);
        } catch (const infra::config::ConfigError& e) {
            // A role's last words go to the log; a tool's to its user, as plain text.
            if (command.kind == Kind::role) {
                kLog.error() << "duepay " << command.name << ": configuration error: " << e.what();
            } else {
                std::cerr << "duepay " << command.name << ": configuration error: " << e.what()
                          << std::endl;
            }
            return 78;  // EX_CONFIG
        } catch (const std::exception& e) {
            if (command.kind == Kind::role) {
                kLog.error() << "duepay " << command.name << ": " << e.what();
            } else {
                std::cerr << "duepay " << command.name << ": " << e.what() << std::endl;
            }
            return 1;
        }
    }
    return 2;
}

}  // namespace

// A failure before a command runs (building the command line, the help text), or anything but a
// std::exception from a command, ends the process with status 1 and a line on stderr, not with
// std::terminate.
int main(int argc, char** argv) {
    // glibc's malloc hands freed memory back to the kernel as soon as a heap's free top passes
    // its trim threshold, and maps each block over its mmap threshold on its own. The web roles
    // build and free pages and query results of tens of kB on every request, and paid for that
    // in madvise calls, page faults and TLB flushes (ADR 0310): both thresholds are raised once,
    // for every command. A role keeps at most that much free memory per malloc arena.
    mallopt(M_TRIM_THRESHOLD, 64 << 20);
    mallopt(M_MMAP_THRESHOLD, 4 << 20);
    try {
        return run(argc, argv);
    } catch (const std::exception& e) {
        std::fputs("duepay: ", stderr);
        std::fputs(e.what(), stderr);
        std::fputs("\n", stderr);
    } catch (...) {
        std::fputs("duepay: unknown exception\n", stderr);
    }
    return 1;
}
