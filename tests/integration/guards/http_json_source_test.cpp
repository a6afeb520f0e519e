// HttpJsonRateSource against a real HTTP server on the loopback interface, started by this test.
// Why this is an integration test of the real adapter and not a test double: the adapter code is
// unchanged (libcurl, a TCP connection, HTTP/1.1 parsing of status and body, timeouts); only the
// far end is ours, a plain socket server that answers a bounded number of requests with bytes we
// choose and then stops. No external endpoint is reachable from CI, and a fixed answer is what
// lets the test check exactness ("35.123456789012345678901" would not survive a double).
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <mutex>
#include <optional>
#include <thread>
#include <vector>

#include "infra/rates/cached_rate_source.hpp"
#include "infra/rates/http_json_rate_source.hpp"

namespace duepay::tests::guards {
namespace {

using domain::money::FiatCurrency;
using infra::rates::RateUnavailable;

struct Reply {
    int status = 200;
    std::string body;
};

// Serves exactly `replies.size()` connections (one request each, Connection: close), then stops.
class LoopbackServer {
  public:
    explicit LoopbackServer(std::vector<Reply> replies) : replies_(std::move(replies)) {
        fd_ = ::socket(AF_INET, SOCK_STREAM, 0);
        sockaddr_in addr{};
        addr.sin_family = AF_INET;
        addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
        addr.sin_port = 0;
        if (::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
            ::listen(fd_, 8) != 0) {
            throw std::runtime_error("loopback server: bind/listen failed");
        }
        socklen_t len = sizeof addr;
        ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
        port_ = ntohs(addr.sin_port);
        thread_ = std::thread([this] { serve(); });
    }
    ~LoopbackServer() {
        ::shutdown(fd_, SHUT_RDWR);
        ::close(fd_);
        if (thread_.joinable()) thread_.join();
    }
    std::string base() const {
        return std::string("http://127.0.0.1:").append(std::to_string(port_));
    }
    std::vector<std::string> request_lines() {
        std::lock_guard lock(mutex_);
        return request_lines_;
    }

  private:
    void serve() {
        for (const auto& reply : replies_) {
            const int c = ::accept(fd_, nullptr, nullptr);
            if (c < 0) return;
            std::string request;
            char buf[4096];
            while (request.find("\r\n\r\n") == std::string::npos) {
                const auto n = ::recv(c, buf, sizeof buf, 0);
                if (n <= 0) break;
                request.append(buf, static_cast<std::size_t>(n));
            }
            {
                std::lock_guard lock(mutex_);
                request_lines_.push_back(request.substr(0, request.find("\r\n")));
            }
            // Built by append: g++ 12 gives a false -Wrestrict on chains of std::string operator+.
            std::string response;
            response.append("HTTP/1.1 ").append(std::to_string(reply.status));
            response.append(" X\r\nContent-Type: application/json\r\nContent-Length: ");
            response.append(std::to_string(reply.body.size()))
                .append("\r\nConnection: close\r\n\r\n");
            response.append(reply.body);
            (void)::send(c, response.data(), response.size(), MSG_NOSIGNAL);
            ::close(c);
        }
    }

