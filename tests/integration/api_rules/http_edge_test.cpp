// The HTTP edge (api/http/http_edge.hpp, docs/adr/0096) against `duepay dev` on the real stack:
// each class of malformed, oversized or slow request goes over a raw TCP socket, and each answer
// must be the envelope with its meta.code, an x-request-id, come within a bound, and (for a
// refused request) close the connection. Idle connections are closed after the idle timeout, and
// not before. Then a bounded loopback load: oversized heads in parallel must not slow /healthz
// down.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "tests/integration/pipeline/dev_server_suite.hpp"
#include "tests/support/loopback_client.hpp"

namespace duepay::tests {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

struct RawAnswer {
    HttpResponse response;  // status 0: no complete response
    std::string raw;
    double seconds = 0;        // from the first byte sent to the whole response received
    bool closed = false;       // the server closed the connection after the response
    std::vector<int> interim;  // 1xx statuses seen before the response
};

int port_of(const std::string& base_url) {
    return std::stoi(base_url.substr(base_url.rfind(':') + 1));
}

// Parses one response at the start of `raw` (after any 1xx); returns its length, 0 if incomplete.
std::size_t parse_response(const std::string& raw, RawAnswer& out) {
    std::size_t at = 0;
    for (;;) {
        const auto end = raw.find("\r\n\r\n", at);
        if (end == std::string::npos) return 0;
        const std::string head = raw.substr(at, end - at);
        if (head.rfind("HTTP/1.1 ", 0) != 0 || head.size() < 12) return 0;
        const int status = std::stoi(head.substr(9, 3));
        if (status >= 100 && status < 200) {
            out.interim.push_back(status);
            at = end + 4;
            continue;
        }
        HttpResponse r;
        r.status = status;
        std::size_t line = head.find("\r\n");
        while (line != std::string::npos) {
            const auto next = head.find("\r\n", line + 2);
            const std::string field = head.substr(
                line + 2, next == std::string::npos ? std::string::npos : next - line - 2);
            const auto colon = field.find(':');
            if (colon != std::string::npos) {
                std::string name = field.substr(0, colon);
                std::transform(name.begin(), name.end(), name.begin(),
                               [](unsigned char c) { return std::tolower(c); });
                r.headers[name] = field.substr(field.find_first_not_of(' ', colon + 1));
            }
            line = next;
        }
        const std::size_t length =
            r.headers.count("content-length") ? std::stoul(r.headers["content-length"]) : 0;
        if (raw.size() < end + 4 + length) return 0;
        r.body = raw.substr(end + 4, length);
        out.response = r;
        return end + 4 + length;
    }
}

// Sends `bytes` (then keeps the socket open) and reads one response, then waits up to
// `close_wait` for the server to close.
// With `split`, the bytes after it are sent `gap` later.
RawAnswer exchange(int port, const std::string& bytes, std::chrono::milliseconds deadline = 15s,
                   std::chrono::milliseconds close_wait = 2s, std::size_t split = std::string::npos,
                   std::chrono::milliseconds gap = 0ms) {
    RawAnswer out;
    const int fd = loopback::connect_to(port);
    if (fd < 0) return out;
    const auto started = Clock::now();
    // A writer thread, so a server that answers before reading everything cannot block us.
    std::thread writer([fd, &bytes, split, gap] {
        std::size_t sent = 0;
        while (sent < bytes.size()) {
            if (sent == split) std::this_thread::sleep_for(gap);
            const std::size_t end = sent < split ? std::min(split, bytes.size()) : bytes.size();
            const auto n = ::send(fd, bytes.data() + sent, std::min<std::size_t>(end - sent, 65536),
                                  MSG_NOSIGNAL);
            if (n <= 0) return;
            sent += static_cast<std::size_t>(n);
        }
    });
    std::size_t consumed = 0;
    char buf[65536];
    auto until = started + deadline;
    while (Clock::now() < until) {
        pollfd p{fd, POLLIN, 0};
        const auto left =
            std::chrono::duration_cast<std::chrono::milliseconds>(until - Clock::now()).count();
        if (::poll(&p, 1, static_cast<int>(std::max<long long>(left, 1))) <= 0) continue;
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) {
            out.closed = true;
            break;
        }
        out.raw.append(buf, static_cast<std::size_t>(n));
        if (consumed == 0 && (consumed = parse_response(out.raw, out)) != 0) {
            out.seconds = std::chrono::duration<double>(Clock::now() - started).count();
            until = std::min(until, Clock::now() + close_wait);
        }
    }
    ::shutdown(fd, SHUT_RDWR);
    writer.join();
    ::close(fd);
    return out;
}

