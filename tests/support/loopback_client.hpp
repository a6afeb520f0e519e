// A raw TCP client on loopback for the tests that speak HTTP bytes to our edge themselves (unit:
// tests/unit/api/http_edge_stream_test.cpp; against the dev server:
// tests/integration/api_rules/http_edge_test.cpp): connect, write every byte, read until the test
// has what it waits for, the peer closes, or time runs out.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <utility>

namespace duepay::tests::loopback {

// A connected socket to 127.0.0.1:`port`, or -1.
inline int connect_to(int port) {
    const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
    if (fd < 0) return -1;
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
        ::close(fd);
        return -1;
    }
    return fd;
}

// Writes all of `bytes`; false when the peer stopped taking them.
inline bool send_all(int fd, std::string_view bytes) {
    while (!bytes.empty()) {
        const auto n = ::send(fd, bytes.data(), bytes.size(), MSG_NOSIGNAL);
        if (n <= 0) return false;
        bytes.remove_prefix(static_cast<std::size_t>(n));
    }
    return true;
}

// Reads into `in` until `done(in)`, the peer closes or `limit` passes; true when the peer closed.
template <class Done>
bool read_into(int fd, std::string& in, Done done,
               std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    char buf[65536];
    const auto until = std::chrono::steady_clock::now() + limit;
    while (!done(in) && std::chrono::steady_clock::now() < until) {
        pollfd p{fd, POLLIN, 0};
        if (::poll(&p, 1, 100) <= 0) continue;
        const auto n = ::recv(fd, buf, sizeof buf, 0);
        if (n <= 0) return true;
        in.append(buf, static_cast<std::size_t>(n));
    }
    return false;
}

// The same, from nothing: what came, and whether the peer closed.
template <class Done>
std::pair<std::string, bool> read_until(
    int fd, Done done, std::chrono::milliseconds limit = std::chrono::seconds(20)) {
    std::string in;
    const bool closed = read_into(fd, in, done, limit);
    return {std::move(in), closed};
}

// Never done: read until the peer closes or time runs out.
inline bool until_closed(const std::string&) { return false; }

}  // namespace duepay::tests::loopback
