#include "infra/metrics/ops_server.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstring>

#include "infra/config/env.hpp"
#include "infra/log/log.hpp"

namespace duepay::infra::metrics {
namespace {

constexpr log::Logger kLog{"ops"};
constexpr std::size_t kMaxHead = 8192;

std::string_view reason(int status) {
    switch (status) {
        case 200:
            return "OK";
        case 400:
            return "Bad Request";
        case 404:
            return "Not Found";
        case 405:
            return "Method Not Allowed";
        case 503:
            return "Service Unavailable";
    }
    return "Error";
}

void send_all(int fd, const std::string& bytes) {
    std::size_t at = 0;
    while (at < bytes.size()) {
        const auto n = ::send(fd, bytes.data() + at, bytes.size() - at, MSG_NOSIGNAL);
        if (n <= 0) return;
        at += static_cast<std::size_t>(n);
    }
}

void answer(int fd, const OpsAnswer& a, bool head_only) {
    std::string out = "HTTP/1.1 " + std::to_string(a.status) + " " + std::string(reason(a.status)) +
                      "\r\ncontent-type: " + a.content_type +
                      "\r\ncontent-length: " + std::to_string(a.body.size()) +
                      "\r\nconnection: close\r\n\r\n";
    if (!head_only) out += a.body;
    send_all(fd, out);
}

// Reads one request head; the request line's method and path (query dropped), or nullopt.
std::optional<std::pair<std::string, std::string>> read_request_line(int fd) {
    std::string head;
    std::array<char, 2048> buf{};
    while (head.find("\r\n\r\n") == std::string::npos && head.size() < kMaxHead) {
        const auto n = ::recv(fd, buf.data(), buf.size(), 0);
        if (n <= 0) break;
        head.append(buf.data(), static_cast<std::size_t>(n));
    }
    const auto eol = head.find("\r\n");
    if (eol == std::string::npos) return std::nullopt;
    const std::string line = head.substr(0, eol);
    const auto sp1 = line.find(' ');
    const auto sp2 = line.find(' ', sp1 + 1);
    if (sp1 == std::string::npos || sp2 == std::string::npos) return std::nullopt;
    std::string path = line.substr(sp1 + 1, sp2 - sp1 - 1);
    if (const auto q = path.find('?'); q != std::string::npos) path.resize(q);
    return std::make_pair(line.substr(0, sp1), path);
}

}  // namespace

Registration Readiness::add(std::string name, Check check) {
    std::lock_guard lock(mutex_);
    const std::uint64_t id = next_++;
    const auto it = checks_.emplace(std::move(name), std::make_pair(id, std::move(check)));
    (void)it;
    return Registration([this, id] {
        std::lock_guard undo_lock(mutex_);
        for (auto at = checks_.begin(); at != checks_.end(); ++at) {
            if (at->second.first == id) {
                checks_.erase(at);
                return;
            }
        }
    });
}

std::pair<bool, std::string> Readiness::evaluate() const {
    std::lock_guard lock(mutex_);
    std::string failing;
    for (const auto& [name, entry] : checks_) {
        if (auto why = entry.second()) failing += name + ": " + *why + "\n";
    }
    if (failing.empty()) return {true, "ready\n"};
    return {false, failing};
}

Readiness& readiness() {
    static Readiness r;
    return r;
}

OpsAnswer ops_answer(std::string_view method, std::string_view path, const Registry& registry,
                     const Readiness& readiness) {
    const bool known = path == "/metrics" || path == "/healthz" || path == "/readyz";
    if (!known) return {404, "text/plain; charset=utf-8", "not found\n"};
    if (method != "GET" && method != "HEAD") {
        return {405, "text/plain; charset=utf-8", "method not allowed\n"};
    }
    if (path == "/metrics") {
        return {200, "text/plain; version=0.0.4; charset=utf-8", registry.render()};
    }
    if (path == "/healthz") return {200, "text/plain; charset=utf-8", "ok\n"};
    auto [ready, text] = readiness.evaluate();
    return {ready ? 200 : 503, "text/plain; charset=utf-8", text};
}

OpsServer::OpsServer(const std::string& listen) {
    const auto colon = listen.rfind(':');
    if (colon == std::string::npos) {
        throw config::ConfigError("--ops-listen must be host:port, not '" + listen + "'");
    }
    const std::string host = listen.substr(0, colon);
    int port = -1;
    try {
        port = std::stoi(listen.substr(colon + 1));
    } catch (const std::exception&) {
    }
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    if (port < 0 || port > 65535 || ::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) {
        throw config::ConfigError("--ops-listen must be an IPv4 host:port, not '" + listen + "'");
    }
    addr.sin_port = htons(static_cast<std::uint16_t>(port));
    fd_ = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    const int one = 1;
    ::setsockopt(fd_, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
    if (fd_ < 0 || ::bind(fd_, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 ||
        ::listen(fd_, 16) != 0) {
        const std::string why = std::strerror(errno);
        if (fd_ >= 0) ::close(fd_);
        throw config::ConfigError("ops listener on " + listen + ": " + why);
    }
    socklen_t len = sizeof addr;
    ::getsockname(fd_, reinterpret_cast<sockaddr*>(&addr), &len);
    port_ = ntohs(addr.sin_port);
    kLog.info() << "ops: listening on " << host << ":" << port_ << " (/metrics /healthz /readyz)";
    thread_ = std::thread([this] { serve(); });
}

OpsServer::~OpsServer() {
    stop_ = true;
    if (thread_.joinable()) thread_.join();
    ::close(fd_);
}

void OpsServer::serve() {
    while (!stop_) {
        pollfd p{fd_, POLLIN, 0};
        if (::poll(&p, 1, 200) <= 0) continue;
        const int client = ::accept4(fd_, nullptr, nullptr, SOCK_CLOEXEC);
        if (client < 0) continue;
        timeval timeout{2, 0};
        ::setsockopt(client, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
        ::setsockopt(client, SOL_SOCKET, SO_SNDTIMEO, &timeout, sizeof timeout);
        try {
            if (const auto request = read_request_line(client)) {
                answer(client, ops_answer(request->first, request->second, registry(), readiness()),
                       request->first == "HEAD");
            } else {
                answer(client, {400, "text/plain; charset=utf-8", "bad request\n"}, false);
            }
        } catch (const std::exception& e) {
            kLog.error() << "ops: " << e.what();
        }
        ::close(client);
    }
}

}  // namespace duepay::infra::metrics
