// A streamed answer through the HTTP edge (ApiResponse::stream, api/http/http_edge.cpp, ADR 0240):
// an HttpEdge on a loopback port of its own with a handler that streams, spoken to over a raw
// socket. The body arrives chunked and whole, ends with the last chunk, and the connection serves
// the next request; the producer runs only as fast as the client reads (a client that reads
// nothing stops it); a producer that throws cuts the connection before the last chunk; an
// HTTP/1.0 client gets the raw body ended by the close; HEAD never calls the producer.
#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <memory>
#include <stdexcept>
#include <string>
#include <thread>

#include "api/http/http_edge.hpp"
#include "api/http/http_parser.hpp"
#include "tests/support/loopback_client.hpp"

namespace duepay::api {
namespace {

using namespace std::chrono_literals;
using tests::loopback::connect_to;
using tests::loopback::read_until;
using tests::loopback::send_all;
using tests::loopback::until_closed;

int free_port() {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr);
    socklen_t len = sizeof addr;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&addr), &len);
    ::close(fd);
    return ntohs(addr.sin_port);
}

// Decodes a chunked body starting at `at`; sets `complete` when the last chunk was there.
std::string dechunk(const std::string& raw, std::size_t at, bool& complete) {
    std::string body;
    complete = false;
    for (;;) {
        const auto eol = raw.find("\r\n", at);
        if (eol == std::string::npos) return body;
        const auto size = std::stoul(raw.substr(at, eol - at), nullptr, 16);
        if (size == 0) {
            complete = raw.compare(eol, 4, "\r\n\r\n") == 0;
            return body;
        }
        if (raw.size() < eol + 2 + size + 2) return body;
        body.append(raw, eol + 2, size);
        at = eol + 2 + size + 2;
    }
}

// A body of `parts` parts of `size` bytes each ('a' + part % 26), counting the producer's calls.
struct Source {
    int parts = 0;
    std::size_t size = 0;
    int throw_at = -1;  // the call that throws
    std::atomic<int> calls{0};

    BodyProducer producer() {
        return [this, next = std::make_shared<int>(0)](std::string& out) {
            ++calls;
            const int i = (*next)++;
            if (i == throw_at) throw std::runtime_error("the store went away");
            out.append(size, static_cast<char>('a' + i % 26));
            return i + 1 < parts;
        };
    }
    std::string expected(const std::string& first) const {
        std::string out = first;
        for (int i = 0; i < parts; ++i) out.append(size, static_cast<char>('a' + i % 26));
        return out;
    }
};

class EdgeStream : public ::testing::Test {
  protected:
    void SetUp() override {
        port_ = free_port();
        EdgeSettings settings;
        settings.listen = "127.0.0.1:" + std::to_string(port_);
        settings.threads = 1;
        settings.access_log = false;
        settings.log_name = "stream_test";
        edge_ = std::make_unique<HttpEdge>(settings, [this](ApiRequest request, Responder respond) {
            if (request.path == "/small") {
                ApiResponse r;
                r.body = "{\"ok\":true}";
                return respond(r);
            }
            ApiResponse r;
            r.headers["content-type"] = "text/csv; charset=utf-8";
            r.body = "head\r\n";
            r.stream = source_.producer();
            respond(r);
        });
        edge_->start();
    }
    void TearDown() override {
        if (fd_ >= 0) ::close(fd_);
        edge_->shutdown();
    }

    // The client side of a test: the body the handler streams is `parts` parts of `size` bytes;
    // connect to the edge (fd_, closed by TearDown) and send `request`.
    void send_request(int parts, std::size_t size, const std::string& request) {
        source_.parts = parts;
        source_.size = size;
        fd_ = connect_to(port_);
        ASSERT_GE(fd_, 0);
        ASSERT_TRUE(send_all(fd_, request));
    }

    int port_ = 0;
    int fd_ = -1;
    Source source_;
    std::unique_ptr<HttpEdge> edge_;
};

std::size_t head_end(const std::string& raw) {
    const auto end = raw.find("\r\n\r\n");
    return end == std::string::npos ? std::string::npos : end + 4;
}

TEST_F(EdgeStream, ABodyOfManyPartsArrivesChunkedWholeAndTheConnectionGoesOn) {
    ASSERT_NO_FATAL_FAILURE(send_request(300, 10000, "GET /report HTTP/1.1\r\nhost: x\r\n\r\n"));
    auto [raw, closed] = read_until(
        fd_, [](const std::string& in) { return in.find("\r\n0\r\n\r\n") != std::string::npos; });
    EXPECT_FALSE(closed);
    const auto body_at = head_end(raw);
    ASSERT_NE(body_at, std::string::npos) << raw.substr(0, 200);
    const std::string head = raw.substr(0, body_at);
    EXPECT_EQ(head.rfind("HTTP/1.1 200 OK\r\n", 0), 0u) << head;
    EXPECT_NE(head.find("transfer-encoding: chunked\r\n"), std::string::npos) << head;
    EXPECT_NE(head.find("content-type: text/csv; charset=utf-8\r\n"), std::string::npos);
    EXPECT_EQ(head.find("content-length"), std::string::npos) << head;
    EXPECT_EQ(head.find("connection: close"), std::string::npos) << head;
    bool complete = false;
    const auto body = dechunk(raw, body_at, complete);
    EXPECT_TRUE(complete);
    EXPECT_EQ(body, source_.expected("head\r\n"));
    EXPECT_EQ(source_.calls.load(), 300);
    // The same connection answers the next request.
    ASSERT_TRUE(send_all(fd_, "GET /small HTTP/1.1\r\nhost: x\r\n\r\n"));
    auto [next, closed2] = read_until(
        fd_, [](const std::string& in) { return in.find("{\"ok\":true}") != std::string::npos; });
    EXPECT_FALSE(closed2);
    EXPECT_NE(next.find("content-length: 11\r\n"), std::string::npos) << next;
}

