#include "api/dashboard/dashboard_routes.hpp"

#include <algorithm>
#include <array>
#include <cctype>
#include <map>
#include <tuple>
#include <utility>

#include "api/checkout/checkout_routes.hpp"
#include "api/dashboard/dashboard_assets.hpp"
#include "api/dashboard/dashboard_pages.hpp"
#include "api/dashboard/exceptions_routes.hpp"
#include "api/dashboard/overview_pages.hpp"
#include "api/dashboard/project_scope.hpp"
#include "api/dashboard/report_routes.hpp"
#include "api/dashboard/webhooks_routes.hpp"
#include "api/http/account_api.hpp"
#include "api/http/charge_list.hpp"
#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/accounts/project_settings.hpp"
#include "domain/accounts/siwe.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/charge/resolution_json.hpp"
#include "domain/events/event.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "infra/random/random.hpp"

namespace duepay::api::dashboard {
namespace {

namespace acc = domain::accounts;
namespace siwe = domain::accounts::siwe;
using domain::json::str;
using domain::json::Writer;
using ports::Mode;
using ports::ProjectId;
using Form = std::map<std::string, std::string>;

constexpr long long kMaxKeyOverlap = 7LL * 86400;
constexpr std::size_t kAuditRows = 200;

std::string text_of(const rapidjson::StringBuffer& b) { return {b.GetString(), b.GetSize()}; }

// "host[:port]" of an origin "scheme://host[:port]".
std::string authority_of(std::string_view origin) {
    const auto scheme = origin.find("://");
    return std::string(scheme == std::string_view::npos ? origin : origin.substr(scheme + 3));
}

// The flash of a refund just recorded on the charge `invoice_id` (0x + 64 hex digits): named
// with the charge, so the notice shows on that charge's page only.
std::string refund_flash(const std::string& invoice_id) { return "refund_recorded_" + invoice_id; }

std::string random_hex16() { return domain::to_hex(infra::random::random_bytes<16>()).substr(2); }

}  // namespace

PipelineSettings dashboard_pipeline_settings() {
    PipelineSettings s;
    s.log_name = "dashboard";
    for (auto& [name, value] : checkout::security_headers()) {
        // Not the checkout's no-referrer: under it a browser sends `Origin: null` with every form
        // POST, even to our own origin, and the origin check refuses them all. same-origin keeps
        // the Origin of our own forms and still sends no Referer to any other site.
        if (name == "referrer-policy") value = "same-origin";
        s.headers.emplace_back(name, value);
    }
    s.headers.emplace_back("cache-control", "no-store");
    s.head_as_get = true;
    return s;
}

DashboardRoutes::DashboardRoutes(DashboardDeps deps)
    : deps_(std::move(deps)),
      scope_(required(deps_.store, "DashboardDeps.store"), deps_.asset_version) {
    required(deps_.sessions, "DashboardDeps.sessions");
    required(deps_.charges, "DashboardDeps.charges");
    required(deps_.charge_reader, "DashboardDeps.charge_reader");
    required(deps_.history, "DashboardDeps.history");
    required(deps_.stats, "DashboardDeps.stats");
    required(deps_.reports, "DashboardDeps.reports");
    required(deps_.log, "DashboardDeps.log");
    if (!deps_.recover) throw std::invalid_argument("DashboardDeps.recover is required");
    if (!deps_.now_ms) throw std::invalid_argument("DashboardDeps.now_ms is required");
    if (deps_.chain_ids.empty()) throw std::invalid_argument("DashboardDeps.chain_ids is empty");
}

void DashboardRoutes::add_routes(RouteTable& routes) {
    auto& store = *deps_.store;
    auto& sessions = *deps_.sessions;
    const RouteOptions open{Auth::none};
    const RouteOptions page{Auth::session};
    const RouteOptions form{Auth::session, false, false, true};
    const RouteOptions json{Auth::session, false, true};

    add_health_route(routes);

    // ---- Assets ----
    // The pages link them as /static/dashboard.{js,css}?v=<asset version>: the query only busts
    // caches, so it is the handler's to ignore (the pipeline refuses any query it is not told of).
    const RouteOptions asset{Auth::none, true};
    routes.add("GET", "/static/:file", asset, [](const RouteCall& call) {
        ApiResponse r;
        r.headers["cache-control"] = "public, max-age=300";
        const auto& file = call.params[0];
        if (file == "dashboard.js") {
            r.headers["content-type"] = "text/javascript; charset=utf-8";
            r.body = std::string(dashboard_js());
        } else if (file == "dashboard.css") {
            r.headers["content-type"] = "text/css; charset=utf-8";
            r.body = std::string(dashboard_css());
        } else {
            return error_response(404, "route_not_found", "no such asset");
        }
        return r;
    });
    // The settings page's preview: the accent colour as a stylesheet (no inline style).
    routes.add("GET", "/static/accent/:file", asset, [](const RouteCall& call) {
        auto css = checkout::accent_stylesheet(call.params[0]);
        if (!css) return error_response(404, "route_not_found", "no such asset");
        ApiResponse r;
        r.headers["content-type"] = "text/css; charset=utf-8";
        r.headers["cache-control"] = "public, max-age=86400";
        r.body = std::move(*css);
        return r;
    });

    // ---- Language and mode ----
    routes.add("GET", "/lang/:code", RouteOptions{Auth::none, true}, [](const RouteCall& call) {
        const auto& code = call.params[0];
        if (code != "en" && code != "th") {
            return error_response(404, "route_not_found", "no such language");
        }
        auto r = redirect(local_path(call.request.query_param("next")));
        r.headers["set-cookie"] =
            std::string(kLangCookie) + "=" + code + "; Path=/; SameSite=Lax; Max-Age=31536000";
        return r;
    });
    routes.add("POST", "/mode", form, [](const RouteCall& call) {
        const auto f = form_of(call.request);
        const auto mode = field(f, "mode").value_or("");
        if (mode != "test" && mode != "live") {
            return bad_request("invalid_mode", "mode must be test or live");
        }
        auto r = redirect(local_path(field(f, "next")));
        r.headers["set-cookie"] =
            std::string(kModeCookie) + "=" + mode + "; Path=/; HttpOnly; SameSite=Lax";
        return r;
    });

    // ---- Sign in and out ----
    routes.add("GET", "/", page, [](const RouteCall&) { return redirect("/projects"); });
    routes.add("GET", "/sign-in", open, [this](const RouteCall& call) {
        const auto lang = lang_of(call.request);
        return html(200, sign_in_page(lang, deps_.asset_version), lang);
    });
    routes.add("GET", "/auth/siwe/nonce", RouteOptions{Auth::none, true},
               [this, &store, &sessions](const RouteCall& call) {
                   if (auto unknown = call.request.unknown_query_param({"address", "chainId"})) {
                       return bad_request("unknown_field", "unknown query parameter " + *unknown);
                   }
                   siwe::Message m;
                   const auto& origin = sessions.settings().origin;
                   m.domain = authority_of(origin);
                   m.uri = origin;
                   m.statement = "Sign in to the duepay dashboard.";
                   m.chain_id = deps_.chain_ids.front();
                   if (auto chain = call.request.query_param("chainId")) {
                       const auto wanted = std::find_if(
                           deps_.chain_ids.begin(), deps_.chain_ids.end(),
                           [&](domain::ChainId c) { return std::to_string(c.value) == *chain; });
                       if (wanted == deps_.chain_ids.end()) {
                           return bad_request("siwe_wrong_chain",
                                              "chainId is not a chain this dashboard accepts");
                       }
                       m.chain_id = *wanted;
                   }
                   m.nonce = random_hex16();
                   const auto now = deps_.now_ms();
                   m.issued_at = domain::events::format_rfc3339_millis_utc(now);
                   m.expiration_time =
                       domain::events::format_rfc3339_millis_utc(now + kNonceTtlSeconds * 1000LL);
                   std::optional<std::string> message;
                   if (auto a = call.request.query_param("address")) {
                       auto address = domain::evm::parse_address(*a);
                       if (!address)
                           return bad_request(address.error().code, address.error().message);
                       m.address = *address;
                       message = siwe::format(m);
                   }
                   store.put_nonce(m.nonce, kNonceTtlSeconds);
                   rapidjson::StringBuffer b;
                   Writer w(b);
                   w.StartObject();
                   str(w, "nonce", m.nonce);
                   str(w, "domain", m.domain);
                   str(w, "uri", m.uri);
                   str(w, "version", m.version);
                   w.Key("chainId");
                   w.Uint64(m.chain_id.value);
                   str(w, "statement", *m.statement);
                   str(w, "issuedAt", m.issued_at);
                   str(w, "expirationTime", *m.expiration_time);
                   domain::json::opt_str(w, "message", message);
                   w.EndObject();
                   return success_response(200, text_of(b));
               });
    routes.add(
        "POST", "/auth/siwe", RouteOptions{Auth::none, false, true},
        [this, &store, &sessions](const RouteCall& call) {
            // Sign-in CSRF: only our own pages may open a session.
            if (!sessions.same_origin(call.request)) {
                return error_response(403, "cross_site_request",
                                      "sign in from the dashboard's own page");
            }
            rapidjson::Document body;
            if (auto r = parse_account_body(call.request.body, body)) return std::move(*r);
            if (auto r = reject_unknown_members(body, {"message", "signature"})) return *r;
            if (!body.HasMember("message") || !body["message"].IsString() ||
                !body.HasMember("signature") || !body["signature"].IsString()) {
                return bad_request("invalid_request", "message and signature are required strings");
            }
            const std::string text = body["message"].GetString();
            auto message = siwe::parse(text);
            if (!message) {
                return bad_request(message.error().code, message.error().message);
            }
            if (!message->expiration_time) {
                return bad_request("siwe_expiration_required",
                                   "the message must carry an Expiration Time");
            }
            siwe::Expectations expected;
            expected.origin = sessions.settings().origin;
            expected.domain = authority_of(expected.origin);
            expected.chain_ids = deps_.chain_ids;
            expected.nonce = message->nonce;  // ours or not: the store decides below
            if (auto broken = siwe::check(*message, expected, deps_.now_ms())) {
                return error_response(401, broken->code, broken->message);
            }
            auto signature = domain::evm::parse_signature(body["signature"].GetString());
            if (!signature) {
                return bad_request("invalid_signature", signature.error().message);
            }
            auto signer = deps_.recover(siwe::signing_hash(*message), *signature);
            if (!signer || *signer != message->address) {
                return error_response(401, "siwe_invalid_signature",
                                      "the signature is not the message's address's");
            }
            switch (store.take_nonce(message->nonce)) {
                case ports::NonceTake::taken:
                    break;
                case ports::NonceTake::unknown:
                    return error_response(401, "siwe_nonce_unknown",
                                          "this dashboard did not issue the message's nonce");
                case ports::NonceTake::used:
                    return error_response(401, "siwe_nonce_used",
                                          "the message's nonce was already used: sign in "
                                          "again");
                case ports::NonceTake::expired:
                    return error_response(401, "siwe_nonce_expired",
                                          "the message's nonce has expired: sign in again");
            }
            const auto address = domain::evm::to_checksum(message->address);
            rapidjson::StringBuffer b;
            Writer w(b);
            w.StartObject();
            str(w, "address", address);
            str(w, "redirect", "/projects");
            w.EndObject();
            auto r = success_response(200, text_of(b));
            r.headers["set-cookie"] = sessions.open(address);
            return r;
        });
    routes.add("POST", "/sign-out", form, [&store, &sessions](const RouteCall& call) {
        store.end_session(call.session().session_id);
        auto r = redirect("/sign-in");
        r.headers["set-cookie"] = sessions.clear_cookie();
        return r;
    });
    routes.add("POST", "/sign-out-everywhere", form, [&store, &sessions](const RouteCall& call) {
        store.end_sessions_of(call.session().address);
        auto r = redirect("/sign-in");
        r.headers["set-cookie"] = sessions.clear_cookie();
        return r;
    });

    // ---- Projects ----
    auto chrome = [this](const RouteCall& call) { return scope_.chrome(call); };
    routes.add("GET", "/projects", page, [&store, chrome](const RouteCall& call) {
        const auto c = chrome(call);
        return html(200, projects_page(c, store.projects_of(c.address), std::nullopt), c.lang);
    });
    routes.add("POST", "/projects", form, [&store, chrome](const RouteCall& call) {
        auto c = chrome(call);
        c.path = "/projects";
        auto name = acc::check_project_name(field(form_of(call.request), "name").value_or(""));
        if (!name) {
            return html(400, projects_page(c, store.projects_of(c.address), name.error().message),
                        c.lang);
        }
        auto created = store.create_project(*name, {c.address, call.session().session_id});
        return redirect("/p/" + created.project_id.value);
    });

    // Every /p/:projectId route goes through the scope's guard (project_scope.hpp).
    using Context = ProjectContext;
    auto in_project = [this](acc::ProjectAction action, std::string section,
                             ProjectHandler handler) {
        return scope_.guard(action, std::move(section), std::move(handler));
    };
    using A = acc::ProjectAction;

    // ---- Webhooks (webhooks_routes.hpp) ----
    if (deps_.webhooks != nullptr) {
        add_webhook_routes(routes, scope_,
                           {deps_.webhooks, deps_.webhook_allow_insecure, deps_.now_ms});
    }

    // The overview (overview_pages.hpp): the stats read model over the last 30 or 90 days.
    routes.add(
        "GET", "/p/:projectId", RouteOptions{Auth::session, true},
        in_project(A::read, "overview", [this, &store](const RouteCall& call, Context& ctx) {
            auto p = store.find_project(ctx.project);
            if (!p)
                return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                            ctx.chrome.lang);
            const auto days = parse_overview_days(call.request.query_param("days"));
            if (!days || call.request.unknown_query_param({"days"})) {
                return html(400, message_page(ctx.chrome, "invalid_period", "invalid_period_body"),
                            ctx.chrome.lang);
            }
            Overview o;
            o.days = *days;
            std::tie(o.first_day, o.last_day) = overview_period(deps_.now_ms(), *days);
            o.stats = deps_.stats->read({ctx.project, ctx.chrome.mode, o.first_day, o.last_day});
            // The keys only matter to the first steps, shown while the mode has no charge.
            const bool first_steps = !has_charges(o.stats);
            return html(200,
                        project_home(ctx.chrome, *p,
                                     first_steps ? store.keys(ctx.project)
                                                 : std::vector<ports::KeySummary>{},
                                     deps_.api_url, overview_section(ctx.chrome, o), first_steps),
                        ctx.chrome.lang);
        }));

