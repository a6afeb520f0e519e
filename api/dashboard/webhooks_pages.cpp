#include "api/dashboard/webhooks_pages.hpp"

#include <algorithm>

#include "api/dashboard/page_kit.hpp"
#include "domain/text.hpp"
#include "domain/webhooks/delivery_log.hpp"
#include "domain/webhooks/webhook_event.hpp"

namespace duepay::api::dashboard {
namespace {

namespace dw = domain::webhooks;

std::string e(std::string_view s) { return domain::escape_html(s); }

std::string base_of(const Chrome& c) {
    return "/p/" + (c.project ? c.project->project_id.value : std::string()) + "/webhooks";
}

std::string flash_block(Lang L, const std::optional<std::string>& flash) {
    if (!flash) return {};
    return R"(<p class="notice" role="status" data-test="flash">)" + e(tr(L, *flash)) + "</p>";
}

std::string secret_block(Lang L, std::string_view lead_key, const std::string& secret) {
    return R"(<div class="notice" role="status"><p>)" + e(tr(L, lead_key)) +
           R"(</p><p><code id="new-secret" data-test="new-secret">)" + e(secret) + "</code> " +
           copy_button(L, "new-secret") + "</p></div>";
}

dw::EndpointHealth health_of(const EndpointRow& row) {
    return dw::endpoint_health({row.endpoint.status == "enabled",
                                row.endpoint.disabled_reason.value_or("") == "failing",
                                row.endpoint.failing_since.has_value(), row.counts});
}

// "Healthy · 97.5 % of 40 attempts"
std::string health_text(Lang L, const EndpointRow& row) {
    const auto h = health_of(row);
    std::string out = "<span class=\"health health-" + std::string(dw::to_string(h)) +
                      R"(" data-test="health" data-health=")" + std::string(dw::to_string(h)) +
                      "\">" + e(tr(L, "wh_health_" + std::string(dw::to_string(h)))) + "</span>";
    const auto rate = dw::success_rate_text(row.counts);
    if (!rate.empty()) {
        out += " · <span data-test=\"success-rate\">" + e(rate) + "</span> " + e(tr(L, "wh_of")) +
               " " + std::to_string(row.counts.attempts) + " " + e(tr(L, "wh_attempts_24h"));
    }
    return out;
}

// The event checkboxes of the create and edit forms; `checked`: the types ticked.
std::string events_fieldset(Lang L, std::string_view id_prefix,
                            const std::vector<std::string>& checked) {
    Html h;
    h << "<fieldset class=\"events\"><legend>" << e(tr(L, "wh_events")) << "</legend>";
    for (const auto type : dw::kWebhookEventTypes) {
        const bool on =
            checked.empty() || std::find(checked.begin(), checked.end(), type) != checked.end();
        std::string id = std::string(id_prefix) + "-" + std::string(type);
        std::replace(id.begin(), id.end(), '.', '-');
        h << "<label for=\"" << e(id) << R"("><input type="checkbox" id=")" << e(id)
          << R"(" name="events" value=")" << e(type) << "\"" << (on ? " checked" : "") << "> <code>"
          << e(type) << "</code></label> ";
    }
    h << "</fieldset>";
    return h.out;
}

std::string status_cell(Lang L, const ports::WebhookEndpoint& ep) {
    return "<span data-test=\"endpoint-status\">" +
           e(tr(L, ep.status == "enabled" ? "wh_enabled" : "wh_disabled")) + "</span>";
}

std::string post_button(const Chrome& c, const std::string& action, std::string_view test,
                        std::string_view label, bool danger = false, std::string_view hidden = {}) {
    return R"(<form method="post" action=")" + e(action) + R"(" class="inline">)" + csrf_field(c) +
           std::string(hidden) + "<button type=\"submit\"" + (danger ? " class=\"danger\"" : "") +
           " data-test=\"" + std::string(test) + "\">" + e(label) + "</button></form>";
}

}  // namespace

std::string webhooks_page(const Chrome& c, const WebhooksPage& page) {
    const Lang lang = c.lang;
    const auto base = base_of(c);
    Html h;
    h << "<h1>" << e(tr(lang, "webhooks")) << "</h1>" << flash_block(lang, page.flash)
      << error_block(page.error);
    if (page.created) {
        h << secret_block(lang, "wh_new_secret_once", page.created->secret);
        h << R"(<p><a data-test="created-endpoint" href=")" << e(base + "/" + page.created->id)
          << "\">" << e(page.created->url) << "</a></p>";
    }
    h << "<p>" << e(tr(lang, "wh_lead")) << "</p>";
    if (page.endpoints.empty()) {
        h << "<p data-test=\"no-endpoints\">" << e(tr(lang, "wh_no_endpoints")) << "</p>";
    } else {
        h << table_open(tr(lang, "webhooks"), "webhook-endpoints")
          << "<thead><tr><th scope=\"col\">" << e(tr(lang, "wh_url")) << "</th><th scope=\"col\">"
          << e(tr(lang, "wh_events")) << "</th><th scope=\"col\">" << e(tr(lang, "status"))
          << "</th><th scope=\"col\">" << e(tr(lang, "wh_health")) << "</th></tr></thead><tbody>";
        for (const auto& row : page.endpoints) {
            const auto& ep = row.endpoint;
            h << "<tr data-endpoint-id=\"" << e(ep.id) << R"("><td><a data-test="endpoint-link" )"
              << "href=\"" << e(base + "/" + ep.id) << "\"><code>" << e(ep.url) << "</code></a>";
            if (ep.description) h << "<br><small>" << e(*ep.description) << "</small>";
            h << "</td><td>";
            for (const auto& t : ep.events) h << "<code>" << e(t) << "</code> ";
            h << "</td><td>" << status_cell(lang, ep) << "</td><td>" << health_text(lang, row)
              << "</td></tr>";
        }
        h << kTableClose;
    }
    if (page.can_manage) {
        h << "<h2>" << e(tr(lang, "wh_create")) << R"(</h2><form method="post" action=")" << e(base)
          << R"(" class="stack">)" << csrf_field(c) << "<label for=\"wh-url\">"
          << e(tr(lang, "wh_url")) << R"(</label><input id="wh-url" name="url" required )"
          << R"(maxlength="2048" autocomplete="off" placeholder="https://example.com/hooks" )"
          << "value=\"" << e(page.form_url) << R"(" data-test="webhook-url">)"
          << events_fieldset(lang, "new", page.form_events) << "<label for=\"wh-description\">"
          << e(tr(lang, "wh_description")) << "</label><input id=\"wh-description\" "
          << R"(name="description" maxlength="255" autocomplete="off" value=")"
          << e(page.form_description) << R"(" data-test="webhook-description">)"
          << R"(<button type="submit" data-test="create-webhook">)" << e(tr(lang, "wh_create"))
          << "</button></form>";
    }
    return layout(c, tr(lang, "webhooks"), h.out);
}

