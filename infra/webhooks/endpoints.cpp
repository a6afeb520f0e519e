#include "infra/webhooks/endpoints.hpp"

#include "domain/hex.hpp"
#include "domain/webhooks/endpoint_url.hpp"
#include "infra/random/random.hpp"
#include "infra/webhooks/address_guard.hpp"

namespace duepay::infra::webhooks {
namespace {

bool is_prefixed_hex(std::string_view id, std::string_view prefix, std::size_t digits) {
    return id.size() == prefix.size() + digits && id.starts_with(prefix) &&
           id.substr(prefix.size()).find_first_not_of("0123456789abcdef") == std::string_view::npos;
}

}  // namespace

namespace {

std::optional<domain::Error> check_url(const std::string& url, bool insecure) {
    auto parsed = domain::webhooks::parse_endpoint_url(url, insecure);
    if (!parsed) return parsed.error();
    return check_host(parsed->host, insecure);
}

}  // namespace

std::optional<domain::Error> check_endpoint_url(const std::string& url, bool allow_insecure,
                                                domain::events::Mode mode) {
    const bool test_mode = mode == domain::events::Mode::test;
    auto refused = check_url(url, allow_insecure && test_mode);
    // Refused for a live endpoint although a test-mode one would pass: say so.
    if (refused && allow_insecure && !test_mode && !check_url(url, true)) {
        refused->message +=
            " (http:// and loopback URLs are allowed for test-mode endpoints in the dev stack "
            "only)";
    }
    return refused;
}

std::string new_endpoint_id() {
    return "we_" + domain::to_hex(random::random_bytes<12>()).substr(2);
}

std::string new_test_event_id() {
    return "evt_" + domain::to_hex(random::random_bytes<24>()).substr(2);
}

bool is_endpoint_id(std::string_view id) { return is_prefixed_hex(id, "we_", 24); }

bool is_event_id(std::string_view id) { return is_prefixed_hex(id, "evt_", 48); }

}  // namespace duepay::infra::webhooks