TEST_F(EdgeStream, AClientThatDoesNotReadStopsTheProducer) {
    // 4000 parts of 64 KiB: 256 MB in all.
    ASSERT_NO_FATAL_FAILURE(
        send_request(4000, 64 * 1024, "GET /report HTTP/1.1\r\nhost: x\r\n\r\n"));
    std::this_thread::sleep_for(1500ms);
    const int early = source_.calls.load();
    std::this_thread::sleep_for(500ms);
    // Only what the socket buffers hold was produced, and nothing more while nobody reads.
    EXPECT_GT(early, 0);
    EXPECT_LT(early, 400) << "produced ahead of the client";
    EXPECT_EQ(source_.calls.load(), early);
    // Reading it all then gets it all.
    std::size_t bytes = 0;
    bool ended = false;
    char buf[1 << 16];
    std::string tail;
    const auto until = std::chrono::steady_clock::now() + 60s;
    while (!ended && std::chrono::steady_clock::now() < until) {
        const auto n = ::recv(fd_, buf, sizeof buf, 0);
        if (n <= 0) break;
        bytes += static_cast<std::size_t>(n);
        tail.append(buf, static_cast<std::size_t>(n));
        if (tail.size() > 16) tail.erase(0, tail.size() - 16);
        ended = tail.find("\r\n0\r\n\r\n") != std::string::npos;
    }
    EXPECT_TRUE(ended);
    EXPECT_GT(bytes, 4000u * 64 * 1024);
    EXPECT_EQ(source_.calls.load(), 4000);
}

TEST_F(EdgeStream, AProducerThatThrowsCutsTheBodyBeforeItsEnd) {
    source_.throw_at = 20;
    ASSERT_NO_FATAL_FAILURE(send_request(50, 1000, "GET /report HTTP/1.1\r\nhost: x\r\n\r\n"));
    auto [raw, closed] = read_until(fd_, until_closed, 10s);
    EXPECT_TRUE(closed);
    bool complete = true;
    const auto body = dechunk(raw, head_end(raw), complete);
    EXPECT_FALSE(complete);
    EXPECT_EQ(body.size(), 6u + 20 * 1000);
    EXPECT_EQ(source_.calls.load(), 21);
}

TEST_F(EdgeStream, AnHttp10ClientGetsTheRawBodyEndedByTheClose) {
    ASSERT_NO_FATAL_FAILURE(
        send_request(5, 3, "GET /report HTTP/1.0\r\nconnection: keep-alive\r\n\r\n"));
    auto [raw, closed] = read_until(fd_, until_closed, 10s);
    EXPECT_TRUE(closed);
    const auto at = head_end(raw);
    ASSERT_NE(at, std::string::npos);
    const std::string head = raw.substr(0, at);
    EXPECT_EQ(head.find("transfer-encoding"), std::string::npos) << head;
    EXPECT_NE(head.find("connection: close\r\n"), std::string::npos) << head;
    EXPECT_EQ(raw.substr(at), source_.expected("head\r\n"));
}

TEST_F(EdgeStream, HeadSendsTheHeadAndNeverCallsTheProducer) {
    ASSERT_NO_FATAL_FAILURE(send_request(
        5, 3, "HEAD /report HTTP/1.1\r\nhost: x\r\n\r\nGET /small HTTP/1.1\r\nhost: x\r\n\r\n"));
    auto [raw, closed] = read_until(
        fd_, [](const std::string& in) { return in.find("{\"ok\":true}") != std::string::npos; });
    EXPECT_FALSE(closed);
    EXPECT_NE(raw.find("transfer-encoding: chunked\r\n"), std::string::npos) << raw;
    // The HEAD answer has no body: the next bytes are the GET's answer.
    const auto at = head_end(raw);
    EXPECT_EQ(raw.compare(at, 9, "HTTP/1.1 "), 0) << raw;
    EXPECT_EQ(source_.calls.load(), 0);
}

TEST(ChunkOf, FramesAPartAndNothingForAnEmptyOne) {
    EXPECT_EQ(chunk_of("hello"), "5\r\nhello\r\n");
    EXPECT_EQ(chunk_of(std::string(300, 'x')).substr(0, 5), "12c\r\n");
    EXPECT_EQ(chunk_of(""), "");
    EXPECT_EQ(kLastChunk, "0\r\n\r\n");
    ApiResponse r;
    r.headers["content-type"] = "text/csv";
    r.body = "ignored";
    const auto head = serialize_stream_head(r, "req_1", false, true);
    EXPECT_EQ(head,
              "HTTP/1.1 200 OK\r\nx-request-id: req_1\r\ncontent-type: text/csv\r\n"
              "transfer-encoding: chunked\r\n\r\n");
    EXPECT_EQ(serialize_stream_head(r, "req_1", false, false),
              "HTTP/1.1 200 OK\r\nx-request-id: req_1\r\ncontent-type: text/csv\r\n"
              "connection: close\r\n\r\n");
}

}  // namespace
}  // namespace duepay::api
