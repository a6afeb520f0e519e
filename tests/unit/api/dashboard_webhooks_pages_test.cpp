// The dashboard's webhooks pages (api/dashboard/webhooks_pages.hpp) rendered in both languages
// and every state: each word is in the table (tr throws otherwise), what a receiver or a merchant
// wrote is escaped, a secret is shown only when given, the manage controls follow the role.
#include <gtest/gtest.h>

#include <string>

#include "api/dashboard/webhooks_pages.hpp"

namespace duepay::api::dashboard {
namespace {

Chrome chrome(Lang lang) {
    Chrome c;
    c.lang = lang;
    c.csrf = "c0ffee";
    c.address = "0x00000000000000000000000000000000000000A1";
    c.path = "/p/prj_1/webhooks";
    c.project = ports::ProjectMembership{ports::ProjectId{"prj_1"}, "Shop <1>",
                                         ports::MemberRole::developer, "2026-01-01T00:00:00Z"};
    c.section = "webhooks";
    return c;
}

ports::WebhookEndpoint endpoint(std::string status, std::optional<std::string> reason) {
    ports::WebhookEndpoint e;
    e.id = "we_0123456789abcdef01234567";
    e.project_id = ports::ProjectId{"prj_1"};
    e.url = "https://example.com/hooks?a=<x>";
    e.events = {"invoice.paid", "webhook.test"};
    e.description = "orders <svc>";
    e.status = std::move(status);
    e.disabled_reason = std::move(reason);
    if (e.disabled_reason) e.failing_since = "2026-01-01T00:00:00.000Z";
    e.previous_secret_expires_at = "2026-01-02T00:00:00.000Z";
    e.secret = "whsec_secret";
    e.created_at = "2026-01-01T00:00:00.000Z";
    return e;
}

ports::WebhookAttempt attempt(std::optional<int> status, std::optional<std::string> error) {
    ports::WebhookAttempt a;
    a.id = 7;
    a.event_id = "evt_" + std::string(48, 'a');
    a.event_type = "invoice.paid";
    a.attempt = 2;
    a.attempted_at = "2026-01-01T00:00:01.000Z";
    a.response_status = status;
    a.latency_ms = 42;
    a.error = std::move(error);
    if (status) a.response_excerpt = "<script>alert(1)</script>";
    return a;
}

TEST(DashboardWebhooksPages, ListInBothLanguagesEscapedSecretOnlyWhenGiven) {
    for (auto lang : {Lang::en, Lang::th}) {
        WebhooksPage p;
        p.endpoints = {{endpoint("enabled", std::nullopt), {40, 39}},
                       {endpoint("disabled", "failing"), {3, 0}},
                       {endpoint("disabled", "manual"), {0, 0}}};
        p.can_manage = true;
        p.flash = "wh_flash_deleted";
        const auto page = webhooks_page(chrome(lang), p);
        EXPECT_NE(page.find("97.5 %"), std::string::npos);
        EXPECT_NE(page.find("data-health=\"disabled_failing\""), std::string::npos);
        EXPECT_NE(page.find("https://example.com/hooks?a=&lt;x&gt;"), std::string::npos);
        EXPECT_EQ(page.find("<x>"), std::string::npos);
        EXPECT_NE(page.find("data-test=\"create-webhook\""), std::string::npos);
        EXPECT_EQ(page.find("whsec_secret"), std::string::npos);
        EXPECT_NE(page.find("data-test=\"flash\""), std::string::npos);
        p.created = endpoint("enabled", std::nullopt);
        EXPECT_NE(webhooks_page(chrome(lang), p).find("whsec_secret"), std::string::npos);
    }
    WebhooksPage empty;
    const auto page = webhooks_page(chrome(Lang::en), empty);
    EXPECT_NE(page.find("data-test=\"no-endpoints\""), std::string::npos);
    EXPECT_EQ(page.find("data-test=\"create-webhook\""), std::string::npos);  // a viewer
}

TEST(DashboardWebhooksPages, EndpointWithItsLogEscapesTheResponse) {
    for (auto lang : {Lang::en, Lang::th}) {
        EndpointPage p;
        p.row = {endpoint("disabled", "failing"), {4, 1}};
        p.attempts = {attempt(500, "HTTP 500"), attempt(std::nullopt, "Connection refused")};
        p.next_before = 7;
        p.can_manage = true;
        p.new_secret = "whsec_new";
        const auto page = endpoint_page(chrome(lang), p);
        EXPECT_NE(page.find("&lt;script&gt;alert(1)&lt;/script&gt;"), std::string::npos);
        EXPECT_EQ(page.find("<script>alert"), std::string::npos);
        EXPECT_NE(page.find("Connection refused"), std::string::npos);
        EXPECT_NE(page.find("42 ms"), std::string::npos);
        EXPECT_NE(page.find("data-test=\"reenable-endpoint\""), std::string::npos);
        EXPECT_NE(page.find("data-test=\"redeliver\""), std::string::npos);
        EXPECT_NE(page.find("?before=7"), std::string::npos);
        EXPECT_NE(page.find("whsec_new"), std::string::npos);
        EXPECT_EQ(page.find("whsec_secret"), std::string::npos);
        EXPECT_NE(page.find("25 %"), std::string::npos);
        p.can_manage = false;
        p.new_secret.reset();
        const auto viewer = endpoint_page(chrome(lang), p);
        for (const char* control : {"redeliver", "reenable-endpoint", "rotate-secret", "send-test",
                                    "delete-endpoint", "save-endpoint"}) {
            EXPECT_EQ(viewer.find(std::string("data-test=\"") + control + "\""), std::string::npos)
                << control;
        }
        EXPECT_NE(delete_endpoint_page(chrome(lang), p.row.endpoint).find("confirm-delete"),
                  std::string::npos);
    }
}

TEST(DashboardWebhooksPages, ChargeSectionLinksEachDeliveryToItsLog) {
    for (auto lang : {Lang::en, Lang::th}) {
        std::vector<ports::ChargeDelivery> deliveries(3);
        const char* states[] = {"pending", "delivered", "failed"};
        for (int i = 0; i < 3; ++i) {
            deliveries[i].endpoint_id = "we_0123456789abcdef01234567";
            deliveries[i].endpoint_url = "https://example.com/<h>";
            deliveries[i].event_id = "evt_1";
            deliveries[i].event_type = "invoice.paid";
            deliveries[i].state = states[i];
            deliveries[i].attempts = i;
        }
        deliveries[1].last_status = 200;
        deliveries[2].last_error = "HTTP 500";
        const auto html = charge_webhooks_section(chrome(lang), deliveries);
        EXPECT_NE(html.find("href=\"/p/prj_1/webhooks/we_0123456789abcdef01234567#log\""),
                  std::string::npos);
        EXPECT_NE(html.find("https://example.com/&lt;h&gt;"), std::string::npos);
        EXPECT_NE(html.find("HTTP 500"), std::string::npos);
        EXPECT_NE(charge_webhooks_section(chrome(lang), {}).find("no-deliveries"),
                  std::string::npos);
    }
}

}  // namespace
}  // namespace duepay::api::dashboard
