// `duepay admin project|key|wallet|chains`: projects, API keys, payout wallet proof and the chain
// registry as JSON (docs/accounts.md). Rejections print {"error":{"code","message"}} on stderr
// and exit 1; usage errors exit 2; the store is infra/postgres/account_store.
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <iostream>
#include <optional>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "consumers/cli/admin.hpp"
#include "domain/accounts/project_settings.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/url.hpp"
#include "infra/accounts/account_changes.hpp"
#include "infra/config/chain_registry.hpp"
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

pqxx::connection connect() { return pqxx::connection(infra::config::require_env("DATABASE_URL")); }

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

pg::ProjectRecord load_project(pqxx::transaction_base& tx, const std::string& id) {
    auto p = pg::find_project(tx, id);
    if (!p) throw AdminRejection{"project_not_found", "no project " + id};
    return *p;
}

int project_command(const std::vector<std::string>& args) {
    const std::string sub = args.size() >= 2 ? args[1] : "";
    auto conn = connect();
    pg::ProjectRecord result;
    if (sub == "create") {
        pg::ProjectRecord p;
        p.id = random_id("prj_");
        p.name = check_name(required_admin_flag(args, "--name"));
        p.plan = check_plan(admin_flag(args, "--plan").value_or("free"));
        p.payment_window_seconds =
            check_window(admin_flag(args, "--window-seconds").value_or("3600"));
        if (auto logo = admin_flag(args, "--logo-url"); logo && !logo->empty())
            p.logo_url = check_logo(*logo);
        if (auto color = admin_flag(args, "--accent-color"); color && !color->empty())
            p.accent_color = check_color(*color);
        pqxx::work tx(conn);
        pg::insert_project(tx, p);
        result = load_project(tx, p.id);
        tx.commit();
    } else if (sub == "show") {
        pqxx::read_transaction tx(conn);
        result = load_project(tx, required_admin_flag(args, "--project"));
    } else if (sub == "update") {
        const auto id = required_admin_flag(args, "--project");
        pg::ProjectChanges c;
        if (auto v = admin_flag(args, "--name")) c.name = check_name(*v);
        if (auto v = admin_flag(args, "--plan")) c.plan = check_plan(*v);
        if (auto v = admin_flag(args, "--window-seconds"))
            c.payment_window_seconds = check_window(*v);
        if (auto v = admin_flag(args, "--logo-url")) c.logo_url = check_logo(*v);
        if (auto v = admin_flag(args, "--accent-color")) c.accent_color = check_color(*v);
        if (!c.name && !c.plan && !c.payment_window_seconds && !c.logo_url && !c.accent_color) {
            throw AdminRejection{
                "missing_argument",
                "give at least one of --name, --plan, --window-seconds, --logo-url, "
                "--accent-color"};
        }
        pqxx::work tx(conn);
        auto updated = infra::accounts::update_project(tx, id, c, infra::accounts::Actor{});
        if (!updated) throw AdminRejection{"project_not_found", "no project " + id};
        result = *updated;
        tx.commit();
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

int key_command(const std::vector<std::string>& args) {
    const std::string sub = args.size() >= 2 ? args[1] : "";
    auto conn = connect();
    rapidjson::StringBuffer b;
    Writer w(b);
    if (sub == "create") {
        const auto project = required_admin_flag(args, "--project");
        const auto mode = required_admin_flag(args, "--mode");
        if (mode != "test" && mode != "live")
            throw AdminRejection{"invalid_mode", "--mode must be test or live"};
        const auto key_id = random_id("key_");
        // Test keys: HMAC of the server secret and the key id, so `key show` can show them again.
        // Live keys: 32 random bytes, printed now and never again (docs/adr/0080).
        const std::string secret =
            mode == "test"
                ? derive_test_key(infra::config::require_env("DUEPAY_SERVER_SECRET"), key_id)
                : "dp_live_" + domain::to_hex(infra::random::random_bytes<32>()).substr(2);
        pqxx::work tx(conn);
        load_project(tx, project);
        pg::upsert_api_key(tx, key_id, project, mode, infra::random::sha256(secret),
                           secret.substr(0, 12));
        auto record = pg::find_api_key(tx, key_id);
        tx.commit();
        write_key(w, *record, secret);
    } else if (sub == "show") {
        const auto key_id = required_admin_flag(args, "--key-id");
        pqxx::read_transaction tx(conn);
        auto k = pg::find_api_key(tx, key_id);
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
    } else if (sub == "list") {
        const auto project = required_admin_flag(args, "--project");
        pqxx::read_transaction tx(conn);
        load_project(tx, project);
        w.StartObject();
        str(w, "projectId", project);
        w.Key("keys");
        w.StartArray();
        for (const auto& k : pg::list_api_keys(tx, project)) write_key(w, k, std::nullopt);
        w.EndArray();
        w.EndObject();
    } else if (sub == "revoke") {
        const auto key_id = required_admin_flag(args, "--key-id");
        pqxx::work tx(conn);
        auto k = pg::revoke_api_key(tx, key_id);
        if (!k) throw AdminRejection{"key_not_found", "no key " + key_id};
        tx.commit();
        write_key(w, *k, std::nullopt);
    } else {
        throw AdminRejection{"usage", "key create|show|list|revoke (duepay admin --help)"};
    }
    print(b);
    return 0;
}

// ---- payout wallet proof (EIP-191; infra/accounts, shared with the REST API) ----

int wallet_command(const std::vector<std::string>& args) {
    const std::string sub = args.size() >= 2 ? args[1] : "";
    const auto project = required_admin_flag(args, "--project");
    const auto address = checksum_address(required_admin_flag(args, "--address"));
    auto conn = connect();
    rapidjson::StringBuffer b;
    Writer w(b);
    if (sub == "challenge") {
        int ttl = 600;
        if (auto v = admin_flag(args, "--ttl-seconds")) {
            if (v->empty() || v->size() > 4 ||
                v->find_first_not_of("0123456789") != std::string::npos || std::stoi(*v) < 1 ||
                std::stoi(*v) > 3600) {
                throw AdminRejection{"invalid_ttl",
                                     "--ttl-seconds must be an integer from 1 to 3600"};
            }
            ttl = std::stoi(*v);
        }
        pqxx::work tx(conn);
        load_project(tx, project);
        auto c = infra::accounts::issue_wallet_challenge(tx, project, address, ttl);
        tx.commit();
        w.StartObject();
        str(w, "challengeId", c.id);
        str(w, "projectId", c.project_id);
        str(w, "address", c.address);
        str(w, "nonce", c.nonce);
        str(w, "expiresAt", c.expires_at);
        str(w, "message", c.message);
        w.EndObject();
    } else if (sub == "verify") {
        infra::accounts::WalletVerification v;
        v.project_id = project;
        v.address = address;
        v.signature = required_admin_flag(args, "--signature");
        v.nonce = admin_flag(args, "--nonce");
        // An operator may replace a verified wallet without its signature: the recovery path
        // when a merchant lost it (docs/adr/0171). The REST API requires it.
        v.require_current_wallet = false;
        pqxx::work tx(conn);
        auto p = checked(infra::accounts::verify_wallet(tx, v));
        tx.commit();
        write_project(w, p);
    } else {
        throw AdminRejection{"usage", "wallet challenge|verify (duepay admin --help)"};
    }
    print(b);
    return 0;
}

// ---- chain registry ----

int chains_command() {
    const auto path = infra::config::require_env("DUEPAY_CHAINS_FILE");
    const auto registry = infra::config::ChainRegistry::load_file(path);  // what the API parses
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "file", path);
    w.Key("chains");
    w.StartArray();
    for (const auto& c : registry.chains()) {
        w.StartObject();
        w.Key("chainId");
        w.Uint64(c.chain_id.value);
        str(w, "name", c.name);
        str(w, "network", c.testnet ? "testnet" : "mainnet");
        str(w, "rpcUrl", domain::redact_url(c.rpc_url));  // the full URL may hold a provider key
        w.Key("blockTimeSeconds");
        w.Uint(c.block_time_seconds);
        w.Key("confirmations");
        w.Uint(c.confirmations);
        w.Key("graceSeconds");
        w.Uint64(c.grace_seconds);
        w.Key("transferRail");
        w.Bool(c.transfer_rail);
        w.Key("feeBps");
        w.Uint(c.fee_bps);
        str(w, "feeRecipient", domain::evm::to_checksum(c.fee_recipient));
        str(w, "router", domain::evm::to_checksum(c.router));
        str(w, "depositFactory", domain::evm::to_checksum(c.deposit_factory));
        str(w, "forwarderInitCodeHash", domain::to_hex(c.forwarder_init_code_hash));
        str(w, "defaultToken", c.default_token);
        w.Key("tokens");
        w.StartArray();
        for (const auto& t : c.tokens) {
            w.StartObject();
            str(w, "symbol", t.symbol);
            str(w, "name", t.name);
            str(w, "address", domain::evm::to_checksum(t.address));
            w.Key("decimals");
            w.Int(t.decimals);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    print(b);
    return 0;
}

}  // namespace

std::optional<int> run_account_command(const std::vector<std::string>& args) {
    if (args.empty()) return std::nullopt;
    const auto& group = args[0];
    if (group != "project" && group != "key" && group != "wallet" && group != "chains")
        return std::nullopt;
    try {
        if (group == "project") return project_command(args);
        if (group == "key") return key_command(args);
        if (group == "wallet") return wallet_command(args);
        return chains_command();
    } catch (const AdminRejection& e) {
        return report_admin_rejection(e);
    } catch (...) {
        return report_admin_exception();
    }
}

}  // namespace duepay::consumers