struct Case {
    const char* name;
    std::string request;
    long status;
    const char* code;  // nullptr: a success envelope
    double within_seconds;
    bool closes = true;  // refused by the edge (not by a route): answered with connection: close
};

std::string pad_headers(std::size_t count, std::size_t value_size) {
    std::string out;
    for (std::size_t i = 0; i < count; ++i)
        out += "X-Pad-" + std::to_string(i) + ": " + std::string(value_size, 'v') + "\r\n";
    return out;
}

std::vector<Case> malformed_cases() {
    const std::string host = "Host: 127.0.0.1\r\n";
    const std::string create =
        "POST /v1/invoices HTTP/1.1\r\n" + host + "Content-Type: application/json\r\n";
    return {
        {"oversize headers (1 MiB)",
         "GET /healthz HTTP/1.1\r\n" + host + pad_headers(1024, 1000) + "\r\n", 431,
         "request_header_fields_too_large", 2},
        {"too many headers (101)",
         "GET /healthz HTTP/1.1\r\n" + host + pad_headers(100, 4) + "\r\n", 431,
         "request_header_fields_too_large", 2},
        {"long request line", "GET /" + std::string(9000, 'a') + " HTTP/1.1\r\n" + host + "\r\n",
         414, "uri_too_long", 2},
        {"long request line, never ended", "GET /" + std::string(20000, 'a'), 414, "uri_too_long",
         2},
        {"content-length -1", create + "Content-Length: -1\r\n\r\n{}", 400,
         "invalid_content_length", 2},
        {"content-length not a number", create + "Content-Length: ten\r\n\r\n{}", 400,
         "invalid_content_length", 2},
        {"content-length twice, different",
         create + "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", 400, "invalid_content_length",
         2},
        {"content-length huge", create + "Content-Length: 99999999999999999999999\r\n\r\n{}", 413,
         "payload_too_large", 2},
        {"body over the limit (announced)", create + "Content-Length: 65537\r\n\r\n{", 413,
         "payload_too_large", 2},
        {"bad host port", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:99999\r\n\r\n", 400,
         "invalid_host", 2},
        {"host port not a number", "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:http\r\n\r\n", 400,
         "invalid_host", 2},
        {"no host on HTTP/1.1", "GET /healthz HTTP/1.1\r\n\r\n", 400, "invalid_host", 2},
        {"two hosts", "GET /healthz HTTP/1.1\r\n" + host + host + "\r\n", 400, "invalid_host", 2},
        {"bad date is ignored",
         "GET /healthz HTTP/1.1\r\n" + host + "Date: not a date\r\nConnection: close\r\n\r\n", 200,
         nullptr, 2},
        {"content-type not a media type",
         create + "Content-Type: garbage\r\nContent-Length: 2\r\n\r\n{}", 415,
         "unsupported_media_type", 2, false},
        {"x-request-id kept on a refused whole head",
         "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1:0x50\r\nX-Request-Id: edge-1\r\n\r\n", 400,
         "invalid_host", 2},
        {"truncated body (timeout)", create + "Content-Length: 100\r\n\r\n{\"chainId\":", 408,
         "request_timeout", 13},
        {"unfinished head (timeout)", "GET /healthz HTTP/1.1\r\n" + host + "X-Slow: 1\r\n", 408,
         "request_timeout", 13},
        {"unknown method", "BREW /healthz HTTP/1.1\r\n" + host + "\r\n", 405, "method_not_allowed",
         2, false},
        {"HTTP/0.9", "GET /healthz\r\n\r\n", 400, "malformed_request", 2},
        {"HTTP/2.0 in the request line", "GET /healthz HTTP/2.0\r\n" + host + "\r\n", 505,
         "http_version_not_supported", 2},
        {"garbage bytes (a TLS hello)",
         std::string("\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03", 11), 400, "malformed_request",
         2},
        {"NUL in the request line", std::string("GET /heal\0thz HTTP/1.1\r\n", 24) + host + "\r\n",
         400, "malformed_request", 2},
        {"NUL in a header value",
         "GET /healthz HTTP/1.1\r\n" + host + std::string("X-A: a\0b\r\n\r\n", 11), 400,
         "malformed_request", 2},
        {"bare LF line ends", "GET /healthz HTTP/1.1\nHost: 127.0.0.1\n\n", 400,
         "malformed_request", 2},
        {"folded header", "GET /healthz HTTP/1.1\r\n" + host + "X-A: a\r\n b\r\n\r\n", 400,
         "malformed_request", 2},
        {"space before the colon", "GET /healthz HTTP/1.1\r\n" + host + "X-A : a\r\n\r\n", 400,
         "malformed_request", 2},
        {"chunked body", create + "Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n", 501,
         "transfer_encoding_not_supported", 2},
        {"target not a path", "GET healthz HTTP/1.1\r\n" + host + "\r\n", 400, "malformed_request",
         2},
    };
}

