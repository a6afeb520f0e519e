#include "api/dashboard/dashboard_pages.hpp"

#include <rapidjson/document.h>

#include <array>
#include <cctype>

#include "api/dashboard/page_kit.hpp"
#include "api/http/api_types.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "domain/money/rate.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"
#include "domain/url.hpp"

namespace duepay::api::dashboard {
namespace {

using domain::escape_html;
using ports::Mode;

std::string e(std::string_view s) { return escape_html(s); }

// The token's symbol, else its EIP-55 address. Not value_or(to_checksum(...)): that hashes the
// address (keccak) for every amount shown, symbol or not.
std::string token_label(const ports::ChargeView& v) {
    return v.token_symbol ? *v.token_symbol : domain::evm::to_checksum(v.token);
}

std::string head(Lang lang, std::string_view title, std::string_view csrf,
                 std::string_view asset_version) {
    std::string h = "<!doctype html>\n<html lang=\"";
    h += lang == Lang::th ? "th" : "en";
    h += "\"><head><meta charset=\"utf-8\"><meta name=\"viewport\" "
         "content=\"width=device-width, initial-scale=1\">";
    if (!csrf.empty()) h += R"(<meta name="csrf-token" content=")" + e(csrf) + "\">";
    h += "<title>" + e(title) + " · duepay</title>";
    h += R"(<link rel="stylesheet" href="/static/dashboard.css?v=)" + e(asset_version) + "\">";
    h += "<script src=\"/static/dashboard.js?v=" + e(asset_version) + "\" defer></script>";
    h += "</head>";
    return h;
}

}  // namespace

std::string csrf_field(const Chrome& c) {
    return R"(<input type="hidden" name="csrf" value=")" + e(c.csrf) + "\">";
}

namespace {

std::string role_label(Lang lang, ports::MemberRole role) {
    return std::string(tr(lang, "role_" + std::string(domain::accounts::role_name(role))));
}

std::string short_address(std::string_view a) {
    if (a.size() < 12) return std::string(a);
    return std::string(a.substr(0, 6)) + "…" + std::string(a.substr(a.size() - 4));
}

std::string lang_links(Lang lang, std::string_view path) {
    std::string h = "<span class=\"lang\">";
    h += lang == Lang::en ? "<strong>English</strong>"
                          : "<a href=\"/lang/en?next=" + e(path) + R"(" lang="en">English</a>)";
    h += " · ";
    h += lang == Lang::th ? "<strong>ไทย</strong>"
                          : "<a href=\"/lang/th?next=" + e(path) + "\" lang=\"th\">ไทย</a>";
    h += "</span>";
    return h;
}

}  // namespace

std::string layout(const Chrome& c, std::string_view title, std::string_view main) {
    const Lang lang = c.lang;
    Html h;
    h.out.reserve(main.size() + 8192);  // the chrome is a few kB: one allocation, no regrowth
    h << head(lang, title, c.csrf, c.asset_version) << "<body class=\"mode-"
      << domain::events::to_string(c.mode) << "\">";
    h << R"(<a class="skip" href="#main">)" << tr(lang, "skip") << "</a>";
    h << R"(<header><div class="top"><a class="brand" href="/projects">duepay</a>)";
    if (c.project) {
        h << R"(<span class="project-name" data-test="current-project">)" << e(c.project->name)
          << "</span>";
    }
    h << "<div class=\"top-right\">";
    // The mode switch: one mode's data at a time, as a form so it works without JavaScript.
    const bool test = c.mode == Mode::test;
    h << R"(<form method="post" action="/mode" class="inline">)" << csrf_field(c)
      << R"(<input type="hidden" name="mode" value=")" << (test ? "live" : "test") << "\">"
      << R"(<input type="hidden" name="next" value=")" << e(c.path) << "\">"
      << R"(<button type="submit" class="mode-toggle" data-test="mode-toggle">)"
      << tr(lang, test ? "switch_to_live" : "switch_to_test") << "</button></form>";
    h << lang_links(lang, c.path);
    h << R"(<span class="who" title=")" << e(c.address) << "\">" << tr(lang, "signed_in_as") << " "
      << "<code data-test=\"signed-in-address\">" << e(short_address(c.address))
      << "</code></span>";
    h << R"(<form method="post" action="/sign-out" class="inline">)" << csrf_field(c)
      << R"(<button type="submit" data-test="sign-out">)" << tr(lang, "sign_out")
      << "</button></form>";
    h << "</div></div>";
    // Inside the header, so that no content of the page is outside a landmark.
    h << R"(<div class="mode-banner" data-test="mode-banner" data-mode=")"
      << domain::events::to_string(c.mode) << "\">"
      << (test ? tr(lang, "test_mode") : tr(lang, "live_mode"));
    if (test) h << ": " << tr(lang, "test_banner");
    h << "</div></header>";
    if (c.project) {
        const std::string base = "/p/" + c.project->project_id.value;
        h << R"(<nav class="project-nav" aria-label=")" << tr(lang, "projects") << "\"><ul>";
        const std::array<std::pair<const char*, const char*>, 10> items = {{
            {"", "overview"},
            {"/charges", "charges"},
            {"/exceptions", "exceptions"},
            {"/keys", "keys"},
            {"/members", "members"},
            {"/wallet", "wallet"},
            {"/settings", "settings"},
            {"/reports", "reports"},
            {"/webhooks", "webhooks"},
            {"/audit", "audit"},
        }};
        for (const auto& [suffix, key] : items) {
            const bool current = c.section == key;
            h << "<li><a href=\"" << e(base + suffix) << "\""
              << (current ? " aria-current=\"page\"" : "") << ">" << tr(lang, key) << "</a></li>";
        }
        h << "</ul></nav>";
    }
    h << "<main id=\"main\">" << main << "</main></body></html>\n";
    return h.out;
}

