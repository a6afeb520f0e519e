// `duepay admin project|key|wallet`: projects, API keys and payout wallet proof as JSON
// (docs/accounts.md; the chain registry is admin_chains.cpp). Rejections print
// {"error":{"code","message"}} on stderr and exit 1; usage errors exit 2; the store is
// infra/accounts/account_admin (over infra/postgres/account_store).
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "consumers/cli/admin.hpp"
#include "domain/accounts/project_settings.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/url.hpp"
#include "infra/accounts/account_admin.hpp"
#include "infra/config/env.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/random/key_material.hpp"
#include "infra/random/random.hpp"

namespace duepay::consumers {
namespace {

namespace pg = infra::postgres;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

std::string random_id(const std::string& prefix) {
    return prefix + domain::to_hex(infra::random::random_bytes<12>()).substr(2);
}

using domain::json::opt_str;
using domain::json::str;

void print(const rapidjson::StringBuffer& buffer) { std::cout << buffer.GetString() << std::endl; }

// ---- validation ----

std::string check_plan(const std::string& plan) {
    // unmetered: the internal dev/ops plan (no limit, no quota; docs/limits.md), admin only.
    if (plan != "free" && plan != "pro" && plan != "scale" && plan != "unmetered") {
        throw AdminRejection{"invalid_plan", "plan must be free, pro, scale or unmetered"};
    }
    return plan;
}

int check_window(const std::string& text) {
    if (text.empty() || text.size() > 6 ||
        text.find_first_not_of("0123456789") != std::string::npos) {
        throw AdminRejection{"invalid_window",
                             "--window-seconds must be an integer from 1 to 86400"};
    }
    const int v = std::stoi(text);
    if (v < 1 || v > 86400)
        throw AdminRejection{"invalid_window",
                             "--window-seconds must be an integer from 1 to 86400"};
    return v;
}

// The value of a domain::accounts rule, or its rejection as an AdminRejection.
template <class T>
T checked(domain::Result<T> r) {
    if (!r) throw AdminRejection{r.error().code, r.error().message};
    return std::move(r).value();
}

// Empty clears (update only); otherwise an http(s) URL (the API itself takes https only).
std::string check_logo(const std::string& url) {
    return url.empty() ? url : checked(domain::accounts::check_logo_url(url, true));
}

std::string check_color(const std::string& color) {
    return color.empty() ? color : checked(domain::accounts::check_accent_color(color));
}

std::string check_name(const std::string& name) {
    return checked(domain::accounts::check_project_name(name));
}

std::string checksum_address(const std::string& text) {
    auto a = domain::evm::parse_address(text);
    if (!a) throw AdminRejection{a.error().code, a.error().message};
    return domain::evm::to_checksum(*a);
}

std::unique_ptr<infra::accounts::AccountAdmin> connect() {
    return std::make_unique<infra::accounts::AccountAdmin>(
        infra::config::require_env("DATABASE_URL"));
}

// ---- projects ----

void write_project(Writer& w, const pg::ProjectRecord& p) {
    w.StartObject();
    str(w, "projectId", p.id);
    str(w, "name", p.name);
    str(w, "plan", p.plan);
    w.Key("windowSeconds");
    w.Int(p.payment_window_seconds);
    opt_str(w, "payoutAddress", p.payout_address);
    opt_str(w, "payoutVerifiedAt", p.payout_verified_at);
    w.Key("branding");
    w.StartObject();
    str(w, "projectName", p.name);
    opt_str(w, "logoUrl", p.logo_url);
    opt_str(w, "accentColor", p.accent_color);
    w.EndObject();
    str(w, "createdAt", p.created_at);
    w.EndObject();
}

// The project, or the rejection project_not_found.
template <class T>
T found_in_project(std::optional<T> value, const std::string& project_id) {
    if (!value) throw AdminRejection{"project_not_found", "no project " + project_id};
    return std::move(*value);
}

struct ProjectCommands {
    CLI::App* create = nullptr;
    CLI::App* show = nullptr;
    CLI::App* update = nullptr;
    std::optional<std::string> project, name, plan, window_seconds, logo_url, accent_color, owner;
};

void define_project(CLI::App& admin, ProjectCommands& c) {
    auto& group = admin_subcommand(admin, "project", "projects (docs/accounts.md)");
    c.create = &admin_subcommand(group, "create", "create a project");
    c.show = &admin_subcommand(group, "show", "show a project");
    c.update = &admin_subcommand(group, "update", "change a project's name, plan or branding");
    admin_option(*c.show, "--project", c.project, "project id (required)");
    admin_option(*c.update, "--project", c.project, "project id (required)");
    for (auto* cmd : {c.create, c.update}) {
        admin_option(*cmd, "--name", c.name, "project name (required for create)");
        admin_option(*cmd, "--plan", c.plan, "free|pro|scale|unmetered (free)");
        admin_option(*cmd, "--window-seconds", c.window_seconds,
                     "payment window, 1 to 86400 (3600)");
        admin_option(*cmd, "--logo-url", c.logo_url, "https URL of the logo ('' clears)");
        admin_option(*cmd, "--accent-color", c.accent_color, "#RRGGBB ('' clears)");
    }
    admin_option(*c.create, "--owner", c.owner,
                 "wallet address that owns it in the dashboard (optional; docs/dashboard.md)");
}

int project_command(const ProjectCommands& c) {
    auto db = connect();
    pg::ProjectRecord result;
    if (c.create->parsed()) {
        pg::ProjectRecord p;
        p.id = random_id("prj_");
        p.name = check_name(required_admin_flag(c.name, "--name"));
        p.plan = check_plan(c.plan.value_or("free"));
        p.payment_window_seconds = check_window(c.window_seconds.value_or("3600"));
        if (c.logo_url && !c.logo_url->empty()) p.logo_url = check_logo(*c.logo_url);
        if (c.accent_color && !c.accent_color->empty())
            p.accent_color = check_color(*c.accent_color);
        std::optional<std::string> owner;
        if (c.owner) {
            auto a = domain::evm::parse_address(*c.owner);
            if (!a) throw AdminRejection{a.error().code, "--owner: " + a.error().message};
            owner = domain::evm::to_checksum(*a);
        }
        result = db->create_project(p, owner);
    } else if (c.show->parsed()) {
        const auto id = required_admin_flag(c.project, "--project");
        result = found_in_project(db->find_project(id), id);
    } else if (c.update->parsed()) {
        const auto id = required_admin_flag(c.project, "--project");
        pg::ProjectChanges changes;
        if (c.name) changes.name = check_name(*c.name);
        if (c.plan) changes.plan = check_plan(*c.plan);
        if (c.window_seconds) changes.payment_window_seconds = check_window(*c.window_seconds);
        if (c.logo_url) changes.logo_url = check_logo(*c.logo_url);
        if (c.accent_color) changes.accent_color = check_color(*c.accent_color);
        if (!changes.name && !changes.plan && !changes.payment_window_seconds &&
            !changes.logo_url && !changes.accent_color) {
            throw AdminRejection{
                "missing_argument",
                "give at least one of --name, --plan, --window-seconds, --logo-url, "
                "--accent-color"};
        }
        result = found_in_project(db->update_project(id, changes), id);
    } else {
        throw AdminRejection{"usage", "project create|show|update (duepay admin --help)"};
    }
    rapidjson::StringBuffer b;
    Writer w(b);
    write_project(w, result);
    print(b);
    return 0;
}

// ---- keys ----

void write_key(Writer& w, const pg::ApiKeyRecord& k, const std::optional<std::string>& secret) {
    w.StartObject();
    str(w, "keyId", k.id);
    str(w, "projectId", k.project_id);
    str(w, "mode", k.mode);
    str(w, "prefix", k.prefix);
    if (secret) str(w, "key", *secret);
    str(w, "createdAt", k.created_at);
    opt_str(w, "revokedAt", k.revoked_at);
    opt_str(w, "expiresAt", k.expires_at);    // a rolled key: when it stops working
    opt_str(w, "replacedBy", k.replaced_by);  // and the key that replaced it
    w.EndObject();
}

struct KeyCommands {
    CLI::App* create = nullptr;
    CLI::App* show = nullptr;
    CLI::App* list = nullptr;
    CLI::App* revoke = nullptr;
    std::optional<std::string> project, mode, key_id;
};

void define_key(CLI::App& admin, KeyCommands& c) {
    auto& group = admin_subcommand(admin, "key", "API keys (docs/accounts.md)");
    c.create = &admin_subcommand(group, "create", "create a key (a live key is printed only now)");
    c.show = &admin_subcommand(group, "show", "show a test key again");
    c.list = &admin_subcommand(group, "list", "a project's keys, never a secret");
    c.revoke = &admin_subcommand(group, "revoke", "revoke a key");
    for (auto* cmd : {c.create, c.list}) {
        admin_option(*cmd, "--project", c.project, "project id (required)");
    }
    admin_option(*c.create, "--mode", c.mode, "test|live (required)");
    for (auto* cmd : {c.show, c.revoke}) {
        admin_option(*cmd, "--key-id", c.key_id, "key id (required)");
    }
}

int key_command(const KeyCommands& c) {
    auto db = connect();
    rapidjson::StringBuffer b;
    Writer w(b);
    if (c.create->parsed()) {
        const auto project = required_admin_flag(c.project, "--project");
        const auto mode = required_admin_flag(c.mode, "--mode");
        if (mode != "test" && mode != "live")
            throw AdminRejection{"invalid_mode", "--mode must be test or live"};
        const auto key_id = random_id("key_");
        // Test keys: HMAC of the server secret and the key id, so `key show` can show them again.
        // Live keys: 32 random bytes, printed now and never again (docs/adr/0080).
        const std::string secret =
            mode == "test"
                ? derive_test_key(infra::config::require_env("DUEPAY_SERVER_SECRET"), key_id)
                : "dp_live_" + domain::to_hex(infra::random::random_bytes<32>()).substr(2);
        const auto record =
            found_in_project(db->create_key(key_id, project, mode, infra::random::sha256(secret),
                                            secret.substr(0, 12)),
                             project);
        write_key(w, record, secret);
    } else if (c.show->parsed()) {
        const auto key_id = required_admin_flag(c.key_id, "--key-id");
        auto k = db->find_key(key_id);
        if (!k) throw AdminRejection{"key_not_found", "no key " + key_id};
        if (k->mode != "test") {
            throw AdminRejection{"live_key_not_shown",
                                 "live keys are shown once, at creation; create a new one"};
        }
        const auto secret =
            derive_test_key(infra::config::require_env("DUEPAY_SERVER_SECRET"), key_id);
        if (!infra::random::constant_time_equal(infra::random::sha256(secret), k->key_hash)) {
            throw AdminRejection{
                "key_not_derivable",
                "this test key was not derived from the current DUEPAY_SERVER_SECRET"};
        }
        write_key(w, *k, secret);
    } else if (c.list->parsed()) {
        const auto project = required_admin_flag(c.project, "--project");
        const auto keys = found_in_project(db->list_keys(project), project);
        w.StartObject();
        str(w, "projectId", project);
        w.Key("keys");
        w.StartArray();
        for (const auto& k : keys) write_key(w, k, std::nullopt);
        w.EndArray();
        w.EndObject();
    } else if (c.revoke->parsed()) {
        const auto key_id = required_admin_flag(c.key_id, "--key-id");
        auto k = db->revoke_key(key_id);
        if (!k) throw AdminRejection{"key_not_found", "no key " + key_id};
        write_key(w, *k, std::nullopt);
    } else {
        throw AdminRejection{"usage", "key create|show|list|revoke (duepay admin --help)"};
    }
    print(b);
    return 0;
}

// ---- payout wallet proof (EIP-191; infra/accounts, shared with the REST API) ----

struct WalletCommands {
    CLI::App* challenge = nullptr;
    CLI::App* verify = nullptr;
    std::optional<std::string> project, address, ttl_seconds, signature, nonce;
};

void define_wallet(CLI::App& admin, WalletCommands& c) {
    auto& group = admin_subcommand(admin, "wallet", "payout wallet proof (docs/accounts.md)");
    c.challenge = &admin_subcommand(group, "challenge", "issue a message to sign");
    c.verify = &admin_subcommand(group, "verify", "check its signature, set the wallet");
    for (auto* cmd : {c.challenge, c.verify}) {
        admin_option(*cmd, "--project", c.project, "project id (required)");
        admin_option(*cmd, "--address", c.address, "the payout wallet's address (required)");
    }
    admin_option(*c.challenge, "--ttl-seconds", c.ttl_seconds, "1 to 3600 (600)");
    admin_option(*c.verify, "--signature", c.signature, "0x + 130 hex digits (required)");
    admin_option(*c.verify, "--nonce", c.nonce, "the challenge's nonce (default: the latest)");
}

int wallet_command(const WalletCommands& c) {
    const auto project = required_admin_flag(c.project, "--project");
    const auto address = checksum_address(required_admin_flag(c.address, "--address"));
    auto db = connect();
    rapidjson::StringBuffer b;
    Writer w(b);
    if (c.challenge->parsed()) {
        int ttl = 600;
        if (const auto& v = c.ttl_seconds) {
            if (v->empty() || v->size() > 4 ||
                v->find_first_not_of("0123456789") != std::string::npos || std::stoi(*v) < 1 ||
                std::stoi(*v) > 3600) {
                throw AdminRejection{"invalid_ttl",
                                     "--ttl-seconds must be an integer from 1 to 3600"};
            }
            ttl = std::stoi(*v);
        }
        const auto ch =
            found_in_project(db->issue_wallet_challenge(project, address, ttl), project);
        w.StartObject();
        str(w, "challengeId", ch.id);
        str(w, "projectId", ch.project_id);
        str(w, "address", ch.address);
        str(w, "nonce", ch.nonce);
        str(w, "expiresAt", ch.expires_at);
        str(w, "message", ch.message);
        w.EndObject();
    } else if (c.verify->parsed()) {
        infra::accounts::WalletVerification v;
        v.project_id = project;
        v.address = address;
        v.signature = required_admin_flag(c.signature, "--signature");
        v.nonce = c.nonce;
        // An operator may replace a verified wallet without its signature: the recovery path
        // when a merchant lost it (docs/adr/0171). The REST API requires it.
        v.require_current_wallet = false;
        auto p = checked(db->verify_wallet(v));
        write_project(w, p);
    } else {
        throw AdminRejection{"usage", "wallet challenge|verify (duepay admin --help)"};
    }
    print(b);
    return 0;
}

}  // namespace

AdminGroupRun define_account_commands(CLI::App& admin) {
    struct Commands {
        ProjectCommands project;
        KeyCommands key;
        WalletCommands wallet;
    };
    auto c = std::make_shared<Commands>();  // the flags' storage lives as long as the run
    define_project(admin, c->project);
    define_key(admin, c->key);
    define_wallet(admin, c->wallet);
    return [c, &admin]() -> std::optional<int> {
        const auto named = [&admin](const char* group) {
            return admin.get_subcommand(group)->parsed();
        };
        try {
            if (named("project")) return project_command(c->project);
            if (named("key")) return key_command(c->key);
            if (named("wallet")) return wallet_command(c->wallet);
            return std::nullopt;
        } catch (const AdminRejection& e) {
            return report_admin_rejection(e);
        } catch (...) {
            return report_admin_exception();
        }
    };
}

}  // namespace duepay::consumers
