// `duepay admin webhook add|list|show|update|delete|rotate|test|deliveries|redeliver`: the
// operations of the /v1/webhook-endpoints routes for ops, by project and mode, printing the same
// JSON as the routes' `data` (docs/webhooks.md). Rejections print {"error":{"code","message"}} on
// stderr and exit 1; usage errors exit 2.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "api/http/webhook_endpoint_json.hpp"
#include "consumers/cli/admin.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/config/env.hpp"
#include "infra/postgres/webhook_endpoints.hpp"
#include "infra/webhooks/endpoints.hpp"
#include "infra/webhooks/signing.hpp"

namespace duepay::consumers {
namespace {

namespace pg = infra::postgres;
namespace iw = infra::webhooks;

const char* kUsage =
    "usage: duepay admin webhook <command> --project P --mode test|live ...\n"
    "  add --url U [--events a,b] [--description D]   prints the endpoint with its secret\n"
    "  list [--limit N]\n"
    "  show|delete|test --id we_...\n"
    "  update --id we_... [--url U] [--events a,b] [--description D] [--status enabled|disabled]\n"
    "  rotate --id we_... [--expires-in-seconds S]    prints the endpoint with its new secret\n"
    "  deliveries --id we_... [--limit N]\n"
    "  redeliver --id we_... --event evt_...\n"
    "DUEPAY_WEBHOOK_ALLOW_INSECURE=1 accepts http:// and loopback URLs for --mode test (dev\n"
    "stack); never for --mode live.\n";

std::vector<std::string> events_flag(const std::string& csv) {
    std::vector<std::string> out;
    std::stringstream in(csv);
    for (std::string t; std::getline(in, t, ',');) {
        if (!domain::webhooks::is_webhook_event_type(t)) {
            throw AdminRejection{"invalid_webhook_events", "unknown event type: " + t};
        }
        out.push_back(t);
    }
    if (out.empty())
        throw AdminRejection{"invalid_webhook_events", "--events must name at least one type"};
    return out;
}

// The flags of every webhook command; each command declares the ones it takes.
struct Flags {
    std::optional<std::string> project, mode, id, url, events, description, status, limit,
        expires_in_seconds, event;
};

std::size_t limit_flag(const Flags& f) {
    const auto text = f.limit.value_or("20");
    if (text.empty() || text.size() > 3 ||
        text.find_first_not_of("0123456789") != std::string::npos || std::stoul(text) < 1 ||
        std::stoul(text) > 100) {
        throw AdminRejection{"invalid_limit", "--limit must be an integer from 1 to 100"};
    }
    return std::stoul(text);
}

void check_url(const std::string& url, ports::Mode mode) {
    const bool insecure = infra::config::env_or("DUEPAY_WEBHOOK_ALLOW_INSECURE", "0") == "1";
    if (auto refused = iw::check_endpoint_url(url, insecure, mode))
        throw AdminRejection{refused->code, refused->message};
}

std::string endpoint_id(const Flags& f) {
    auto id = required_admin_flag(f.id, "--id");
    if (!iw::is_endpoint_id(id))
        throw AdminRejection{"webhook_endpoint_not_found", "no such webhook endpoint"};
    return id;
}

[[noreturn]] void endpoint_not_found() {
    throw AdminRejection{"webhook_endpoint_not_found",
                         "no such webhook endpoint for this project and mode"};
}

template <class T>
T found(std::optional<T> value) {
    if (!value) endpoint_not_found();
    return std::move(*value);
}

int run(const std::string& command, const Flags& f) {
    const ports::ProjectId project{required_admin_flag(f.project, "--project")};
    const auto mode_text = required_admin_flag(f.mode, "--mode");
    if (mode_text != "test" && mode_text != "live")
        throw AdminRejection{"invalid_mode", "--mode must be test or live"};
    const auto mode = mode_text == "live" ? ports::Mode::live : ports::Mode::test;
    // The same adapter as the REST routes (ADR 0198), over one connection.
    pg::ConnectionPool pool(infra::config::require_env("DATABASE_URL"), 1, {}, "admin");
    pg::PgWebhookEndpoints store(pool);
    std::string out;
    if (command == "add") {
        ports::WebhookEndpoint e;
        e.url = required_admin_flag(f.url, "--url");
        check_url(e.url, mode);
        if (const auto& events = f.events) {
            e.events = events_flag(*events);
        } else {
            for (auto t : domain::webhooks::kWebhookEventTypes) e.events.emplace_back(t);
        }
        e.description = f.description;
        e.id = iw::new_endpoint_id();
        e.project_id = project;
        e.mode = mode;
        e.secret = iw::new_secret();
        out = api::endpoint_json(store.create(e), true);
    } else if (command == "list") {
        const auto limit = limit_flag(f);
        auto list = store.list(project, mode, limit + 1, std::nullopt);
        const bool more = list.size() > limit;
        if (more) list.pop_back();
        out = api::endpoint_list_json(list, more);
    } else if (command == "show") {
        out = api::endpoint_json(found(store.find(project, mode, endpoint_id(f))), false);
    } else if (command == "update") {
        ports::WebhookEndpointPatch patch;
        if (const auto& url = f.url) {
            check_url(*url, mode);
            patch.url = *url;
        }
        if (f.events) patch.events = events_flag(*f.events);
        if (f.description) patch.description = *f.description;
        if (const auto& status = f.status) {
            if (*status != "enabled" && *status != "disabled") {
                throw AdminRejection{"invalid_webhook_status",
                                     "--status must be enabled or disabled"};
            }
            patch.status = *status;
        }
        out = api::endpoint_json(found(store.update(project, mode, endpoint_id(f), patch)), false);
    } else if (command == "delete") {
        const auto id = endpoint_id(f);
        if (!store.remove(project, mode, id)) endpoint_not_found();
        out = R"({"id":")" + id + R"(","deleted":true})";
    } else if (command == "rotate") {
        const auto text = f.expires_in_seconds.value_or("86400");
        if (text.empty() || text.size() > 6 ||
            text.find_first_not_of("0123456789") != std::string::npos || std::stol(text) > 604800) {
            throw AdminRejection{"invalid_expires_in",
                                 "--expires-in-seconds must be an integer from 0 to 604800"};
        }
        out = api::endpoint_json(
            found(store.rotate_secret(project, mode, endpoint_id(f), iw::new_secret(),
                                      std::chrono::seconds(std::stol(text)))),
            true);
    } else if (command == "test") {
        const auto id = endpoint_id(f);
        const auto now_ms = std::chrono::duration_cast<std::chrono::milliseconds>(
                                std::chrono::system_clock::now().time_since_epoch())
                                .count();
        const auto event = domain::webhooks::test_event(
            iw::new_test_event_id(), domain::events::format_rfc3339_millis_utc(now_ms), mode, id);
        if (!store.send_test(project, mode, id, event)) endpoint_not_found();
        out = R"({"eventId":")" + event.id + R"(","endpointId":")" + id +
              R"(","type":"webhook.test"})";
    } else if (command == "deliveries") {
        const auto id = endpoint_id(f);
        const auto limit = limit_flag(f);
        auto page = found(store.attempts(project, mode, id, limit + 1, std::nullopt));
        const bool more = page.size() > limit;
        if (more) page.pop_back();
        out = api::attempt_list_json(page, more);
    } else if (command == "redeliver") {
        const auto id = endpoint_id(f);
        const auto event = required_admin_flag(f.event, "--event");
        if (!iw::is_event_id(event) || !store.redeliver(project, mode, event, id)) {
            throw AdminRejection{"webhook_event_not_found",
                                 "no such event and endpoint for this project and mode"};
        }
        out = R"({"eventId":")" + event + R"(","endpointId":")" + id + R"(","state":"pending"})";
    } else {
        throw AdminRejection{"usage", "unknown webhook command: " + command};
    }
    std::cout << out << std::endl;
    return 0;
}

}  // namespace