// A table in a region that scrolls sideways on a narrow screen instead of widening the page;
// focusable, so that a keyboard can scroll it too.
std::string table_open(std::string_view label, std::string_view test) {
    return R"(<div class="table-wrap" role="region" tabindex="0" aria-label=")" + e(label) +
           "\"><table data-test=\"" + std::string(test) + "\">";
}

std::string error_block(const std::optional<std::string>& error) {
    if (!error) return {};
    return R"(<p class="error" role="alert" data-test="error">)" + e(*error) + "</p>";
}

std::string copy_button(Lang L, std::string_view target) {
    return R"(<button type="button" class="copy" data-copy=")" + std::string(target) +
           "\" data-copied=\"" + e(tr(L, "copied")) + "\">" + e(tr(L, "copy")) + "</button>";
}

std::string sign_in_page(Lang L, std::string_view asset_version) {
    Html h;
    h << head(L, tr(L, "sign_in"), "", asset_version) << "<body class=\"sign-in\">";
    h << R"(<main id="main" class="narrow"><h1>duepay</h1><h2>)" << tr(L, "sign_in") << "</h2>";
    h << "<p>" << tr(L, "sign_in_lead") << "</p>";
    h << "<noscript><p class=\"error\">" << tr(L, "needs_js") << "</p></noscript>";
    h << R"(<button type="button" id="siwe" data-test="sign-in" data-no-wallet=")"
      << e(tr(L, "no_wallet")) << "\" data-signing=\"" << e(tr(L, "signing")) << "\">"
      << tr(L, "sign_in_button") << "</button>";
    h << "<p id=\"siwe-status\" class=\"status\" role=\"status\" aria-live=\"polite\" "
         "data-test=\"sign-in-status\"></p>";
    h << "<p>" << lang_links(L, "/sign-in") << "</p></main></body></html>\n";
    return h.out;
}

std::string projects_page(const Chrome& c, const std::vector<ports::ProjectMembership>& projects,
                          const std::optional<std::string>& error) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, "projects") << "</h1>" << error_block(error);
    if (projects.empty()) {
        h << "<p data-test=\"no-projects\">" << tr(lang, "no_projects") << "</p>";
    } else {
        h << table_open(tr(lang, "projects"), "projects") << "<thead><tr><th scope=\"col\">"
          << tr(lang, "name") << "</th><th scope=\"col\">" << tr(lang, "role")
          << "</th><th scope=\"col\">" << tr(lang, "created") << "</th></tr></thead><tbody>";
        for (const auto& p : projects) {
            h << "<tr><td><a href=\"/p/" << e(p.project_id.value) << "\">" << e(p.name)
              << "</a></td><td>" << role_label(lang, p.role) << "</td><td>" << e(p.created_at)
              << "</td></tr>";
        }
        h << kTableClose;
    }
    h << "<h2>" << tr(lang, "create_project") << "</h2>";
    h << R"(<form method="post" action="/projects" class="stack">)" << csrf_field(c)
      << "<label for=\"project-name\">" << tr(lang, "project_name") << "</label>"
      << "<input id=\"project-name\" name=\"name\" required maxlength=\"100\" "
         "autocomplete=\"off\" data-test=\"project-name\">"
      << R"(<button type="submit" data-test="create-project">)" << tr(lang, "create_project")
      << "</button></form>";
    h << R"(<form method="post" action="/sign-out-everywhere" class="inline">)" << csrf_field(c)
      << R"(<button type="submit" class="secondary" data-test="sign-out-everywhere">)"
      << tr(lang, "sign_out_everywhere") << "</button></form>";
    return layout(c, tr(lang, "projects"), h.out);
}

std::string project_home(const Chrome& c, const ports::ProjectView& p,
                         const std::vector<ports::KeySummary>& keys, std::string_view api_url,
                         std::string_view figures, bool first_steps) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << e(p.name) << "</h1>";
    h << "<dl class=\"facts\"><dt>" << tr(lang, "plan") << "</dt><dd>" << e(p.plan) << "</dd><dt>"
      << tr(lang, "your_role") << "</dt><dd data-test=\"my-role\">"
      << role_label(lang, c.project ? c.project->role : ports::MemberRole::viewer) << "</dd><dt>"
      << tr(lang, "wallet") << "</dt><dd>"
      << (p.payout_address ? "<code>" + e(*p.payout_address) + "</code>"
                           : std::string(tr(lang, "no_payout")))
      << "</dd></dl>";
    h << figures;
    if (!first_steps) return layout(c, p.name, h.out);
    bool has_test_key = false;
    for (const auto& k : keys) has_test_key |= k.active && k.mode == Mode::test;
    const std::string base = "/p/" + p.id.value;
    h << "<h2>" << tr(lang, "get_started") << "</h2><ol class=\"steps\">";
    h << "<li" << (p.payout_address ? " class=\"done\"" : "") << "><a href=\"" << e(base)
      << "/wallet\">" << tr(lang, "step_wallet") << "</a>"
      << (p.payout_address ? " ✓ " + std::string(tr(lang, "done")) : "") << "</li>";
    h << "<li" << (has_test_key ? " class=\"done\"" : "") << "><a href=\"" << e(base) << "/keys\">"
      << tr(lang, "step_key") << "</a>"
      << (has_test_key ? " ✓ " + std::string(tr(lang, "done")) : "") << "</li>";
    h << "<li>" << tr(lang, "step_charge")
      << "<pre data-test=\"first-charge\"><code>curl -s -X POST " << e(api_url)
      << "/v1/invoices \\\n  -H \"x-api-key: dp_test_…\" -H 'content-type: application/json' "
         "\\\n  -d '{\"chainId\":80002,\"amount\":\"1000000\"}'</code></pre></li>";
    h << "</ol>";
    return layout(c, p.name, h.out);
}

