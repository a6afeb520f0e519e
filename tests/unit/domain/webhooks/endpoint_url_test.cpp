#include "domain/webhooks/endpoint_url.hpp"

#include <gtest/gtest.h>

namespace dw = duepay::domain::webhooks;
using AC = dw::AddressClass;

namespace {
std::string code(std::string_view url, bool insecure = false) {
    auto r = dw::parse_endpoint_url(url, insecure);
    return r.ok() ? "ok" : r.error().code;
}
}  // namespace

TEST(EndpointUrl, HttpsOnlyUnlessInsecure) {
    EXPECT_EQ(code("https://shop.example.com/hooks?x=1"), "ok");
    EXPECT_EQ(code("http://shop.example.com/hooks"), "webhook_url_not_https");
    EXPECT_EQ(code("http://127.0.0.1:3000/hooks", true), "ok");
    EXPECT_EQ(code("ftp://shop.example.com/", true), "webhook_url_not_https");
}

TEST(EndpointUrl, Rejections) {
    EXPECT_EQ(code("https://u:p@shop.example.com/"), "webhook_url_credentials");
    EXPECT_EQ(code("https://u@shop.example.com/"), "webhook_url_credentials");
    EXPECT_EQ(code("https://shop.example.com/" + std::string(2030, 'a')), "webhook_url_too_long");
    for (const char* bad :
         {"shop.example.com", "https://", "https:///x", "https://shop .example.com/",
          "https://shop.example.com:0/", "https://shop.example.com:99999/",
          "https://shop.example.com:/", "https://[::1/", "https://shop.example.com/#frag",
          "https://a..b/", "https://shöp.example/"}) {
        EXPECT_EQ(code(bad), "invalid_webhook_url") << bad;
    }
}

TEST(EndpointUrl, HostAndPort) {
    auto u = dw::parse_endpoint_url("https://Shop.Example.COM:8443/x", false);
    ASSERT_TRUE(u.ok());
    EXPECT_EQ(u->host, "shop.example.com");
    EXPECT_EQ(u->port, 8443);
    auto v6 = dw::parse_endpoint_url("https://[2606:4700::1]/x", false);
    ASSERT_TRUE(v6.ok());
    EXPECT_EQ(v6->host, "2606:4700::1");
    EXPECT_EQ(v6->port, 443);
}

TEST(AddressClass, Ipv4) {
    EXPECT_EQ(dw::classify_ipv4({8, 8, 8, 8}), AC::global);
    EXPECT_EQ(dw::classify_ipv4({127, 0, 0, 1}), AC::loopback);
    EXPECT_EQ(dw::classify_ipv4({10, 1, 2, 3}), AC::private_network);
    EXPECT_EQ(dw::classify_ipv4({172, 16, 0, 1}), AC::private_network);
    EXPECT_EQ(dw::classify_ipv4({172, 31, 255, 1}), AC::private_network);
    EXPECT_EQ(dw::classify_ipv4({172, 32, 0, 1}), AC::global);
    EXPECT_EQ(dw::classify_ipv4({192, 168, 1, 1}), AC::private_network);
    EXPECT_EQ(dw::classify_ipv4({100, 64, 0, 1}), AC::private_network);
    EXPECT_EQ(dw::classify_ipv4({169, 254, 169, 254}), AC::link_local);
    EXPECT_EQ(dw::classify_ipv4({224, 0, 0, 1}), AC::multicast);
    EXPECT_EQ(dw::classify_ipv4({0, 0, 0, 0}), AC::unspecified);
    EXPECT_EQ(dw::classify_ipv4({255, 255, 255, 255}), AC::reserved);
}

TEST(AddressClass, Ipv6) {
    std::array<std::uint8_t, 16> a{};
    EXPECT_EQ(dw::classify_ipv6(a), AC::unspecified);
    a[15] = 1;
    EXPECT_EQ(dw::classify_ipv6(a), AC::loopback);
    std::array<std::uint8_t, 16> mapped{0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff, 10, 0, 0, 1};
    EXPECT_EQ(dw::classify_ipv6(mapped), AC::private_network);
    std::array<std::uint8_t, 16> nat64{0, 0x64, 0xff, 0x9b, 0,   0,   0,   0,
                                       0, 0,    0,    0,    169, 254, 169, 254};
    EXPECT_EQ(dw::classify_ipv6(nat64), AC::link_local);
    std::array<std::uint8_t, 16> ula{0xfd, 0x00, 0x0e, 0xc2};
    EXPECT_EQ(dw::classify_ipv6(ula), AC::private_network);
    std::array<std::uint8_t, 16> ll{0xfe, 0x80};
    EXPECT_EQ(dw::classify_ipv6(ll), AC::link_local);
    std::array<std::uint8_t, 16> mc{0xff, 0x02};
    EXPECT_EQ(dw::classify_ipv6(mc), AC::multicast);
    std::array<std::uint8_t, 16> global{0x26, 0x06, 0x47, 0x00};
    EXPECT_EQ(dw::classify_ipv6(global), AC::global);
}

TEST(AddressClass, MayConnect) {
    EXPECT_TRUE(dw::may_connect(AC::global, false));
    EXPECT_FALSE(dw::may_connect(AC::loopback, false));
    EXPECT_TRUE(dw::may_connect(AC::loopback, true));
    EXPECT_FALSE(dw::may_connect(AC::private_network, true));
    EXPECT_FALSE(dw::may_connect(AC::link_local, true));
}