std::string endpoint_page(const Chrome& c, const EndpointPage& page) {
    const Lang lang = c.lang;
    const auto& ep = page.row.endpoint;
    const auto base = base_of(c);
    const auto self = base + "/" + ep.id;
    Html h;
    h << "<p><a href=\"" << e(base) << "\">← " << e(tr(lang, "wh_back")) << "</a></p>";
    h << "<h1>" << e(tr(lang, "wh_endpoint")) << "</h1>" << flash_block(lang, page.flash)
      << error_block(page.error);
    if (page.new_secret) h << secret_block(lang, "wh_rotated_secret_once", *page.new_secret);
    if (ep.disabled_reason.value_or("") == "failing") {
        h << R"(<div class="notice warn" role="status" data-test="auto-disabled"><p>)"
          << e(tr(lang, "wh_auto_disabled")) << "</p>";
        if (page.can_manage) {
            h << post_button(c, self + "/enable", "reenable-endpoint", tr(lang, "wh_reenable"));
        }
        h << "</div>";
    }
    h << R"(<dl class="facts" data-test="endpoint"><dt>)" << e(tr(lang, "wh_url"))
      << "</dt><dd><code data-test=\"endpoint-url\">" << e(ep.url) << "</code></dd><dt>"
      << e(tr(lang, "status")) << "</dt><dd>" << status_cell(lang, ep) << "</dd><dt>"
      << e(tr(lang, "wh_health")) << "</dt><dd>" << health_text(lang, page.row) << "</dd>";
    if (ep.failing_since) {
        h << "<dt>" << e(tr(lang, "wh_failing_since")) << "</dt><dd data-test=\"failing-since\">"
          << e(*ep.failing_since) << "</dd>";
    }
    h << "<dt>" << e(tr(lang, "wh_events")) << "</dt><dd>";
    for (const auto& t : ep.events) h << "<code>" << e(t) << "</code> ";
    h << "</dd>";
    if (ep.description) {
        h << "<dt>" << e(tr(lang, "wh_description")) << "</dt><dd>" << e(*ep.description)
          << "</dd>";
    }
    if (ep.previous_secret_expires_at) {
        h << "<dt>" << e(tr(lang, "wh_previous_secret_until")) << "</dt><dd>"
          << e(*ep.previous_secret_expires_at) << "</dd>";
    }
    h << "<dt>" << e(tr(lang, "created")) << "</dt><dd>" << e(ep.created_at) << "</dd></dl>";

    if (page.can_manage) {
        h << "<div class=\"actions\">"
          << post_button(c, self + "/test", "send-test", tr(lang, "wh_send_test"));
        if (ep.status == "enabled") {
            h << post_button(c, self + "/disable", "disable-endpoint", tr(lang, "wh_disable"));
        } else if (ep.disabled_reason.value_or("") != "failing") {  // else: the notice's button
            h << post_button(c, self + "/enable", "enable-endpoint", tr(lang, "wh_enable"));
        }
        h << R"(<a class="button danger" data-test="delete-endpoint" href=")" << e(self + "/delete")
          << "\">" << e(tr(lang, "wh_delete")) << "</a></div>";
        h << R"(<form method="post" action=")" << e(self) << R"(/rotate" class="inline">)"
          << csrf_field(c) << "<label>" << e(tr(lang, "wh_rotate_overlap"))
          << " <input name=\"expires_in_seconds\" type=\"number\" min=\"0\" max=\"604800\" "
             "value=\"86400\" size=\"7\"></label> <button type=\"submit\" "
             "data-test=\"rotate-secret\">"
          << e(tr(lang, "wh_rotate")) << "</button></form>";
    }

    h << "<h2 id=\"log\">" << e(tr(lang, "wh_delivery_log")) << "</h2>";
    if (page.attempts.empty()) {
        h << "<p data-test=\"no-attempts\">" << e(tr(lang, "wh_no_attempts")) << "</p>";
    } else {
        h << table_open(tr(lang, "wh_delivery_log"), "delivery-log")
          << "<thead><tr><th scope=\"col\">" << e(tr(lang, "wh_time")) << "</th><th scope=\"col\">"
          << e(tr(lang, "wh_event")) << "</th><th scope=\"col\">" << e(tr(lang, "wh_attempt"))
          << "</th><th scope=\"col\">" << e(tr(lang, "wh_http_status")) << "</th><th scope=\"col\">"
          << e(tr(lang, "wh_latency")) << "</th><th scope=\"col\">" << e(tr(lang, "wh_response"))
          << "</th>";
        if (page.can_manage) h << "<th scope=\"col\">" << e(tr(lang, "actions")) << "</th>";
        h << "</tr></thead><tbody>";
        for (const auto& a : page.attempts) {
            const bool ok =
                a.response_status && *a.response_status >= 200 && *a.response_status < 300;
            h << "<tr data-attempt-id=\"" << std::to_string(a.id) << "\" data-event-id=\""
              << e(a.event_id) << "\"><td>" << e(a.attempted_at) << "</td><td><code>"
              << e(a.event_type) << "</code><br><small><code>" << e(a.event_id)
              << "</code></small></td><td>" << std::to_string(a.attempt)
              << R"(</td><td data-test="attempt-status" class=")" << (ok ? "ok" : "failed") << "\">"
              << (a.response_status ? std::to_string(*a.response_status) : e(a.error.value_or("")))
              << "</td><td data-test=\"attempt-latency\">" << std::to_string(a.latency_ms)
              << R"( ms</td><td><code class="excerpt" data-test="attempt-body">)"
              << e(a.response_excerpt.value_or("")) << "</code></td>";
            if (page.can_manage) {
                h << "<td>"
                  << post_button(
                         c, self + "/redeliver", "redeliver", tr(lang, "wh_redeliver"), false,
                         R"(<input type="hidden" name="event_id" value=")" + e(a.event_id) + "\">")
                  << "</td>";
            }
            h << "</tr>";
        }
        h << kTableClose;
    }
    if (page.next_before) {
        h << R"(<p><a rel="next" data-test="next-page" href=")" << e(self)
          << "?before=" << std::to_string(*page.next_before) << "#log\">"
          << e(tr(lang, "next_page")) << "</a></p>";
    }

    if (page.can_manage) {
        h << "<h2>" << e(tr(lang, "wh_edit")) << R"(</h2><form method="post" action=")" << e(self)
          << R"(" class="stack">)" << csrf_field(c) << "<label for=\"ep-url\">"
          << e(tr(lang, "wh_url")) << R"(</label><input id="ep-url" name="url" required )"
          << R"(maxlength="2048" value=")" << e(ep.url) << R"(" data-test="edit-url">)"
          << events_fieldset(lang, "edit", ep.events) << "<label for=\"ep-description\">"
          << e(tr(lang, "wh_description")) << "</label><input id=\"ep-description\" "
          << R"(name="description" maxlength="255" value=")" << e(ep.description.value_or(""))
          << R"(" data-test="edit-description">)"
          << R"(<button type="submit" data-test="save-endpoint">)" << e(tr(lang, "save"))
          << "</button></form>";
    }
    return layout(c, tr(lang, "wh_endpoint"), h.out);
}