std::string keys_page(const Chrome& c, const KeysPage& page) {
    const Lang lang = c.lang;
    const std::string base = "/p/" + (c.project ? c.project->project_id.value : std::string());
    Html h;
    h << "<h1>" << tr(lang, "keys") << "</h1>" << error_block(page.error);
    if (page.created) {
        h << R"(<div class="notice" role="status"><p>)" << tr(lang, "new_key_once") << "</p>"
          << R"(<p><code id="new-key" data-test="new-key">)" << e(page.created->secret)
          << "</code> " << copy_button(lang, "new-key") << "</p></div>";
    }
    if (page.revealed) {
        h << R"(<div class="notice" role="status"><p>)" << tr(lang, "revealed") << " "
          << e(page.revealed->first) << "</p><p><code id=\"revealed-key\" "
          << "data-test=\"revealed-key\">" << e(page.revealed->second) << "</code> "
          << copy_button(lang, "revealed-key") << "</p></div>";
    }
    if (page.keys.empty()) {
        h << "<p>" << tr(lang, "no_keys") << "</p>";
    } else {
        h << table_open(tr(lang, "keys"), "keys") << "<thead><tr><th scope=\"col\">"
          << tr(lang, "key") << "</th><th scope=\"col\">" << tr(lang, "created")
          << "</th><th scope=\"col\">" << tr(lang, "status") << "</th><th scope=\"col\">"
          << tr(lang, "actions") << "</th></tr></thead><tbody>";
        for (const auto& k : page.keys) {
            h << "<tr data-key-id=\"" << e(k.id) << "\"><td><code>" << e(k.prefix)
              << "…</code><br><small>" << e(k.id) << "</small></td><td>" << e(k.created_at)
              << "</td><td>";
            if (k.revoked_at) {
                h << tr(lang, "revoked") << " " << e(*k.revoked_at);
            } else if (k.expires_at) {
                h << tr(lang, "expires") << " " << e(*k.expires_at);
            } else {
                h << tr(lang, "active");
            }
            h << "</td><td class=\"actions\">";
            if (page.can_manage && k.active) {
                const std::string kb = base + "/keys/" + k.id;
                if (k.revealable) {
                    h << R"(<form method="post" action=")" << e(kb) << R"(/reveal" class="inline">)"
                      << csrf_field(c) << R"(<button type="submit" data-test="reveal-key">)"
                      << tr(lang, "reveal") << "</button></form>";
                }
                if (!k.expires_at) {
                    h << R"(<form method="post" action=")" << e(kb) << R"(/roll" class="inline">)"
                      << csrf_field(c) << "<label>" << tr(lang, "roll_overlap")
                      << " <input name=\"expires_in_seconds\" type=\"number\" min=\"0\" "
                         "max=\"604800\" value=\"3600\" size=\"7\"></label> "
                      << R"(<button type="submit" data-test="roll-key">)" << tr(lang, "roll")
                      << "</button></form>";
                }
                h << R"(<form method="post" action=")" << e(kb) << R"(/revoke" class="inline">)"
                  << csrf_field(c) << R"(<button type="submit" class="danger" )"
                  << "data-test=\"revoke-key\">" << tr(lang, "revoke") << "</button></form>";
            }
            h << "</td></tr>";
        }
        h << kTableClose;
    }
    if (page.can_manage) {
        const bool test = c.mode == Mode::test;
        h << R"(<form method="post" action=")" << e(base) << R"(/keys" class="inline">)"
          << csrf_field(c) << R"(<input type="hidden" name="mode" value=")"
          << (test ? "test" : "live") << R"("><button type="submit" data-test="create-key">)"
          << tr(lang, test ? "create_test_key" : "create_live_key") << "</button></form>";
    }
    return layout(c, tr(lang, "keys"), h.out);
}

std::string members_page(const Chrome& c, const std::vector<ports::Member>& members,
                         bool can_manage, const std::optional<std::string>& error) {
    const Lang lang = c.lang;
    const std::string base = "/p/" + (c.project ? c.project->project_id.value : std::string());
    Html h;
    h << "<h1>" << tr(lang, "members") << "</h1>" << error_block(error);
    h << "<p>" << tr(lang, "roles_help") << "</p>";
    h << table_open(tr(lang, "members"), "members") << "<thead><tr><th scope=\"col\">"
      << tr(lang, "address") << "</th><th scope=\"col\">" << tr(lang, "role")
      << "</th><th scope=\"col\">" << tr(lang, "added") << "</th><th scope=\"col\">"
      << tr(lang, "actions") << "</th></tr></thead><tbody>";
    for (const auto& m : members) {
        h << "<tr><td><code>" << e(m.address) << "</code></td><td>" << role_label(lang, m.role)
          << "</td><td>" << e(m.added_at) << "</td><td>";
        if (can_manage && m.role != ports::MemberRole::owner) {
            h << R"(<form method="post" action=")" << e(base) << "/members/" << e(m.address)
              << R"(/remove" class="inline">)" << csrf_field(c)
              << R"(<button type="submit" class="danger">)" << tr(lang, "remove")
              << "</button></form>";
        }
        h << "</td></tr>";
    }
    h << kTableClose;
    if (can_manage) {
        h << "<h2>" << tr(lang, "add_member") << R"(</h2><form method="post" action=")" << e(base)
          << R"(/members" class="stack">)" << csrf_field(c) << "<label for=\"member-address\">"
          << tr(lang, "address") << R"(</label><input id="member-address" name="address" required )"
          << R"(pattern="0x[0-9a-fA-F]{40}" autocomplete="off" data-test="member-address">)"
          << "<label for=\"member-role\">" << tr(lang, "role") << "</label>"
          << R"(<select id="member-role" name="role" data-test="member-role">)";
        for (auto r :
             {ports::MemberRole::viewer, ports::MemberRole::developer, ports::MemberRole::admin}) {
            h << "<option value=\"" << domain::accounts::role_name(r) << "\">"
              << role_label(lang, r) << "</option>";
        }
        h << R"(</select><button type="submit" data-test="add-member">)" << tr(lang, "add_member")
          << "</button></form>";
    }
    return layout(c, tr(lang, "members"), h.out);
}

