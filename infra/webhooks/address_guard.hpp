// Where a webhook may go (docs/webhooks.md "Endpoint URLs"). At registration the host is resolved
// and every address it gives must be allowed; at delivery the address actually connected to is
// checked again (HttpSender's open-socket hook), so DNS rebinding cannot reach the inside.
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>

#include "domain/result.hpp"

namespace duepay::infra::webhooks {

// Error webhook_url_private_address when the host is (or resolves to) an address a delivery may
// not reach. A name that does not resolve now is accepted: deliveries check again.
std::optional<domain::Error> check_host(const std::string& host, bool allow_insecure);

// The delivery-time check of one socket address (AF_INET / AF_INET6; anything else is refused).
bool may_connect(const sockaddr* address, bool allow_insecure);

}  // namespace duepay::infra::webhooks
