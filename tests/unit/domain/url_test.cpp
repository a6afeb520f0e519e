// domain/url: parsing (returnUrl) and redaction (RPC URLs in logs).
#include "domain/url.hpp"

#include <gtest/gtest.h>

namespace duepay::domain {
namespace {

TEST(ParseHttpUrl, AcceptsPlainHttpsUrls) {
    auto u = parse_http_url("https://shop.example.com/thanks?order=42#top");
    ASSERT_TRUE(u) << u.error().message;
    EXPECT_EQ(u->scheme, "https");
    EXPECT_EQ(u->host, "shop.example.com");
    EXPECT_FALSE(u->port);
    EXPECT_EQ(u->rest, "/thanks?order=42#top");
    EXPECT_FALSE(u->loopback_host());

    auto p = parse_http_url("http://127.0.0.1:8080");
    ASSERT_TRUE(p);
    EXPECT_EQ(p->port, 8080);
    EXPECT_TRUE(p->loopback_host());
    EXPECT_TRUE(parse_http_url("http://localhost/x")->loopback_host());
    EXPECT_TRUE(parse_http_url("http://[::1]:3000/")->loopback_host());
    EXPECT_TRUE(parse_http_url("http://127.8.9.10/")->loopback_host());
}

TEST(ParseHttpUrl, LookalikeHostsAreNotLoopback) {
    auto a = parse_http_url("http://localhost.evil.example/");
    ASSERT_TRUE(a);
    EXPECT_EQ(a->host, "localhost.evil.example");
    EXPECT_FALSE(a->loopback_host());
    auto b = parse_http_url("http://127.0.0.1.evil.example");
    ASSERT_TRUE(b);
    EXPECT_FALSE(b->loopback_host());
}

TEST(ParseHttpUrl, RefusesUserinfoAndUnsafeCharacters) {
    for (const char* text : {
             "http://127.0.0.1@evil.example",
             "https://user:pw@shop.example/",
             "https://shop.example\\@evil.example",
             "https://shop.example/a b",
             "https://shop.example/\"x",
             "https://shop.example/<script>",
             "https://shop.example/\x01",
             "https://sh\xc3\xa9p.example/",
             "https://shop%2eexample/",
             "https://",
             "https://:443/",
             "https://shop.example:0/",
             "https://shop.example:65536/",
             "https://shop.example:12ab/",
             "https://-shop.example/",
             "https://shop..example/",
             "https://999.1.1.1/",
             "https://[::2]/",
             "javascript://shop.example/%0aalert(1)",
             "HTTPS://shop.example/",
             "ftp://shop.example/",
             "shop.example/path",
             "//shop.example/",
         }) {
        auto u = parse_http_url(text);
        EXPECT_FALSE(u) << text;
        if (!u) {
            EXPECT_EQ(u.error().code, "invalid_url") << text;
        }
    }
}

TEST(CheckReturnUrl, LiveKeysGetHttpsOnlyTestKeysAlsoLoopbackHttp) {
    EXPECT_TRUE(check_return_url("https://shop.example/thanks", true));
    EXPECT_TRUE(check_return_url("https://shop.example/thanks", false));
    EXPECT_FALSE(check_return_url("http://localhost:3000/thanks", true));
    EXPECT_FALSE(check_return_url("http://127.0.0.1/thanks", true));
    EXPECT_TRUE(check_return_url("http://localhost:3000/thanks", false));
    EXPECT_TRUE(check_return_url("http://127.0.0.1/thanks", false));
    EXPECT_TRUE(check_return_url("http://[::1]/thanks", false));
    for (bool live : {false, true}) {
        for (const char* text : {"http://localhost.evil.example", "http://127.0.0.1@evil.example",
                                 "http://127.0.0.1.evil.example/", "https://a@shop.example/",
                                 "http://shop.example/", "https:/shop.example", ""}) {
            auto r = check_return_url(text, live);
            EXPECT_FALSE(r) << text << " live=" << live;
            if (!r) {
                EXPECT_EQ(r.error().code, "invalid_return_url");
            }
        }
    }
    EXPECT_FALSE(check_return_url("https://shop.example/" + std::string(2048, 'a'), false));
}

TEST(RedactUrl, KeepsOnlySchemeHostAndPort) {
    EXPECT_EQ(redact_url("https://polygon-mainnet.example.io/v3/0123456789abcdef"),
              "https://polygon-mainnet.example.io");
    EXPECT_EQ(redact_url("https://user:secret@rpc.example:8545/key?apikey=zz"),
              "https://rpc.example:8545");
    EXPECT_EQ(redact_url("http://127.0.0.1:18545"), "http://127.0.0.1:18545");
    EXPECT_EQ(redact_url("wss://rpc.example/ws/KEY"), "wss://rpc.example");
    EXPECT_EQ(redact_url("not a url with KEY"), "<redacted url>");
    EXPECT_EQ(redact_url("https://rpc.exa mple/KEY"), "<redacted url>");
}

TEST(ExplorerTxUrl, LinksOnlyWhereTheChainHasAnExplorer) {
    EXPECT_EQ(explorer_tx_url("https://amoy.polygonscan.com", "0xbeef"),
              "https://amoy.polygonscan.com/tx/0xbeef");
    EXPECT_EQ(explorer_tx_url("", "0xbeef"), std::nullopt);  // a dev chain
    EXPECT_EQ(explorer_tx_url("https://polygonscan.com", ""), std::nullopt);
}

}  // namespace
}  // namespace duepay::domain