    // ---- Keys ----
    auto keys_of_mode = [&store](const Context& ctx) {
        auto all = store.keys(ctx.project);
        std::vector<ports::KeySummary> out;
        for (auto& k : all) {
            if (k.mode == ctx.chrome.mode) out.push_back(std::move(k));
        }
        return out;
    };
    auto keys_view = [keys_of_mode](const Context& ctx) {
        KeysPage p;
        p.keys = keys_of_mode(ctx);
        p.can_manage = acc::allowed(ctx.role, A::manage_keys);
        return p;
    };
    routes.add("GET", "/p/:projectId/keys", page,
               in_project(A::read, "keys", [keys_view](const RouteCall&, Context& ctx) {
                   return html(200, keys_page(ctx.chrome, keys_view(ctx)), ctx.chrome.lang);
               }));
    routes.add("POST", "/p/:projectId/keys", form,
               in_project(A::manage_keys, "keys",
                          [&store, keys_view](const RouteCall& call, Context& ctx) {
                              const auto mode = field(form_of(call.request), "mode").value_or("");
                              if (mode != "test" && mode != "live") {
                                  auto p = keys_view(ctx);
                                  p.error = "mode must be test or live";
                                  return html(400, keys_page(ctx.chrome, p), ctx.chrome.lang);
                              }
                              ctx.chrome.mode = mode == "live" ? Mode::live : Mode::test;
                              auto created =
                                  store.create_key(ctx.project, ctx.chrome.mode, ctx.actor);
                              auto p = keys_view(ctx);
                              p.created = std::move(created);
                              ctx.chrome.path = "/p/" + ctx.project.value + "/keys";
                              return html(201, keys_page(ctx.chrome, p), ctx.chrome.lang);
                          }));
    routes.add("POST", "/p/:projectId/keys/:keyId/reveal", form,
               in_project(A::manage_keys, "keys",
                          [&store, keys_view](const RouteCall& call, Context& ctx) {
                              ctx.chrome.path = "/p/" + ctx.project.value + "/keys";
                              auto secret =
                                  store.reveal_test_key(ctx.project, call.params[1], ctx.actor);
                              auto p = keys_view(ctx);
                              if (!secret) {
                                  p.error = "no active test key " + call.params[1] +
                                            " in this project can be shown (a live key never is)";
                                  return html(404, keys_page(ctx.chrome, p), ctx.chrome.lang);
                              }
                              p.revealed.emplace(call.params[1], std::move(*secret));
                              return html(200, keys_page(ctx.chrome, p), ctx.chrome.lang);
                          }));
    routes.add("POST", "/p/:projectId/keys/:keyId/revoke", form,
               in_project(A::manage_keys, "keys",
                          [&store, keys_view](const RouteCall& call, Context& ctx) {
                              if (!store.revoke_key(ctx.project, call.params[1], ctx.actor)) {
                                  auto p = keys_view(ctx);
                                  p.error = "no active key " + call.params[1] + " in this project";
                                  return html(404, keys_page(ctx.chrome, p), ctx.chrome.lang);
                              }
                              return redirect("/p/" + ctx.project.value + "/keys");
                          }));
    routes.add(
        "POST", "/p/:projectId/keys/:keyId/roll", form,
        in_project(A::manage_keys, "keys",
                   [&store, keys_view](const RouteCall& call, Context& ctx) {
                       ctx.chrome.path = "/p/" + ctx.project.value + "/keys";
                       const auto text =
                           field(form_of(call.request), "expires_in_seconds").value_or("3600");
                       long long overlap = -1;
                       if (!text.empty() && text.size() <= 7 &&
                           std::all_of(text.begin(), text.end(),
                                       [](unsigned char ch) { return std::isdigit(ch) != 0; })) {
                           overlap = std::stoll(text);
                       }
                       if (overlap < 0 || overlap > kMaxKeyOverlap) {
                           auto p = keys_view(ctx);
                           p.error = "the old key's overlap must be 0 to 604800 seconds";
                           return html(400, keys_page(ctx.chrome, p), ctx.chrome.lang);
                       }
                       auto rolled = store.roll_key(ctx.project, call.params[1],
                                                    static_cast<int>(overlap), ctx.actor);
                       auto p = keys_view(ctx);
                       if (!rolled) {
                           p.error = "no active key " + call.params[1] + " in this project to roll";
                           return html(404, keys_page(ctx.chrome, p), ctx.chrome.lang);
                       }
                       ports::CreatedKey created;
                       created.key.id = rolled->key_id;
                       created.key.mode = rolled->mode;
                       created.key.prefix = rolled->prefix;
                       created.key.created_at = rolled->created_at;
                       created.secret = rolled->secret;
                       p.created = std::move(created);
                       return html(201, keys_page(ctx.chrome, p), ctx.chrome.lang);
                   }));

