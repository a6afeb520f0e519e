#include "api/dashboard/webhooks_routes.hpp"

#include <algorithm>
#include <array>
#include <chrono>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "api/dashboard/webhooks_pages.hpp"
#include "api/http/envelope.hpp"
#include "domain/events/event.hpp"
#include "domain/text.hpp"
#include "domain/webhooks/endpoint_fields.hpp"
#include "domain/webhooks/webhook_event.hpp"
#include "infra/webhooks/endpoints.hpp"
#include "infra/webhooks/signing.hpp"

namespace duepay::api::dashboard {
namespace {

namespace dw = domain::webhooks;
using A = domain::accounts::ProjectAction;

// The only texts a flash may name (the cookie is the browser's: never shown as it is).
constexpr std::array<std::string_view, 6> kFlashes = {"wh_flash_saved",     "wh_flash_disabled",
                                                      "wh_flash_enabled",   "wh_flash_deleted",
                                                      "wh_flash_test_sent", "wh_flash_redelivered"};
constexpr std::size_t kEndpointsShown = 100;
constexpr std::size_t kLogPage = 25;
constexpr std::size_t kChargeDeliveries = 50;

std::string base_of(const ProjectContext& ctx) { return "/p/" + ctx.project.value + "/webhooks"; }

ApiResponse not_found(const ProjectContext& ctx) {
    return html(404, message_page(ctx.chrome, "not_found", "not_found_body"), ctx.chrome.lang);
}

// 303 to `location` with a flash for the next page under /p/:id/webhooks.
ApiResponse redirect_with_flash(const ProjectContext& ctx, const std::string& location,
                                std::string_view flash) {
    return dashboard::redirect_with_flash(location, base_of(ctx), flash);
}

// The form's fields, repeated ones (the event checkboxes) included.
using Fields = std::vector<std::pair<std::string, std::string>>;
std::optional<std::string> one(const Fields& f, std::string_view name) {
    for (const auto& [k, v] : f)
        if (k == name) return v;
    return std::nullopt;
}
std::vector<std::string_view> all(const Fields& f, std::string_view name) {
    std::vector<std::string_view> out;
    for (const auto& [k, v] : f)
        if (k == name) out.emplace_back(v);
    return out;
}

struct CheckedFields {
    ports::WebhookEndpointPatch patch;  // url, events and description as given
    std::optional<std::string> error;   // the first refusal, worded as the REST route's
};

// The create and edit forms under the REST routes' rules.
CheckedFields check_fields(const Fields& f, const WebhookPagesDeps& deps, ports::Mode mode) {
    CheckedFields out;
    // What a JSON body of the REST routes is checked for before its fields: storable text.
    for (const auto& [name, value] : f) {
        if (!domain::is_storable_text(value)) {
            out.error = "the form's fields must be UTF-8 text without NUL";
            return out;
        }
    }
    const auto url = one(f, "url").value_or("");
    if (auto refused = infra::webhooks::check_endpoint_url(url, deps.allow_insecure, mode)) {
        out.error = refused->message;
        return out;
    }
    out.patch.url = url;
    auto events = dw::check_event_types(all(f, "events"));
    if (!events) {
        out.error = events.error().message;
        return out;
    }
    out.patch.events = std::move(events).value();
    const auto text = one(f, "description").value_or("");
    auto description = dw::check_description(text);
    if (!description) {
        out.error = description.error().message;
        return out;
    }
    // An empty field clears the description.
    out.patch.description =
        text.empty() ? std::optional<std::string>() : std::optional<std::string>(*description);
    return out;
}

std::vector<EndpointRow> rows_of(ports::DashboardWebhooks& store,
                                 std::vector<ports::WebhookEndpoint> endpoints) {
    std::vector<std::string> ids;
    ids.reserve(endpoints.size());
    for (const auto& ep : endpoints) ids.push_back(ep.id);
    const auto counts = store.attempt_counts(ids);
    std::vector<EndpointRow> rows;
    rows.reserve(endpoints.size());
    for (auto& ep : endpoints) {
        EndpointRow row{std::move(ep), {}};
        for (const auto& [id, c] : counts)
            if (id == row.endpoint.id) row.counts = c;
        rows.push_back(std::move(row));
    }
    return rows;
}

WebhooksPage list_view(ports::DashboardWebhooks& store, const ProjectContext& ctx) {
    WebhooksPage p;
    p.endpoints = rows_of(store, store.endpoints(ctx.project, ctx.chrome.mode, kEndpointsShown));
    p.can_manage = domain::accounts::allowed(ctx.role, A::manage_webhooks);
    return p;
}

// The endpoint page with the log's first page (or the page before `before`); nullopt when the
// endpoint is not the project's in this mode.
std::optional<EndpointPage> endpoint_view(ports::DashboardWebhooks& store,
                                          const ProjectContext& ctx, const std::string& id,
                                          std::optional<std::int64_t> before = std::nullopt) {
    if (!infra::webhooks::is_endpoint_id(id)) return std::nullopt;
    // One read: the endpoint found once, its health and its log (two statements).
    auto log = store.endpoint_log(ctx.project, ctx.chrome.mode, id, kLogPage + 1, before);
    if (!log) return std::nullopt;
    EndpointPage p;
    p.row = EndpointRow{std::move(log->endpoint), log->counts};
    if (log->attempts.size() > kLogPage) {
        log->attempts.resize(kLogPage);
        p.next_before = log->attempts.back().id;
    }
    p.attempts = std::move(log->attempts);
    p.can_manage = domain::accounts::allowed(ctx.role, A::manage_webhooks);
    return p;
}

}  // namespace

void add_webhook_routes(RouteTable& routes, const ProjectScope& scope,
                        const WebhookPagesDeps& deps) {
    required(deps.store, "WebhookPagesDeps.store");
    if (!deps.now_ms) throw std::invalid_argument("WebhookPagesDeps.now_ms is required");
    auto& store = *deps.store;
    const RouteOptions page{Auth::session};
    const RouteOptions paged{Auth::session, true};
    const RouteOptions form{Auth::session, false, false, true};
    const std::string list = "/p/:projectId/webhooks";
    const std::string item = list + "/:endpointId";

    routes.add(
        "GET", list, page,
        scope.guard(A::read, "webhooks", [&store](const RouteCall& call, ProjectContext& ctx) {
            auto view = list_view(store, ctx);
            view.flash = flash_of(call.request, kFlashes);
            return flash_shown(call.request, base_of(ctx),
                               html(200, webhooks_page(ctx.chrome, view), ctx.chrome.lang));
        }));
    routes.add("POST", list, form,
               scope.guard(A::manage_webhooks, "webhooks",
                           [&store, deps](const RouteCall& call, ProjectContext& ctx) {
                               ctx.chrome.path = base_of(ctx);
                               const auto f = form_params(call.request.body);
                               auto checked = check_fields(f, deps, ctx.chrome.mode);
                               auto view = list_view(store, ctx);
                               if (checked.error) {
                                   view.error = checked.error;
                                   view.form_url = one(f, "url").value_or("");
                                   view.form_description = one(f, "description").value_or("");
                                   for (auto t : all(f, "events")) view.form_events.emplace_back(t);
                                   return html(400, webhooks_page(ctx.chrome, view),
                                               ctx.chrome.lang);
                               }
                               ports::WebhookEndpoint e;
                               e.id = infra::webhooks::new_endpoint_id();
                               e.project_id = ctx.project;
                               e.mode = ctx.chrome.mode;
                               e.url = *checked.patch.url;
                               e.events = *checked.patch.events;
                               e.description = *checked.patch.description;
                               e.secret = infra::webhooks::new_secret();
                               auto created = store.create(e, ctx.actor);
                               created.secret = e.secret;
                               view = list_view(store, ctx);
                               view.created = std::move(created);
                               return html(201, webhooks_page(ctx.chrome, view), ctx.chrome.lang);
                           }));

    routes.add(
        "GET", item, paged,
        scope.guard(A::read, "webhooks", [&store](const RouteCall& call, ProjectContext& ctx) {
            if (call.request.unknown_query_param({"before"})) return not_found(ctx);
            std::optional<std::int64_t> before;
            if (auto text = call.request.query_param("before")) {
                if (text->empty() || text->size() > 18 ||
                    text->find_first_not_of("0123456789") != std::string::npos) {
                    return not_found(ctx);
                }
                before = std::stoll(*text);
            }
            auto view = endpoint_view(store, ctx, call.params[1], before);
            if (!view) return not_found(ctx);
            view->flash = flash_of(call.request, kFlashes);
            return flash_shown(call.request, base_of(ctx),
                               html(200, endpoint_page(ctx.chrome, *view), ctx.chrome.lang));
        }));
    routes.add(
        "POST", item, form,
        scope.guard(
            A::manage_webhooks, "webhooks",
            [&store, deps](const RouteCall& call, ProjectContext& ctx) {
                const auto& id = call.params[1];
                ctx.chrome.path = base_of(ctx) + "/" + id;
                auto checked = check_fields(form_params(call.request.body), deps, ctx.chrome.mode);
                if (checked.error) {
                    auto view = endpoint_view(store, ctx, id);
                    if (!view) return not_found(ctx);
                    view->error = checked.error;
                    return html(400, endpoint_page(ctx.chrome, *view), ctx.chrome.lang);
                }
                if (!infra::webhooks::is_endpoint_id(id) ||
                    !store.update(ctx.project, ctx.chrome.mode, id, checked.patch, ctx.actor)) {
                    return not_found(ctx);
                }
                return redirect_with_flash(ctx, base_of(ctx) + "/" + id, "wh_flash_saved");
            }));

    // Disable and enable (enable is also the re-enable of an endpoint the dispatcher disabled
    // for failing: it clears the failure clock, as PATCH status=enabled does).
    for (const auto& [verb, status, flash] :
         {std::tuple{"disable", "disabled", "wh_flash_disabled"},
          std::tuple{"enable", "enabled", "wh_flash_enabled"}}) {
        routes.add(
            "POST", item + "/" + verb, form,
            scope.guard(A::manage_webhooks, "webhooks",
                        [&store, wanted = std::string(status), done = std::string(flash)](
                            const RouteCall& call, ProjectContext& ctx) {
                            const auto& id = call.params[1];
                            ports::WebhookEndpointPatch patch;
                            patch.status = wanted;
                            if (!infra::webhooks::is_endpoint_id(id) ||
                                !store.update(ctx.project, ctx.chrome.mode, id, patch, ctx.actor)) {
                                return not_found(ctx);
                            }
                            return redirect_with_flash(ctx, base_of(ctx) + "/" + id, done);
                        }));
    }

    routes.add("GET", item + "/delete", page,
               scope.guard(A::manage_webhooks, "webhooks",
                           [&store](const RouteCall& call, ProjectContext& ctx) {
                               const auto& id = call.params[1];
                               std::optional<ports::WebhookEndpoint> ep;
                               if (infra::webhooks::is_endpoint_id(id)) {
                                   ep = store.endpoint(ctx.project, ctx.chrome.mode, id);
                               }
                               if (!ep) return not_found(ctx);
                               return html(200, delete_endpoint_page(ctx.chrome, *ep),
                                           ctx.chrome.lang);
                           }));
    routes.add("POST", item + "/delete", form,
               scope.guard(A::manage_webhooks, "webhooks",
                           [&store](const RouteCall& call, ProjectContext& ctx) {
                               const auto& id = call.params[1];
                               if (!infra::webhooks::is_endpoint_id(id) ||
                                   !store.remove(ctx.project, ctx.chrome.mode, id, ctx.actor)) {
                                   return not_found(ctx);
                               }
                               return redirect_with_flash(ctx, base_of(ctx), "wh_flash_deleted");
                           }));

    routes.add(
        "POST", item + "/rotate", form,
        scope.guard(A::manage_webhooks, "webhooks",
                    [&store](const RouteCall& call, ProjectContext& ctx) {
                        const auto& id = call.params[1];
                        ctx.chrome.path = base_of(ctx) + "/" + id;
                        const auto text =
                            field(form_of(call.request), "expires_in_seconds").value_or("86400");
                        long long seconds = -1;
                        if (!text.empty() && text.size() <= 7 &&
                            text.find_first_not_of("0123456789") == std::string::npos) {
                            seconds = std::stoll(text);
                        }
                        auto overlap = dw::check_secret_overlap(seconds);
                        if (!overlap) {
                            auto view = endpoint_view(store, ctx, id);
                            if (!view) return not_found(ctx);
                            view->error = overlap.error().message;
                            return html(400, endpoint_page(ctx.chrome, *view), ctx.chrome.lang);
                        }
                        if (!infra::webhooks::is_endpoint_id(id)) return not_found(ctx);
                        const auto secret = infra::webhooks::new_secret();
                        if (!store.rotate_secret(ctx.project, ctx.chrome.mode, id, secret,
                                                 std::chrono::seconds(*overlap), ctx.actor)) {
                            return not_found(ctx);
                        }
                        auto view = endpoint_view(store, ctx, id);
                        if (!view) return not_found(ctx);
                        view->new_secret = secret;
                        return html(200, endpoint_page(ctx.chrome, *view), ctx.chrome.lang);
                    }));

    routes.add(
        "POST", item + "/test", form,
        scope.guard(
            A::manage_webhooks, "webhooks",
            [&store, deps](const RouteCall& call, ProjectContext& ctx) {
                const auto& id = call.params[1];
                if (!infra::webhooks::is_endpoint_id(id)) return not_found(ctx);
                const auto event = dw::test_event(
                    infra::webhooks::new_test_event_id(),
                    domain::events::format_rfc3339_millis_utc(deps.now_ms()), ctx.chrome.mode, id);
                if (!store.send_test(ctx.project, ctx.chrome.mode, id, event, ctx.actor)) {
                    return not_found(ctx);
                }
                return redirect_with_flash(ctx, base_of(ctx) + "/" + id, "wh_flash_test_sent");
            }));
    routes.add(
        "POST", item + "/redeliver", form,
        scope.guard(
            A::manage_webhooks, "webhooks", [&store](const RouteCall& call, ProjectContext& ctx) {
                const auto& id = call.params[1];
                const auto event_id = field(form_of(call.request), "event_id").value_or("");
                if (!infra::webhooks::is_endpoint_id(id) ||
                    !infra::webhooks::is_event_id(event_id) ||
                    !store.redeliver(ctx.project, ctx.chrome.mode, event_id, id, ctx.actor)) {
                    return not_found(ctx);
                }
                return redirect_with_flash(ctx, base_of(ctx) + "/" + id + "#log",
                                           "wh_flash_redelivered");
            }));
}

std::string webhook_deliveries_section(ports::DashboardWebhooks* store, const ProjectContext& ctx,
                                       const std::string& invoice_id) {
    if (store == nullptr) return {};
    return charge_webhooks_section(
        ctx.chrome,
        store->charge_deliveries(ctx.project, ctx.chrome.mode, invoice_id, kChargeDeliveries));
}

}  // namespace duepay::api::dashboard