    std::vector<Reply> replies_;
    int fd_ = -1;
    int port_ = 0;
    std::thread thread_;
    std::mutex mutex_;
    std::vector<std::string> request_lines_;
};

infra::rates::HttpJsonSettings settings(const LoopbackServer& server) {
    infra::rates::HttpJsonSettings s;
    s.name = "loopback";
    s.url = server.base().append("/v2/exchange-rates?currency={token}&chain={chain}");
    s.json_path = "data.rates.{fiat}";
    s.timeout = std::chrono::milliseconds(2000);
    return s;
}

TEST(HttpJsonSourceIt, ReadsTheRawNumberExactlyFromTheSubstitutedUrl) {
    LoopbackServer server(
        {{200,
          R"({"data":{"currency":"USDT","rates":{"THB":35.123456789012345678901,"USD":"1.0001"}}})"},
         {200, R"({"data":{"rates":{"USD":"1.0001"}}})"}});
    infra::rates::HttpJsonRateSource source(settings(server));
    auto thb = source.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
    EXPECT_EQ(domain::money::to_string(thb.fiat_per_token), "35.123456789012345678901");
    EXPECT_EQ(thb.source, "http:loopback");
    auto usd = source.quote(FiatCurrency::USD, "USDT", domain::ChainId{80002});
    EXPECT_EQ(domain::money::to_string(usd.fiat_per_token), "1.0001");
    const auto lines = server.request_lines();
    ASSERT_EQ(lines.size(), 2u);
    EXPECT_EQ(lines[0], "GET /v2/exchange-rates?currency=USDT&chain=80002 HTTP/1.1");
}

TEST(HttpJsonSourceIt, InvertedValuesAndExponentsAreExact) {
    LoopbackServer server({{200, R"({"data":{"rates":{"THB":2.5e-2}}})"}});
    auto s = settings(server);
    s.inverted = true;  // the endpoint says 0.025 USDT per THB
    infra::rates::HttpJsonRateSource source(s);
    EXPECT_EQ(domain::money::to_string(
                  source.quote(FiatCurrency::THB, "USDT", domain::ChainId{1}).fiat_per_token),
              "40");
}

TEST(HttpJsonSourceIt, ServerErrorsMissingRatesAndBadValuesAreRateUnavailable) {
    LoopbackServer server({{500, "{}"},
                           {404, "{}"},
                           {200, R"({"data":{"rates":{}}})"},
                           {200, R"({"data":{"rates":{"THB":-3}}})"},
                           {200, "not json"}});
    infra::rates::HttpJsonRateSource source(settings(server));
    bool retryable[5] = {};
    for (int i = 0; i < 5; ++i) {
        try {
            (void)source.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002});
            ADD_FAILURE() << "reply " << i << " gave a rate";
        } catch (const RateUnavailable& e) {
            retryable[i] = e.retryable();
        }
    }
    EXPECT_TRUE(retryable[0]);   // 500: the endpoint may recover
    EXPECT_FALSE(retryable[1]);  // 404: the configuration is wrong
    EXPECT_EQ(server.request_lines().size(), 5u);
}

TEST(HttpJsonSourceIt, TheCacheReadsTheEndpointOncePerTtl) {
    LoopbackServer server({{200, R"({"data":{"rates":{"THB":"36.5"}}})"},
                           {200, R"({"data":{"rates":{"THB":"36.6"}}})"}});
    infra::rates::HttpJsonRateSource http(settings(server));
    infra::rates::CachedRateSource cache(
        http, {std::chrono::milliseconds(300), std::chrono::hours(1), {}});
    for (int i = 0; i < 5; ++i) {
        EXPECT_EQ(
            domain::money::to_string(
                cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002}).fiat_per_token),
            "36.5");
    }
    EXPECT_EQ(server.request_lines().size(), 1u);
    std::this_thread::sleep_for(std::chrono::milliseconds(350));
    EXPECT_EQ(domain::money::to_string(
                  cache.quote(FiatCurrency::THB, "USDT", domain::ChainId{80002}).fiat_per_token),
              "36.6");
    EXPECT_EQ(server.request_lines().size(), 2u);
}

TEST(HttpJsonSourceIt, ANothingListeningPortIsRetryable) {
    std::optional<infra::rates::HttpJsonSettings> s;
    {
        LoopbackServer closed({});  // binds a free port, serves nothing, closes it on scope exit
        s = settings(closed);
    }
    infra::rates::HttpJsonRateSource source(*s);
    try {
        (void)source.quote(FiatCurrency::USD, "USDT", domain::ChainId{1});
        FAIL() << "expected RateUnavailable";
    } catch (const RateUnavailable& e) {
        EXPECT_TRUE(e.retryable()) << e.what();
    }
}

}  // namespace
}  // namespace duepay::tests::guards