class HttpEdge : public DevServerSuite<HttpEdge> {
  public:
    static constexpr const char* kServerName = "edge";

  protected:
    int port() const { return port_of(server_->base_url); }
};

TEST_F(HttpEdge, EveryMalformedRequestClassGetsTheEnvelopeInTime) {
    const auto cases = malformed_cases();
    // In parallel, so the two timeout cases cost one request timeout, not two.
    std::vector<std::future<RawAnswer>> answers;
    for (const auto& c : cases) {
        answers.push_back(
            std::async(std::launch::async, [this, &c] { return exchange(port(), c.request); }));
    }
    for (std::size_t i = 0; i < cases.size(); ++i) {
        const auto& c = cases[i];
        SCOPED_TRACE(c.name);
        RawAnswer a = answers[i].get();
        ASSERT_NE(a.response.status, 0) << "no complete response; got: " << a.raw.substr(0, 300);
        if (c.code != nullptr) {
            expect_error_envelope(a.response, c.status, c.code);
            if (c.closes) {
                EXPECT_EQ(a.response.headers["connection"], "close");
                EXPECT_TRUE(a.closed) << "the connection stays open after a refused request";
            }
            if (std::string(c.name).find("x-request-id") != std::string::npos) {
                EXPECT_EQ(a.response.headers["x-request-id"], "edge-1");
            }
        } else {
            EXPECT_EQ(a.response.status, c.status) << a.response.body;
            EXPECT_EQ(a.response.body.rfind(R"({"success":true)", 0), 0u) << a.response.body;
            EXPECT_EQ(a.response.headers.count("x-request-id"), 1u);
        }
        EXPECT_LE(a.seconds, c.within_seconds);
        if (std::string(c.name).find("timeout") != std::string::npos) {
            EXPECT_GE(a.seconds, 9.0) << "the request timeout is 10 s";
        }
    }
}

TEST_F(HttpEdge, ABodySentSlowlyButWithinTheTimeoutIsServed) {
    // Head and half the body, then the rest 2 s later: the edge waits, then answers (401: no key).
    const std::string body = R"({"chainId":80002,"amount":"1"})";
    const std::string head =
        "POST /v1/invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Connection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n";
    RawAnswer a = exchange(port(), head + body, 15s, 2s, head.size() + 5, 2000ms);
    expect_error_envelope(a.response, 401, "invalid_api_key");
    EXPECT_GE(a.seconds, 2.0);
}

TEST_F(HttpEdge, PipelinedRequestsAreAnsweredInOrderOnOneConnection) {
    const std::string host = "Host: 127.0.0.1\r\n";
    const std::string two = "GET /healthz HTTP/1.1\r\n" + host + "X-Request-Id: first\r\n\r\n" +
                            "GET /nowhere HTTP/1.1\r\n" + host +
                            "X-Request-Id: second\r\nConnection: close\r\n\r\n";
    RawAnswer a = exchange(port(), two);
    ASSERT_EQ(a.response.status, 200) << a.raw;
    EXPECT_EQ(a.response.headers["x-request-id"], "first");
    RawAnswer b;
    const std::size_t first_length = parse_response(a.raw, b);
    ASSERT_GT(first_length, 0u);
    RawAnswer second;
    ASSERT_GT(parse_response(a.raw.substr(first_length), second), 0u) << a.raw;
    expect_error_envelope(second.response, 404, "route_not_found");
    EXPECT_EQ(second.response.headers["x-request-id"], "second");
    EXPECT_TRUE(a.closed);
}

