#include "domain/webhooks/endpoint_url.hpp"

#include <arpa/inet.h>
#include <gtest/gtest.h>

namespace dw = duepay::domain::webhooks;
using AC = dw::AddressClass;

namespace {
AC v6(const char* text) {
    std::array<std::uint8_t, 16> a{};
    EXPECT_EQ(::inet_pton(AF_INET6, text, a.data()), 1) << text;
    return dw::classify_ipv6(a);
}

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

// Each IPv6 form that carries an IPv4 address, with 127.0.0.1, 10.0.0.1 and 169.254.169.254 in it.
TEST(AddressClass, NatAndTunnelForms) {
    struct Case {
        const char* address;
        AC want;
    };
    for (const auto& c : std::initializer_list<Case>{
             // IPv4-mapped ::ffff:0:0/96
             {"::ffff:127.0.0.1", AC::loopback},
             {"::ffff:10.0.0.1", AC::private_network},
             {"::ffff:169.254.169.254", AC::link_local},
             {"::ffff:8.8.8.8", AC::global},
             // IPv4-translated ::ffff:0:0:0/96
             {"::ffff:0:7f00:1", AC::loopback},
             {"::ffff:0:a00:1", AC::private_network},
             {"::ffff:0:a9fe:a9fe", AC::link_local},
             {"::ffff:0:808:808", AC::global},
             // IPv4-compatible ::/96
             {"::7f00:1", AC::loopback},
             {"::a00:1", AC::private_network},
             {"::a9fe:a9fe", AC::link_local},
             // NAT64 64:ff9b::/96
             {"64:ff9b::7f00:1", AC::loopback},
             {"64:ff9b::a00:1", AC::private_network},
             {"64:ff9b::a9fe:a9fe", AC::link_local},
             {"64:ff9b::808:808", AC::global},
             // Local-use NAT64 64:ff9b:1::/48: the IPv4 address at the /48 place (bytes 6, 7, 9,
             // 10), never global even when what it carries is.
             {"64:ff9b:1:7f00:0:100::", AC::loopback},
             {"64:ff9b:1:a00:0:100::", AC::private_network},
             {"64:ff9b:1:a9fe:a9:fe00::", AC::link_local},
             {"64:ff9b:1::a00:1", AC::unspecified},  // a /96 layout: 0.0.0.0 at the /48 place
             {"64:ff9b:1::808:808", AC::unspecified},
             {"64:ff9b:1:808:8:800::", AC::private_network},  // 8.8.8.8: still not global
             {"64:ff9b:1:808:8:800:a00:1", AC::private_network},
             // 6to4 2002::/16, the IPv4 address in bytes 2-5
             {"2002:7f00:1::", AC::loopback},
             {"2002:a00:1::", AC::private_network},
             {"2002:a9fe:a9fe::1", AC::link_local},
             {"2002:808:808::1", AC::global},
             // Teredo 2001::/32: server in bytes 4-7, client XOR 0xff in bytes 12-15
             {"2001:0:808:808::80ff:fffe", AC::loopback},         // client 127.0.0.1
             {"2001:0:808:808::f5ff:fffe", AC::private_network},  // client 10.0.0.1
             {"2001:0:a00:1::f7f7:f7f7", AC::private_network},    // server 10.0.0.1
             {"2001:0:808:808::5601:5601", AC::link_local},       // client 169.254.169.254
             {"2001:0:808:808::f7f7:f7f7", AC::reserved},         // both global: still refused
         }) {
        EXPECT_EQ(v6(c.address), c.want) << c.address;
    }
}

TEST(AddressClass, SpecialPurposeBlocks) {
    EXPECT_EQ(dw::classify_ipv4({192, 0, 2, 1}), AC::reserved);
    EXPECT_EQ(dw::classify_ipv4({198, 51, 100, 1}), AC::reserved);
    EXPECT_EQ(dw::classify_ipv4({203, 0, 113, 1}), AC::reserved);
    EXPECT_EQ(dw::classify_ipv4({192, 88, 99, 1}), AC::reserved);
    EXPECT_EQ(dw::classify_ipv4({192, 0, 3, 1}), AC::global);
    EXPECT_EQ(dw::classify_ipv4({203, 0, 114, 1}), AC::global);
    for (const char* reserved :
         {"100::1", "100:0:0:1::1", "5f00::1", "3fff::1", "3fff:fff:ffff::1", "2001:db8::1",
          "2001:2::1", "2001:10::1", "2001:1::1", "2001:20::1", "2001:1ff::1", "4000::1",
          "64:ff9b:2::1", "::1:0:0:0:1"}) {
        EXPECT_EQ(v6(reserved), AC::reserved) << reserved;
    }
    for (const char* global : {"2001:200::1", "3fff:1000::1", "2a00:1450::1", "2620:4f:8001::1"}) {
        EXPECT_EQ(v6(global), AC::global) << global;
    }
}

TEST(AddressClass, MayConnect) {
    EXPECT_TRUE(dw::may_connect(AC::global, false));
    EXPECT_FALSE(dw::may_connect(AC::loopback, false));
    EXPECT_TRUE(dw::may_connect(AC::loopback, true));
    EXPECT_FALSE(dw::may_connect(AC::private_network, true));
    EXPECT_FALSE(dw::may_connect(AC::link_local, true));
}