std::string wallet_page(const Chrome& c, const ports::ProjectView& p, bool is_owner) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, "wallet") << "</h1>";
    if (p.payout_address) {
        h << "<dl class=\"facts\"><dt>" << tr(lang, "payout_address")
          << "</dt><dd><code data-test=\"payout-address\">" << e(*p.payout_address)
          << "</code></dd>";
        if (p.payout_verified_at) {
            h << "<dt>" << tr(lang, "verified_at") << "</dt><dd>" << e(*p.payout_verified_at)
              << "</dd>";
        }
        h << "</dl>";
    } else {
        h << "<p data-test=\"no-payout\">" << tr(lang, "no_payout") << "</p>";
    }
    h << "<p>" << tr(lang, "wallet_help") << "</p>";
    if (is_owner) {
        h << "<noscript><p class=\"error\">" << tr(lang, "needs_js") << "</p></noscript>"
          << R"(<button type="button" id="verify-wallet" data-test="verify-wallet" )"
          << "data-project=\"" << e(p.id.value) << "\" data-current=\""
          << e(p.payout_address.value_or("")) << "\" data-no-wallet=\"" << e(tr(lang, "no_wallet"))
          << "\" data-signing=\"" << e(tr(lang, "signing")) << "\">" << tr(lang, "verify_wallet")
          << "</button><p id=\"wallet-status\" class=\"status\" role=\"status\" "
             "aria-live=\"polite\" data-test=\"wallet-status\"></p>";
    } else {
        h << "<p>" << tr(lang, "owner_only") << "</p>";
    }
    return layout(c, tr(lang, "wallet"), h.out);
}

std::string settings_page(const Chrome& c, const ports::ProjectView& p, bool can_manage,
                          const std::optional<std::string>& error, bool saved) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, "settings") << "</h1>" << error_block(error);
    if (saved) h << R"(<p class="notice" role="status">)" << tr(lang, "saved") << "</p>";
    const std::string dis = can_manage ? "" : " disabled";
    h << R"(<form method="post" action="/p/)" << e(p.id.value) << R"(/settings" class="stack">)"
      << csrf_field(c);
    h << "<label for=\"s-name\">" << tr(lang, "name")
      << R"(</label><input id="s-name" name="name" )"
      << R"(required maxlength="100" value=")" << e(p.name) << "\"" << dis << ">";
    h << "<label for=\"s-logo\">" << tr(lang, "logo_url") << "</label><input id=\"s-logo\" "
      << R"(name="logo_url" type="url" value=")" << e(p.logo_url.value_or("")) << "\"" << dis
      << ">";
    h << "<label for=\"s-accent\">" << tr(lang, "accent_color") << "</label><input id=\"s-accent\" "
      << R"(name="accent_color" pattern="#[0-9a-fA-F]{6}" value=")"
      << e(p.accent_color.value_or("")) << "\"" << dis << ">";
    h << "<label for=\"s-window\">" << tr(lang, "payment_window")
      << "</label><input id=\"s-window\" "
      << R"(name="payment_window_seconds" type="number" min="60" max="86400" value=")"
      << std::to_string(p.payment_window_seconds) << "\"" << dis << ">";
    if (can_manage) {
        h << R"(<button type="submit" data-test="save-settings">)" << tr(lang, "save")
          << "</button>";
    }
    h << "</form>";
    // The checkout's branding as a buyer sees it: the name, the logo and the accent colour.
    h << "<h2>" << tr(lang, "preview") << R"(</h2><div class="preview" data-test="preview">)";
    if (p.logo_url) h << "<img src=\"" << e(*p.logo_url) << R"(" alt="" class="preview-logo">)";
    h << "<p class=\"preview-name\">" << e(p.name) << "</p>";
    if (p.accent_color) {
        h << R"(<link rel="stylesheet" href="/static/accent/)" << e(p.accent_color->substr(1))
          << ".css\">";
    }
    h << "<span class=\"preview-pay accent\">" << tr(lang, "preview_pay") << "</span></div>";
    return layout(c, tr(lang, "settings"), h.out);
}