    // ---- Team ----
    routes.add("GET", "/p/:projectId/members", page,
               in_project(A::read, "members", [&store](const RouteCall&, Context& ctx) {
                   return html(
                       200,
                       members_page(ctx.chrome, store.members(ctx.project),
                                    acc::allowed(ctx.role, A::manage_members), std::nullopt),
                       ctx.chrome.lang);
               }));
    routes.add(
        "POST", "/p/:projectId/members", form,
        in_project(A::manage_members, "members", [&store](const RouteCall& call, Context& ctx) {
            const auto f = form_of(call.request);
            auto refuse = [&](const std::string& why) {
                ctx.chrome.path = "/p/" + ctx.project.value + "/members";
                return html(400, members_page(ctx.chrome, store.members(ctx.project), true, why),
                            ctx.chrome.lang);
            };
            auto address = domain::evm::parse_address(field(f, "address").value_or(""));
            if (!address) return refuse(address.error().message);
            auto role = acc::parse_role(field(f, "role").value_or(""));
            if (!role || !acc::assignable(*role)) {
                return refuse("role must be admin, developer or viewer");
            }
            auto put =
                store.put_member(ctx.project, domain::evm::to_checksum(*address), *role, ctx.actor);
            if (!put) return refuse(put.error().message);
            return redirect("/p/" + ctx.project.value + "/members");
        }));
    routes.add(
        "POST", "/p/:projectId/members/:address/remove", form,
        in_project(A::manage_members, "members", [&store](const RouteCall& call, Context& ctx) {
            auto address = domain::evm::parse_address(call.params[1]);
            if (!address ||
                !store.remove_member(ctx.project, domain::evm::to_checksum(*address), ctx.actor)) {
                ctx.chrome.path = "/p/" + ctx.project.value + "/members";
                return html(404,
                            members_page(ctx.chrome, store.members(ctx.project), true,
                                         "no such member (the owner cannot be removed)"),
                            ctx.chrome.lang);
            }
            return redirect("/p/" + ctx.project.value + "/members");
        }));