TEST_F(HttpEdge, ExpectContinueGetsA100ThenTheAnswer) {
    const std::string body = R"({"chainId":80002,"amount":"1"})";
    const std::string request =
        "POST /v1/invoices HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
        "Expect: 100-continue\r\nConnection: close\r\nContent-Length: " +
        std::to_string(body.size()) + "\r\n\r\n";
    // Head only first: the 100 must come before any body byte is sent.
    const int fd = loopback::connect_to(port());
    ASSERT_GE(fd, 0);
    ASSERT_TRUE(loopback::send_all(fd, request));
    pollfd p{fd, POLLIN, 0};
    ASSERT_EQ(::poll(&p, 1, 2000), 1);
    char buf[256];
    const auto n = ::recv(fd, buf, sizeof buf, 0);
    ASSERT_GT(n, 0);
    EXPECT_EQ(std::string(buf, static_cast<std::size_t>(n)), "HTTP/1.1 100 Continue\r\n\r\n");
    ::close(fd);
}

// Seconds from `since` until the server closes `fd` (reading and keeping what it sends), or -1 if
// it is still open after `limit`.
double seconds_until_closed(int fd, Clock::time_point since, std::chrono::seconds limit,
                            std::string& received) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(since + limit - Clock::now());
    if (!loopback::read_into(fd, received, loopback::until_closed, left)) return -1;
    return std::chrono::duration<double>(Clock::now() - since).count();
}

TEST_F(HttpEdge, IdleConnectionsAreClosedAfterTheIdleTimeout) {
    // The edge's own sweep (ADR 0204): a connection with no request in progress is closed 15 s
    // after its last byte (the API's idle_timeout), and not before. Both clients run at once: one
    // never sends a byte, one is answered on a keep-alive connection and then says nothing.
    auto silent = std::async(std::launch::async, [this] {
        const int fd = loopback::connect_to(port());
        std::string received;
        const double seconds = fd < 0 ? -2 : seconds_until_closed(fd, Clock::now(), 25s, received);
        if (fd >= 0) ::close(fd);
        return std::make_pair(seconds, received);
    });
    auto kept = std::async(std::launch::async, [this] {
        const int fd = loopback::connect_to(port());
        if (fd < 0) return std::make_pair(-2.0, std::string());
        loopback::send_all(fd, "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n");
        std::string received;
        RawAnswer answer;
        // The answer, then the idle clock.
        loopback::read_into(
            fd, received,
            [&answer](const std::string& in) { return parse_response(in, answer) != 0; }, 5s);
        const double seconds = seconds_until_closed(fd, Clock::now(), 25s, received);
        ::close(fd);
        return std::make_pair(seconds, received);
    });
    const auto [silent_seconds, silent_bytes] = silent.get();
    const auto [kept_seconds, kept_bytes] = kept.get();
    EXPECT_GE(silent_seconds, 14.5) << "closed before the idle timeout (-1: never closed)";
    EXPECT_LE(silent_seconds, 17.0);
    EXPECT_EQ(silent_bytes, "") << "an idle connection is closed without an answer";
    EXPECT_EQ(kept_bytes.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << kept_bytes;
    EXPECT_EQ(kept_bytes.find("connection: close"), std::string::npos) << kept_bytes;
    EXPECT_GE(kept_seconds, 14.5) << "closed before the idle timeout (-1: never closed)";
    EXPECT_LE(kept_seconds, 17.0);
}

TEST_F(HttpEdge, OversizeHeadersInParallelDoNotSlowHealthz) {
    // 10 rounds of 50 clients each sending a 1 MiB head (refused at 16 KiB) while /healthz is
    // timed.
    const std::string big =
        "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n" + pad_headers(1024, 1000) + "\r\n";
    std::atomic<bool> done{false};
    std::vector<double> health;
    std::thread prober([&] {
        while (!done.load()) {
            const auto t0 = Clock::now();
            auto r = http("GET", url("/healthz"), {}, "", 5000);
            health.push_back(std::chrono::duration<double>(Clock::now() - t0).count());
            EXPECT_EQ(r.status, 200);
            std::this_thread::sleep_for(5ms);
        }
    });
    int refused = 0;
    for (int round = 0; round < 10; ++round) {
        std::vector<std::future<RawAnswer>> flood;
        for (int i = 0; i < 50; ++i) {
            flood.push_back(
                std::async(std::launch::async, [&] { return exchange(port(), big, 15s, 0ms); }));
        }
        for (auto& f : flood) refused += f.get().response.status == 431 ? 1 : 0;
    }
    done = true;
    prober.join();
    EXPECT_EQ(refused, 500);
    ASSERT_GE(health.size(), 5u) << "too few probes during the flood to judge";
    const double worst = *std::max_element(health.begin(), health.end());
    std::cout << "healthz during the flood: " << health.size() << " probes, worst " << worst * 1000
              << " ms\n";
    EXPECT_LT(worst, 1.0);
}

}  // namespace
}  // namespace duepay::tests