std::string audit_page(const Chrome& c, const std::vector<ports::AuditEntry>& entries) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, "audit") << "</h1>";
    if (entries.empty()) {
        h << "<p>" << tr(lang, "no_audit") << "</p>";
        return layout(c, tr(lang, "audit"), h.out);
    }
    h << table_open(tr(lang, "audit"), "audit") << "<thead><tr><th scope=\"col\">"
      << tr(lang, "when") << "</th><th scope=\"col\">" << tr(lang, "who")
      << "</th><th scope=\"col\">" << tr(lang, "what") << "</th><th scope=\"col\">"
      << tr(lang, "session") << "</th><th scope=\"col\">" << tr(lang, "details")
      << "</th></tr></thead><tbody>";
    for (const auto& a : entries) {
        h << "<tr><td>" << e(a.at) << "</td><td>";
        if (a.actor_kind == "operator") {
            h << tr(lang, "operator");
        } else {
            h << e(a.actor_kind) << " <code>" << e(a.actor.value_or("")) << "</code>";
        }
        h << "</td><td><code>" << e(a.action) << "</code></td><td>" << e(a.session_id.value_or(""))
          << "</td><td><code class=\"json\">" << e(a.changes_json) << "</code></td></tr>";
    }
    h << kTableClose;
    return layout(c, tr(lang, "audit"), h.out);
}

std::string message_page(const Chrome& c, std::string_view title_key, std::string_view body_key) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, title_key) << "</h1><p>" << tr(lang, body_key)
      << "</p><p><a href=\"/projects\">" << tr(lang, "back") << "</a></p>";
    return layout(c, tr(lang, title_key), h.out);
}

namespace {

std::string amount_text(const ports::ChargeView& v) {
    std::string out = v.token_decimals ? domain::money::format_units(v.amount, *v.token_decimals)
                                       : domain::money::to_string(v.amount);
    out += " ";
    out += token_label(v);
    return out;
}

std::string filter_value(const ChargesPage& page, std::string_view name) {
    for (const auto& [k, v] : page.filters)
        if (k == name) return v;
    return {};
}

}  // namespace

std::string charges_page(const Chrome& c, const ChargesPage& page) {
    const Lang lang = c.lang;
    const std::string base = "/p/" + (c.project ? c.project->project_id.value : std::string());
    Html h;
    h << "<h1>" << tr(lang, "charges") << "</h1>" << error_block(page.error);
    // Filters: a GET form, the REST list's parameter names.
    h << R"(<form method="get" action=")" << e(base) << R"(/charges" class="filters">)";
    h << "<label>" << tr(lang, "status") << R"( <select name="status" data-test="filter-status">)"
      << "<option value=\"\">" << tr(lang, "any") << "</option>";
    for (const char* s : {"pending", "confirming", "paid", "underpaid", "overpaid", "expired",
                          "failed", "refunded"}) {
        h << "<option" << (filter_value(page, "status") == s ? " selected" : "") << ">" << s
          << "</option>";
    }
    h << "</select></label> <label>" << tr(lang, "reference")
      << R"( <input name="reference" maxlength="128" value=")" << e(filter_value(page, "reference"))
      << "\"></label> <label>" << tr(lang, "created_from")
      << R"( <input name="createdGte" placeholder="2026-11-01T00:00:00Z" value=")"
      << e(filter_value(page, "createdGte")) << "\"></label> <label>" << tr(lang, "created_before")
      << R"( <input name="createdLt" placeholder="2026-12-01T00:00:00Z" value=")"
      << e(filter_value(page, "createdLt")) << "\"></label> <label>" << tr(lang, "metadata_key")
      << R"( <input name="metadataKey" maxlength="40" data-test="filter-metadata-key" value=")"
      << e(filter_value(page, "metadataKey")) << "\"></label> <label>" << tr(lang, "metadata_value")
      << " <input name=\"metadataValue\" maxlength=\"500\" data-test=\"filter-metadata-value\" "
         "value=\""
      << e(filter_value(page, "metadataValue")) << R"("></label> <button type="submit">)"
      << tr(lang, "filter") << "</button></form>";
    h << R"(<form method="get" action=")" << e(base) << R"(/charges/find" class="filters">)"
      << "<label>" << tr(lang, "invoice_id") << R"( <input name="invoiceId" size="40" )"
      << R"(pattern="0x[0-9a-fA-F]{64}" data-test="find-invoice"></label> )"
      << "<button type=\"submit\">" << tr(lang, "open") << "</button></form>";
    // The list's region: with live updates, dashboard.js re-reads this page when the stream says
    // a charge of the project changed, and swaps the region; the status line tells screen readers.
    h << "<div id=\"charges-list\"";
    if (page.live_since_ms) {
        h << " data-live=\"" << e(base)
          << "/charges/live?since=" << std::to_string(*page.live_since_ms) << "\" data-updated=\""
          << tr(lang, "live_updated") << "\"";
    }
    h << ">";
    if (page.live_since_ms) {
        h << R"(<p class="live-status" role="status" data-test="live-status">)"
          << tr(lang, "live_on") << "</p>";
    }
    if (page.charges.empty()) {
        h << "<p data-test=\"no-charges\">" << tr(lang, "no_charges") << "</p>";
    } else {
        h << table_open(tr(lang, "charges"), "charges") << "<thead><tr><th scope=\"col\">"
          << tr(lang, "created") << "</th><th scope=\"col\">" << tr(lang, "invoice_id")
          << "</th><th scope=\"col\">" << tr(lang, "status") << "</th><th scope=\"col\">"
          << tr(lang, "amount") << "</th><th scope=\"col\">" << tr(lang, "reference")
          << "</th></tr></thead><tbody>";
        for (const auto& row : page.charges) {
            const auto& v = row.charge;
            h << "<tr data-invoice=\"" << e(v.invoice_id) << "\" data-status=\""
              << domain::charge::to_string(v.status) << "\"><td>"
              << e(domain::events::format_rfc3339_millis_utc(row.created_us / 1000))
              << "</td><td><a href=\"" << e(base) << "/charges/" << e(v.invoice_id) << "\"><code>"
              << e(v.invoice_id.substr(0, 10)) << "…"
              << e(v.invoice_id.substr(v.invoice_id.size() - 6)) << "</code></a></td><td>"
              << domain::charge::to_string(v.status) << "</td><td>" << e(amount_text(v))
              << "</td><td>" << e(v.reference.value_or("")) << "</td></tr>";
        }
        h << kTableClose;
    }
    if (page.next_cursor) {
        std::string query;
        for (const auto& [k, v] : page.filters) {
            if (k == "cursor" || v.empty()) continue;
            query += k + "=" + form_encode(v) + "&";
        }
        h << R"(<p><a rel="next" data-test="next-page" href=")" << e(base) << "/charges?"
          << e(query) << "cursor=" << e(*page.next_cursor) << "\">" << tr(lang, "next_page")
          << "</a></p>";
    }
    h << "</div>";
    return layout(c, tr(lang, "charges"), h.out);
}