AdminGroupRun define_webhook_commands(CLI::App& admin) {
    struct Commands {
        Flags flags;
        std::vector<CLI::App*> commands;
    };
    auto c = std::make_shared<Commands>();
    auto& group = admin_subcommand(admin, "webhook", "webhook endpoints (docs/webhooks.md)");
    group.set_help_flag();  // `duepay admin webhook --help` is kUsage, below
    auto& f = c->flags;
    const auto declare = [&](const char* name, const char* help) -> CLI::App& {
        auto& cmd = admin_subcommand(group, name, help);
        admin_option(cmd, "--project", f.project, "project id (required)");
        admin_option(cmd, "--mode", f.mode, "test|live (required)");
        c->commands.push_back(&cmd);
        return cmd;
    };
    const auto with_id = [&](const char* name, const char* help) -> CLI::App& {
        auto& cmd = declare(name, help);
        admin_option(cmd, "--id", f.id, "endpoint id, we_... (required)");
        return cmd;
    };
    const auto endpoint = [&](CLI::App& cmd) {
        admin_option(cmd, "--url", f.url, "https URL");
        admin_option(cmd, "--events", f.events, "event types, comma separated (default: all)");
        admin_option(cmd, "--description", f.description, "free text");
    };
    endpoint(declare("add", "add an endpoint; prints it with its secret"));
    admin_option(declare("list", "the project's endpoints"), "--limit", f.limit, "1 to 100 (20)");
    with_id("show", "show an endpoint");
    auto& update = with_id("update", "change an endpoint");
    endpoint(update);
    admin_option(update, "--status", f.status, "enabled|disabled");
    with_id("delete", "delete an endpoint");
    admin_option(with_id("rotate", "new secret; prints the endpoint with it"),
                 "--expires-in-seconds", f.expires_in_seconds,
                 "the old secret still signs for 0 to 604800 s (86400)");
    with_id("test", "send a webhook.test event");
    admin_option(with_id("deliveries", "the endpoint's delivery attempts"), "--limit", f.limit,
                 "1 to 100 (20)");
    admin_option(with_id("redeliver", "deliver an event again"), "--event", f.event,
                 "event id, evt_... (required)");
    return [c, &group]() -> std::optional<int> {
        if (!group.parsed()) return std::nullopt;
        std::string command;
        for (const auto* cmd : c->commands) {
            if (cmd->parsed()) command = cmd->get_name();
        }
        const auto rest = group.remaining();  // words after `webhook` that name no command
        if (command.empty() && (rest.empty() || rest[0] == "--help" || rest[0] == "-h")) {
            std::cout << kUsage;
            return rest.empty() ? 2 : 0;
        }
        try {
            if (command.empty())
                throw AdminRejection{"usage", "unknown webhook command: " + rest[0]};
            return run(command, c->flags);
        } catch (const AdminRejection& e) {
            return report_admin_rejection(e);
        } catch (const infra::config::ConfigError& e) {
            print_admin_error("config_error", e.what());
            return 1;
        } catch (const pg::DatabaseUnavailable& e) {
            print_admin_error("database_unavailable", "cannot reach Postgres (DATABASE_URL)");
            return 1;
        } catch (const std::exception& e) {
            print_admin_error("internal_error", e.what());
            return 1;
        }
    };
}

}  // namespace duepay::consumers
