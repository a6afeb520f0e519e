#include "domain/webhooks/endpoint_fields.hpp"

#include <gtest/gtest.h>

#include <string>

namespace dw = duepay::domain::webhooks;

TEST(EndpointFields, EventTypes) {
    auto ok = dw::check_event_types({"invoice.paid", "webhook.test", "invoice.paid"});
    ASSERT_TRUE(ok.ok());
    EXPECT_EQ(*ok, (std::vector<std::string>{"invoice.paid", "webhook.test"}));
    EXPECT_EQ(dw::check_event_types({}).error().code, "invalid_webhook_events");
    EXPECT_EQ(dw::check_event_types({"invoice.pai"}).error().code, "invalid_webhook_events");
    EXPECT_EQ(dw::check_event_types({"invoice.paid", ""}).error().code, "invalid_webhook_events");
}

TEST(EndpointFields, Description) {
    EXPECT_EQ(*dw::check_description("orders"), "orders");
    EXPECT_TRUE(dw::check_description(std::string(255, 'd')).ok());
    EXPECT_EQ(dw::check_description(std::string(256, 'd')).error().code, "invalid_description");
    EXPECT_EQ(dw::check_description(std::string("a\0b", 3)).error().code, "invalid_description");
    EXPECT_EQ(dw::check_description("bad \xFF byte").error().code, "invalid_description");
    EXPECT_TRUE(dw::check_description("ร้าน").ok());
}

TEST(EndpointFields, SecretOverlap) {
    EXPECT_EQ(*dw::check_secret_overlap(0), 0);
    EXPECT_EQ(*dw::check_secret_overlap(604800), 604800);
    EXPECT_EQ(dw::check_secret_overlap(-1).error().code, "invalid_expires_in");
    EXPECT_EQ(dw::check_secret_overlap(604801).error().code, "invalid_expires_in");
}