namespace {

// A token amount, exact in the token's units (its decimals, no float), with its symbol; in raw
// units and the token's address when it is not the charge's token (a wrong-token deposit).
std::string amount_in(const ports::ChargeView& v, const domain::Address& token,
                      const domain::TokenAmount& amount) {
    if (token != v.token) {
        return domain::money::to_string(amount) + " (" + domain::evm::to_checksum(token) + ")";
    }
    return (v.token_decimals ? domain::money::format_units(amount, *v.token_decimals)
                             : domain::money::to_string(amount)) +
           " " + token_label(v);
}

// A transaction hash: linked to the chain's explorer when it has one (another origin: no opener,
// no referrer), else plain text.
std::string tx_cell(Lang L, const std::string& explorer_url, const std::string& tx_hash) {
    const auto url = domain::explorer_tx_url(explorer_url, tx_hash);
    const std::string code = "<code>" + e(tx_hash) + "</code>";
    if (!url) return "<td data-test=\"tx\">" + code + "</td>";
    return R"(<td data-test="tx"><a href=")" + e(*url) +
           R"(" target="_blank" rel="noopener noreferrer" data-test="tx-link" title=")" +
           std::string(tr(L, "opens_explorer")) + "\">" + code + "</a></td>";
}

// The record-a-refund form into `h`, from pieces already escaped: the CSRF input (csrf_field),
// the URL it posts to, and the id that keeps its input's id unique on the page.
void put_refund_form(Html& h, Lang L, std::string_view csrf_input, std::string_view action,
                     std::string_view id) {
    h << R"(<form method="post" action=")" << action << R"(" class="stack">)" << csrf_input
      << "<label for=\"tx-" << id << "\">" << tr(L, "refund_tx_hash") << "</label><input id=\"tx-"
      << id << R"(" name="tx_hash" required pattern="0x[0-9a-fA-F]{64}" size="30" )"
      << R"(data-test="tx-hash"><button type="submit" class="secondary" )"
      << "data-test=\"record-refund\">" << tr(L, "record_refund") << "</button></form>";
}

// The record-a-refund form (the charge page), posting to `action`.
std::string refund_form(const Chrome& c, const std::string& action, const std::string& id) {
    Html h;
    put_refund_form(h, c.lang, csrf_field(c), e(action), e(id));
    return h.out;
}

std::string charge_money_sections(const Chrome& c, const ports::ChargeView& v,
                                  const ChargeMoney& money) {
    const Lang lang = c.lang;
    Html h;
    h << "<h2>" << tr(lang, "payments") << "</h2>";
    if (money.payments.empty()) {
        h << "<p data-test=\"no-payments\">" << tr(lang, "no_payments") << "</p>";
    } else {
        h << table_open(tr(lang, "payments"), "payments") << "<thead><tr><th scope=\"col\">"
          << tr(lang, "tx_hash") << "</th><th scope=\"col\">" << tr(lang, "amount")
          << "</th><th scope=\"col\">" << tr(lang, "status") << "</th><th scope=\"col\">"
          << tr(lang, "network") << "</th><th scope=\"col\">" << tr(lang, "time")
          << "</th></tr></thead><tbody>";
        for (const auto& p : money.payments) {
            const auto state = domain::charge::to_string(p.state);
            h << R"(<tr data-test="payment" data-status=")" << state << "\">"
              << tx_cell(lang, money.explorer_url, domain::to_hex(p.key.tx_hash))
              << "<td data-test=\"amount\">" << e(amount_in(v, p.token, p.amount))
              << "</td><td data-test=\"status\">" << state << "</td><td>"
              << std::to_string(v.chain_id.value) << "</td><td><time>" << e(p.at)
              << "</time></td></tr>";
        }
        h << kTableClose;
    }
    h << "<h2>" << tr(lang, "refunds") << "</h2>";
    if (money.refunds.empty()) {
        h << "<p data-test=\"no-refunds\">" << tr(lang, "no_refunds") << "</p>";
    } else {
        h << table_open(tr(lang, "refunds"), "refunds") << "<thead><tr><th scope=\"col\">"
          << tr(lang, "tx_hash") << "</th><th scope=\"col\">" << tr(lang, "amount")
          << "</th><th scope=\"col\">" << tr(lang, "status") << "</th></tr></thead><tbody>";
        for (const auto& r : money.refunds) {
            const bool done = r.status == domain::charge::RefundStatus::succeeded;
            h << R"(<tr data-test="refund" data-status=")" << domain::charge::to_string(r.status)
              << "\">" << tx_cell(lang, money.explorer_url, domain::to_hex(r.tx_hash))
              << "<td data-test=\"amount\">"
              << (done ? e(amount_in(v, v.token, r.amount))
                       : std::string(tr(lang, "refund_pending_amount")))
              << "</td><td data-test=\"status\">" << domain::charge::to_string(r.status);
            if (r.reason) h << " (" << domain::events::to_string(*r.reason) << ")";
            h << "</td></tr>";
        }
        h << kTableClose;
    }
    if (money.refund_form) {
        const std::string base = "/p/" + v.project_id.value + "/charges/" + v.invoice_id;
        h << refund_form(c, base + "/refund", v.invoice_id);
    }
    return h.out;
}

}  // namespace