std::string delete_endpoint_page(const Chrome& c, const ports::WebhookEndpoint& ep) {
    const Lang lang = c.lang;
    const auto self = base_of(c) + "/" + ep.id;
    Html h;
    h << "<h1>" << e(tr(lang, "wh_delete_title")) << "</h1><p><code>" << e(ep.url)
      << "</code></p><p>" << e(tr(lang, "wh_delete_body")) << "</p>"
      << post_button(c, self + "/delete", "confirm-delete", tr(lang, "wh_delete"), true)
      << " <a href=\"" << e(self) << "\">" << e(tr(lang, "wh_cancel")) << "</a>";
    return layout(c, tr(lang, "wh_delete_title"), h.out);
}

std::string charge_webhooks_section(const Chrome& c,
                                    const std::vector<ports::ChargeDelivery>& deliveries) {
    const Lang lang = c.lang;
    const auto base = base_of(c);
    Html h;
    h << "<section data-test=\"charge-webhooks\" aria-labelledby=\"charge-webhooks\"><h2 "
         "id=\"charge-webhooks\">"
      << e(tr(lang, "wh_charge_deliveries")) << "</h2>";
    if (deliveries.empty()) {
        h << "<p data-test=\"no-deliveries\">" << e(tr(lang, "wh_no_charge_deliveries")) << "</p>";
    } else {
        h << table_open(tr(lang, "wh_charge_deliveries"), "charge-deliveries")
          << "<thead><tr><th scope=\"col\">" << e(tr(lang, "wh_endpoint"))
          << "</th><th scope=\"col\">" << e(tr(lang, "wh_event")) << "</th><th scope=\"col\">"
          << e(tr(lang, "wh_state")) << "</th><th scope=\"col\">" << e(tr(lang, "wh_attempts"))
          << "</th><th scope=\"col\">" << e(tr(lang, "wh_last_status"))
          << "</th></tr></thead><tbody>";
        for (const auto& d : deliveries) {
            h << "<tr data-endpoint-id=\"" << e(d.endpoint_id) << "\" data-event-id=\""
              << e(d.event_id) << R"("><td><a data-test="endpoint-log" href=")"
              << e(base + "/" + d.endpoint_id) << "#log\"><code>" << e(d.endpoint_url)
              << "</code></a></td><td><code>" << e(d.event_type) << "</code></td><td "
              << "data-test=\"delivery-state\">" << e(tr(lang, "wh_state_" + d.state))
              << "</td><td>" << std::to_string(d.attempts) << "</td><td>"
              << (d.last_status ? std::to_string(*d.last_status) : e(d.last_error.value_or("")))
              << "</td></tr>";
        }
        h << kTableClose;
    }
    h << "</section>";
    return h.out;
}

}  // namespace duepay::api::dashboard
