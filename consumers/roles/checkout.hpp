// The checkout role: the hosted checkout (api/checkout; docs/design.md, docs/checkout.md) wired to
// Postgres (charges, branding, LISTEN), the chain registry and heads, the signer and libqrencode,
// all from the environment: DATABASE_URL, DUEPAY_CHAINS_FILE, DUEPAY_SIGNER_KEY,
// DUEPAY_CHECKOUT_LISTEN (default: the host:port of DUEPAY_CHECKOUT_URL, else 127.0.0.1:8081),
// DUEPAY_CHECKOUT_THREADS (2), DUEPAY_CHECKOUT_RATE_PER_MINUTE (120) and DUEPAY_CHECKOUT_BURST
// (60) per client address, DUEPAY_CHECKOUT_DB_POOL (4), DUEPAY_ACCESS_LOG (1). `duepay checkout`.
#pragma once

#include <atomic>
#include <string>

namespace duepay::consumers {

// Flag overrides of the environment; empty or 0 keeps the environment's value.
struct CheckoutOptions {
    std::string listen;  // host:port
    int threads = 0;
    // true inside `duepay dev`: when the port is taken (test harnesses run several `dev` processes)
    // the role logs it and idles instead of stopping the other roles.
    bool listener_optional = false;
    // Inside `duepay dev`: the API's listen address. Harnesses that point DUEPAY_CHECKOUT_URL at
    // the API (their charges' checkoutUrl is not what they test) get no checkout rather than a
    // second server on the API's port.
    std::string api_listen;
};

// Serves until `stop` is set. Throws ConfigError on a missing or bad setting.
int run_checkout(const CheckoutOptions& options, const std::atomic<bool>& stop);

// The host:port of an http(s) URL ("http://127.0.0.1:8081/x" -> "127.0.0.1:8081"); empty if none.
std::string listen_of_url(const std::string& url);

}  // namespace duepay::consumers