std::string charge_page(const Chrome& c, const ports::ChargeView& v,
                        const std::vector<ChargeTimelineEntry>& timeline, const ChargeMoney& money,
                        std::string_view sections) {
    const Lang lang = c.lang;
    Html h;
    h << "<h1>" << tr(lang, "charge") << "</h1>" << error_block(money.error);
    if (money.notice)
        h << R"(<p class="notice" role="status" data-test="notice">)" << e(*money.notice) << "</p>";
    h << R"(<dl class="facts" data-test="charge">)";
    auto fact = [&](std::string_view key, const std::string& value) {
        h << "<dt>" << tr(lang, key) << "</dt><dd>" << value << "</dd>";
    };
    fact("invoice_id", "<code data-test=\"charge-id\">" + e(v.invoice_id) + "</code>");
    fact("status", "<span data-test=\"charge-status\">" +
                       std::string(domain::charge::to_string(v.status)) + "</span>");
    fact("amount", e(amount_text(v)));
    fact("network", std::to_string(v.chain_id.value));
    fact("payout_address", "<code>" + e(domain::evm::to_checksum(v.merchant)) + "</code>");
    if (v.deposit_address) {
        fact("deposit_address",
             "<code>" + e(domain::evm::to_checksum(*v.deposit_address)) + "</code>");
    }
    fact("deadline", e(domain::events::format_rfc3339_millis_utc(v.deadline * 1000)));
    if (v.reference) fact("reference", e(*v.reference));
    if (v.metadata_json)
        fact("metadata", "<code class=\"json\">" + e(*v.metadata_json) + "</code>");
    h << "</dl><h2>" << tr(lang, "timeline") << "</h2>";
    h << R"(<ol class="timeline" data-test="timeline">)";
    for (const auto& t : timeline) {
        h << "<li><time>" << e(t.occurred_at) << "</time> <code>" << e(t.type) << "</code>";
        if (!t.detail.empty())
            h << R"( <q class="note" data-test="resolution-note">)" << e(t.detail) << "</q>";
        h << "</li>";
    }
    h << "</ol>" << charge_money_sections(c, v, money) << sections;
    return layout(c, tr(lang, "charge"), h.out);
}

// ---- Exceptions (ADR 0230) ----

namespace {

// A token amount for people, with its symbol; `negative` puts a minus sign before it.
std::string token_text(const ports::ChargeView& v, const domain::TokenAmount& amount,
                       bool negative = false) {
    std::string out = negative && amount.value != 0 ? "-" : "";
    out += v.token_decimals ? domain::money::format_units(amount, *v.token_decimals)
                            : domain::money::to_string(amount);
    out += ' ';
    out += token_label(v);
    return out;
}

// The charge's fiat quote (charge.created's): currency and rate, when it was priced in fiat.
struct Quote {
    std::string currency;
    domain::money::Rational rate;
};
std::optional<Quote> quote_of(const ports::ChargeView& v) {
    if (!v.fiat_json || !v.token_decimals) return std::nullopt;
    rapidjson::Document d;
    if (domain::json::parse(d, *v.fiat_json).refusal != domain::json::Refusal::none ||
        !d.IsObject() || !d.HasMember("currency") || !d["currency"].IsString() ||
        !d.HasMember("rate") || !d["rate"].IsString()) {
        return std::nullopt;
    }
    auto rate = domain::money::parse_rate(d["rate"].GetString());
    if (!rate) return std::nullopt;
    return Quote{d["currency"].GetString(), *rate};
}

// The fiat value at the quoted rate, exact to the cent or marked as rounded ("≈").
std::string fiat_text(const ports::ChargeView& v, const Quote& q, const domain::TokenAmount& a,
                      bool negative = false) {
    const domain::money::BigInt units(a.value);
    const auto value = domain::money::fiat_value(negative ? domain::money::BigInt(-units) : units,
                                                 *v.token_decimals, q.rate);
    return std::string(value.exact ? "" : "≈ ") +
           domain::money::format_minor_units(value.minor_units) + " " + q.currency;
}

// The issue a row shows: the open one, else (the resolved list) the one last resolved.
std::string issue_of(const ports::ChargeView& v) {
    if (v.open_exception) return *v.open_exception;
    if (!v.exception_resolution_json) return {};
    rapidjson::Document d;
    return domain::json::parse(d, *v.exception_resolution_json).refusal ==
                       domain::json::Refusal::none &&
                   d.IsObject() && d.HasMember("exception") && d["exception"].IsString()
               ? d["exception"].GetString()
               : std::string();
}

std::string resolution_text(Lang L, const ports::ChargeView& v) {
    if (!v.exception_resolution_json) return {};
    rapidjson::Document d;
    if (domain::json::parse(d, *v.exception_resolution_json).refusal !=
            domain::json::Refusal::none ||
        !d.IsObject() || !d.HasMember("note") || !d["note"].IsString() ||
        !d.HasMember("resolvedBy") || !d["resolvedBy"].IsObject() ||
        !d["resolvedBy"].HasMember("id") || !d["resolvedBy"]["id"].IsString() ||
        !d.HasMember("resolvedAt") || !d["resolvedAt"].IsString()) {
        return {};
    }
    return R"(<q class="note" data-test="resolution-note">)" + e(d["note"].GetString()) +
           "</q><br><small>" + std::string(tr(L, "resolved_by")) + " <code>" +
           e(short_address(d["resolvedBy"]["id"].GetString())) + "</code>, <time>" +
           e(d["resolvedAt"].GetString()) + "</time></small>";
}

}  // namespace