    // ---- Payout wallet ----
    routes.add("GET", "/p/:projectId/wallet", page,
               in_project(A::read, "wallet", [&store](const RouteCall&, Context& ctx) {
                   auto p = store.find_project(ctx.project);
                   if (!p)
                       return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                                   ctx.chrome.lang);
                   return html(
                       200, wallet_page(ctx.chrome, *p, acc::allowed(ctx.role, A::change_payout)),
                       ctx.chrome.lang);
               }));
    routes.add(
        "POST", "/p/:projectId/wallet/challenge", json,
        in_project(A::change_payout, "wallet", [&store](const RouteCall& call, Context& ctx) {
            rapidjson::Document body;
            if (auto r = parse_account_body(call.request.body, body)) return std::move(*r);
            return wallet_challenge_response(body, [&](const std::string& a, int ttl) {
                return store.issue_wallet_challenge(ctx.project, a, ttl);
            });
        }));
    routes.add(
        "POST", "/p/:projectId/wallet/verify", json,
        in_project(A::change_payout, "wallet", [&store](const RouteCall& call, Context& ctx) {
            rapidjson::Document body;
            if (auto r = parse_account_body(call.request.body, body)) return std::move(*r);
            return wallet_verify_response(body, ctx.project,
                                          [&](const ports::WalletProofRequest& v) {
                                              return store.verify_wallet(v, ctx.actor);
                                          });
        }));

    // ---- Settings ----
    routes.add("GET", "/p/:projectId/settings", page,
               in_project(A::read, "settings", [&store](const RouteCall&, Context& ctx) {
                   auto p = store.find_project(ctx.project);
                   if (!p)
                       return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                                   ctx.chrome.lang);
                   return html(
                       200,
                       settings_page(ctx.chrome, *p, acc::allowed(ctx.role, A::manage_settings),
                                     std::nullopt, false),
                       ctx.chrome.lang);
               }));
    routes.add(
        "POST", "/p/:projectId/settings", form,
        in_project(A::manage_settings, "settings", [&store](const RouteCall& call, Context& ctx) {
            const auto f = form_of(call.request);
            ctx.chrome.path = "/p/" + ctx.project.value + "/settings";
            ports::ProjectUpdate u;
            std::optional<std::string> error;
            if (auto v = field(f, "name")) {
                auto name = acc::check_project_name(*v);
                if (name)
                    u.name = *name;
                else
                    error = name.error().message;
            }
            if (auto v = field(f, "logo_url")) {
                // An empty field clears the logo.
                auto url = v->empty() ? domain::Result<std::string>(std::string())
                                      : acc::check_logo_url(*v, false);
                if (url)
                    u.logo_url = *url;
                else
                    error = url.error().message;
            }
            if (auto v = field(f, "accent_color")) {
                auto color = v->empty() ? domain::Result<std::string>(std::string())
                                        : acc::check_accent_color(*v);
                if (color)
                    u.accent_color = *color;
                else
                    error = color.error().message;
            }
            if (auto v = field(f, "payment_window_seconds")) {
                long long seconds = 0;
                if (!v->empty() && v->size() <= 7 &&
                    std::all_of(v->begin(), v->end(),
                                [](unsigned char ch) { return std::isdigit(ch) != 0; })) {
                    seconds = std::stoll(*v);
                }
                auto window = acc::check_payment_window(seconds);
                if (window)
                    u.payment_window_seconds = *window;
                else
                    error = window.error().message;
            }
            auto current = store.find_project(ctx.project);
            if (!current)
                return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                            ctx.chrome.lang);
            if (error)
                return html(400, settings_page(ctx.chrome, *current, true, error, false),
                            ctx.chrome.lang);
            auto after = store.update_project(ctx.project, u, ctx.actor);
            if (!after)
                return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                            ctx.chrome.lang);
            if (u.name && ctx.chrome.project) ctx.chrome.project->name = after->name;
            return html(200, settings_page(ctx.chrome, *after, true, std::nullopt, true),
                        ctx.chrome.lang);
        }));

    // ---- Charges ----
    // The list takes the REST list's parameters and rules (api/http/charge_list): same filters,
    // same order, same keyset cursor; a refused filter shows the REST message above the table.
    routes.add(
        "GET", "/p/:projectId/charges", RouteOptions{Auth::session, true},
        in_project(A::read, "charges", [this](const RouteCall& call, Context& ctx) {
            ChargesPage view;
            view.filters = call.request.query_params();
            KeyOwner owner;
            owner.project_id = ctx.project;
            owner.mode = ctx.chrome.mode;
            ApiRequest query = call.request;
            // An empty field of the filter form means "any". The form's metadata pair
            // (metadataKey, metadataValue) is the REST list's metadata[<key>]=<value>.
            query.query.clear();
            auto add = [&query](const std::string& k, const std::string& v) {
                if (!query.query.empty()) query.query += '&';
                query.query += form_encode(k) + "=" + form_encode(v);
            };
            std::string meta_key;
            std::string meta_value;
            for (const auto& [k, v] : view.filters) {
                if (k == "metadataKey") {
                    meta_key = v;
                } else if (k == "metadataValue") {
                    meta_value = v;
                } else if (!v.empty()) {
                    add(k, v);
                }
            }
            if (!meta_key.empty() || !meta_value.empty())
                add("metadata[" + meta_key + "]", meta_value);
            auto parsed = parse_list_query(query, owner);
            if (!parsed) {
                view.error = parsed.error().message;
                return html(400, charges_page(ctx.chrome, view), ctx.chrome.lang);
            }
            auto q = std::move(parsed).value();
            const auto size = q.limit;
            q.limit = size + 1;
            if (deps_.live != nullptr) view.live_since_ms = deps_.now_ms();
            view.charges = deps_.charges->list(q);
            if (view.charges.size() > size) {
                view.charges.resize(size);
                const auto& last = view.charges.back();
                view.next_cursor = encode_list_cursor({last.created_us, last.charge.invoice_id});
            }
            return html(200, charges_page(ctx.chrome, view), ctx.chrome.lang);
        }));
    if (deps_.live != nullptr) {
        routes.add_async(
            "GET", "/p/:projectId/charges/live", RouteOptions{Auth::session, true},
            [this](const RouteCall& call, Responder respond) {
                ProjectContext ctx;
                if (auto refused = scope_.admit(call, A::read, "charges", ctx)) {
                    return respond(std::move(*refused));
                }
                if (auto unknown = call.request.unknown_query_param({"since"})) {
                    return respond(
                        bad_request("unknown_field", "unknown query parameter " + *unknown));
                }
                const auto since = LiveCharges::since_of(call.request);
                if (!since) {
                    return respond(bad_request(
                        "invalid_since",
                        "since (or Last-Event-ID) must be a time in milliseconds since the epoch"));
                }
                deps_.live->wait(ctx.project, ctx.chrome.mode, *since, std::move(respond));
            });
    }
    routes.add("GET", "/p/:projectId/charges/find", RouteOptions{Auth::session, true},
               in_project(A::read, "charges", [](const RouteCall& call, Context& ctx) {
                   auto id = call.request.query_param("invoiceId").value_or("");
                   std::transform(id.begin(), id.end(), id.begin(), [](unsigned char ch) {
                       return static_cast<char>(std::tolower(ch));
                   });
                   // Only an invoice id goes into the redirect: 0x + 64 hex digits.
                   const bool invoice = id.size() == 66 && id.rfind("0x", 0) == 0 &&
                                        std::all_of(id.begin() + 2, id.end(), [](unsigned char ch) {
                                            return std::isxdigit(ch) != 0;
                                        });
                   if (!invoice) {
                       return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                                   ctx.chrome.lang);
                   }
                   return redirect("/p/" + ctx.project.value + "/charges/" + id);
               }));
    // The charge page; `money` carries what a refund form's post left to say.
    auto charge_answer = [this](ProjectContext& ctx, const std::string& id, int status,
                                ChargeMoney money) {
        auto charge = deps_.charge_reader->find(id);
        // Another project's charge, or the other mode's, reads as no charge at all.
        if (!charge || charge->project_id != ctx.project || charge->mode != ctx.chrome.mode) {
            return html(404, message_page(ctx.chrome, "not_found", "not_found_body"),
                        ctx.chrome.lang);
        }
        std::vector<domain::events::Event> events;
        std::vector<ChargeTimelineEntry> timeline;
        for (const auto& text : deps_.history->events(id)) {
            auto event = domain::events::decode_event(text);
            if (!event) continue;  // the projector quarantined what it could not read
            std::string detail;    // a resolution's note and who wrote it (ADR 0230)
            if (const auto* r = std::get_if<domain::events::ExceptionResolved>(&event->data))
                detail = r->note + " — " + domain::charge::actor_display(r->resolved_by);
            timeline.push_back(
                {event->occurred_at, std::string(domain::events::event_type(*event)), detail});
            events.push_back(*event);
        }
        const auto state = domain::charge::fold(events);
        money.payments = state.payments;
        money.refunds = state.refunds;
        if (auto it = deps_.explorers.find(charge->chain_id.value); it != deps_.explorers.end())
            money.explorer_url = it->second;
        // decide's own test (a refund request of nothing refundable is refused), and the role.
        money.refund_form = domain::charge::refundable(state).value > 0 &&
                            acc::allowed(ctx.role, A::manage_charges);
        ctx.chrome.path = "/p/" + ctx.project.value + "/charges/" + id;
        return html(status,
                    charge_page(ctx.chrome, *charge, timeline, money,
                                webhook_deliveries_section(deps_.webhooks, ctx, id)),
                    ctx.chrome.lang);
    };
    routes.add("GET", "/p/:projectId/charges/:invoiceId", RouteOptions{Auth::session, true},
               in_project(A::read, "charges", [charge_answer](const RouteCall& call, Context& ctx) {
                   // `refund`: the notice's parameter before the flash; an old link still opens
                   // the page, without the notice.
                   if (auto unknown = call.request.unknown_query_param({"refund"})) {
                       return bad_request("unknown_field", "unknown query parameter " + *unknown);
                   }
                   const auto& id = call.params[1];
                   ChargeMoney money;
                   // Back from recording a refund of this charge (below): say so, once.
                   const std::string recorded = refund_flash(id);
                   const std::array<std::string_view, 1> known{recorded};
                   if (flash_of(call.request, known))
                       money.notice = std::string(tr(ctx.chrome.lang, "refund_notice"));
                   return flash_shown(call.request, "/p/" + ctx.project.value,
                                      charge_answer(ctx, id, 200, std::move(money)));
               }));
    // The charge page's record-a-refund form: the exceptions page's handler; taken, back to the
    // charge page with the notice; refused, the charge page with decide's words.
    const ChargeCommandDeps commands{deps_.charge_reader, deps_.history, deps_.log, deps_.now_ms,
                                     1000};
    routes.add("POST", "/p/:projectId/charges/:invoiceId/refund",
               RouteOptions{Auth::session, false, false, true},
               in_project(A::manage_charges, "charges",
                          [commands, charge_answer](const RouteCall& call, Context& ctx) {
                              const auto& id = call.params[1];
                              return record_refund_form(
                                  commands, call, ctx,
                                  [&](ProjectContext& c, const FormOutcome& o) {
                                      if (o.taken) {
                                          const auto project = "/p/" + c.project.value;
                                          return redirect_with_flash(project + "/charges/" + id,
                                                                     project, refund_flash(id));
                                      }
                                      ChargeMoney money;
                                      money.error = o.message;
                                      return charge_answer(c, id, o.status, std::move(money));
                                  });
                          }));

    // ---- Reports (report_routes.cpp) ----
    add_report_routes(routes, ReportRouteDeps{deps_.reports, deps_.now_ms}, scope_);
    // ---- Exceptions (ADR 0230) ----
    add_exceptions_routes(routes, scope_, {deps_.charges, commands});

    // ---- Audit ----
    routes.add("GET", "/p/:projectId/audit", page,
               in_project(A::read, "audit", [&store](const RouteCall&, Context& ctx) {
                   return html(200, audit_page(ctx.chrome, store.audit(ctx.project, kAuditRows)),
                               ctx.chrome.lang);
               }));
}

}  // namespace duepay::api::dashboard
