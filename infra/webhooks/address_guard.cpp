#include "infra/webhooks/address_guard.hpp"

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>

#include <array>
#include <cstring>
#include <memory>

#include "domain/webhooks/endpoint_url.hpp"

namespace duepay::infra::webhooks {
namespace dw = domain::webhooks;

bool may_connect(const sockaddr* address, bool allow_insecure) {
    if (address == nullptr) return false;
    if (address->sa_family == AF_INET) {
        const auto* in = reinterpret_cast<const sockaddr_in*>(address);
        std::array<std::uint8_t, 4> bytes{};
        std::memcpy(bytes.data(), &in->sin_addr, 4);
        return dw::may_connect(dw::classify_ipv4(bytes), allow_insecure);
    }
    if (address->sa_family == AF_INET6) {
        const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
        std::array<std::uint8_t, 16> bytes{};
        std::memcpy(bytes.data(), &in6->sin6_addr, 16);
        return dw::may_connect(dw::classify_ipv6(bytes), allow_insecure);
    }
    return false;
}

std::optional<domain::Error> check_host(const std::string& host, bool allow_insecure) {
    const auto refused =
        domain::make_error("webhook_url_private_address",
                           "url host is or resolves to a private, loopback, link-local, "
                           "multicast or reserved address");
    addrinfo hints{};
    hints.ai_family = AF_UNSPEC;
    hints.ai_socktype = SOCK_STREAM;
    addrinfo* raw = nullptr;
    if (::getaddrinfo(host.c_str(), nullptr, &hints, &raw) != 0 || raw == nullptr) {
        // "localhost" must not slip through a resolver that happens not to know it.
        if (host == "localhost" || host.ends_with(".localhost")) {
            if (!allow_insecure) return refused;
        }
        return std::nullopt;
    }
    std::unique_ptr<addrinfo, decltype(&::freeaddrinfo)> list(raw, &::freeaddrinfo);
    for (auto* ai = list.get(); ai != nullptr; ai = ai->ai_next) {
        if (!may_connect(ai->ai_addr, allow_insecure)) return refused;
    }
    return std::nullopt;
}

}  // namespace duepay::infra::webhooks