std::string exceptions_page(const Chrome& c, const ExceptionsPage& page) {
    const Lang lang = c.lang;
    const std::string base = "/p/" + (c.project ? c.project->project_id.value : std::string());
    Html h;
    // A row with its two forms is under 2 kB: the page grows its buffer once, not by doubling.
    h.out.reserve(4096 + page.charges.size() * 2048);
    // Escaped once for the page, not once a row: the project's path and the forms' CSRF input.
    const std::string base_e = e(base);
    const std::string csrf_input = csrf_field(c);
    h << "<h1>" << tr(lang, "exceptions") << "</h1><p>" << tr(lang, "exceptions_lead") << "</p>";
    h << "<nav aria-label=\"" << tr(lang, "exceptions") << R"("><ul class="tabs">)"
      << "<li><a href=\"" << e(base) << R"(/exceptions" data-test="tab-open")"
      << (page.resolved ? "" : " aria-current=\"page\"") << ">" << tr(lang, "exceptions_open")
      << "</a></li><li><a href=\"" << e(base) << "/exceptions?view=resolved\" "
      << "data-test=\"tab-resolved\"" << (page.resolved ? " aria-current=\"page\"" : "") << ">"
      << tr(lang, "exceptions_resolved") << "</a></li></ul></nav>";
    h << error_block(page.error);
    if (page.notice)
        h << R"(<p class="notice" role="status" data-test="notice">)" << e(*page.notice) << "</p>";
    if (page.charges.empty()) {
        h << "<p data-test=\"no-exceptions\">"
          << tr(lang, page.resolved ? "no_resolved_exceptions" : "no_exceptions") << "</p>";
        return layout(c, tr(lang, "exceptions"), h.out);
    }
    h << table_open(tr(lang, "exceptions"), "exceptions") << "<thead><tr><th scope=\"col\">"
      << tr(lang, "charge") << "</th><th scope=\"col\">" << tr(lang, "exception")
      << "</th><th scope=\"col\">" << tr(lang, "amount_due") << "</th><th scope=\"col\">"
      << tr(lang, "amount_received") << "</th><th scope=\"col\">" << tr(lang, "difference")
      << "</th><th scope=\"col\">" << tr(lang, page.resolved ? "resolution" : "actions")
      << "</th></tr></thead><tbody>";
    std::size_t n = 0;
    for (const auto& row : page.charges) {
        const auto& v = row.charge;
        // The forms' field ids: the row's number, unique on the page and 2-3 bytes where the
        // invoice id is 66 (four times a row).
        const std::string field = std::to_string(++n);
        const domain::TokenAmount received{
            domain::charge::saturating_add(v.amount_confirmed.value, v.amount_late.value)};
        const bool short_paid = received.value < v.amount.value;
        const domain::TokenAmount diff{short_paid ? v.amount.value - received.value
                                                  : received.value - v.amount.value};
        const auto quote = quote_of(v);
        auto cell = [&](const domain::TokenAmount& a, bool negative, const char* test) {
            h << "<td data-test=\"" << test << "\">" << e(token_text(v, a, negative));
            if (quote) h << "<br><small>" << e(fiat_text(v, *quote, a, negative)) << "</small>";
            h << "</td>";
        };
        const std::string issue = issue_of(v);
        const std::string id = e(v.invoice_id);  // escaped once, shown four times
        h << R"(<tr data-test="exception-row" data-invoice=")" << id << "\"><td><a href=\""
          << base_e << "/charges/" << id << "\"><code>" << e(v.invoice_id.substr(0, 10)) << "…"
          << e(v.invoice_id.substr(v.invoice_id.size() - 6)) << "</code></a><br><small>"
          << domain::charge::to_string(v.status) << "</small></td><td data-test=\"exception\">"
          << (issue.empty() ? std::string() : std::string(tr(lang, "exception_" + issue)))
          << "</td>";
        cell(v.amount, false, "due");
        cell(received, false, "received");
        cell(diff, short_paid, "difference");
        h << "<td>";
        if (page.resolved) {
            h << resolution_text(lang, v);
        } else if (page.can_act) {
            std::string action = base_e;
            action.append("/exceptions/").append(id);
            h << R"(<form method="post" action=")" << action << R"(/resolve" class="stack">)"
              << csrf_input << "<label for=\"note-" << field << "\">" << tr(lang, "resolution_note")
              << "</label><textarea id=\"note-" << field
              << R"(" name="note" required maxlength="500" rows="2" data-test="note">)"
              << R"(</textarea><button type="submit" data-test="resolve">)" << tr(lang, "resolve")
              << "</button></form>";
            put_refund_form(h, lang, csrf_input, action + "/refund", field);
        } else {
            h << "<small>" << tr(lang, "viewer_cannot_act") << "</small>";
        }
        h << "</td></tr>";
    }
    h << kTableClose;
    if (page.next_cursor) {
        h << R"(<p><a rel="next" data-test="next-page" href=")" << base_e << "/exceptions?"
          << (page.resolved ? "view=resolved&amp;" : "") << "cursor=" << e(*page.next_cursor)
          << "\">" << tr(lang, "next_page") << "</a></p>";
    }
    return layout(c, tr(lang, "exceptions"), h.out);
}

}  // namespace duepay::api::dashboard
