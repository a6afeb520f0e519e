// domain/accounts/project_settings: the field rules of PATCH /v1/project and `duepay admin
// project`.
#include "domain/accounts/project_settings.hpp"

#include <gtest/gtest.h>

#include <string>

namespace duepay::domain::accounts {
namespace {

TEST(ProjectName, OneTo120CodePointsOfPlainText) {
    EXPECT_EQ(*check_project_name("Acme Coffee"), "Acme Coffee");
    EXPECT_TRUE(check_project_name(std::string(120, 'a')));
    // 120 code points of two bytes each: counted in characters, not bytes.
    std::string thai;
    for (int i = 0; i < 40; ++i) thai += "\xe0\xb8\x81";  // U+0E01, three bytes
    EXPECT_TRUE(check_project_name(thai + std::string(80, 'x')));
    for (const std::string& bad :
         {std::string(), std::string(121, 'a'), std::string("tab\there"), std::string("nl\n"),
          std::string("nul\0x", 5), std::string("\xff\xfe"), std::string("del\x7f")}) {
        auto r = check_project_name(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_name");
    }
}

TEST(LogoUrl, HttpsOnlyOnTheApiHttpAlsoForTheAdmin) {
    EXPECT_TRUE(check_logo_url("https://cdn.example/logo.png", false));
    EXPECT_FALSE(check_logo_url("http://cdn.example/logo.png", false));
    EXPECT_TRUE(check_logo_url("http://cdn.example/logo.png", true));
    for (const std::string& bad :
         {std::string("javascript:alert(1)"), std::string("https://user@cdn.example/x"),
          std::string("https://cdn.example/a b"), std::string("https://"),
          std::string("https://cdn.example/\"onload=x"),
          "https://cdn.example/" + std::string(481, 'a')}) {
        auto r = check_logo_url(bad, true);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_logo_url");
    }
    EXPECT_TRUE(check_logo_url("https://cdn.example/" + std::string(480, 'a'), false));
}

TEST(AccentColor, HashAndSixHexDigits) {
    EXPECT_EQ(*check_accent_color("#0A7b5C"), "#0A7b5C");
    for (const char* bad : {"", "red", "#fff", "#12345g", "0A7B5C0", "#0A7B5C0", " #0A7B5C"}) {
        auto r = check_accent_color(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_accent_color");
    }
}

TEST(PaymentWindow, OneSecondToOneDay) {
    EXPECT_EQ(*check_payment_window(1), 1);
    EXPECT_EQ(*check_payment_window(86400), 86400);
    for (long long bad : {0LL, -1LL, 86401LL, 1LL << 40}) {
        auto r = check_payment_window(bad);
        ASSERT_FALSE(r) << bad;
        EXPECT_EQ(r.error().code, "invalid_payment_window");
    }
}

}  // namespace
}  // namespace duepay::domain::accounts
