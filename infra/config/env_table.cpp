// The table of every environment variable (env_table.hpp). Keep rows sorted by name; a new
// variable is a new row here and in docs/operations.md ("Environment").
#include "infra/config/env_table.hpp"

#include <algorithm>
#include <array>

namespace duepay::infra::config {
namespace {

using K = EnvVar::Kind;

// clang-format off
constexpr auto kTable = std::to_array<EnvVar>({
    {"DATABASE_URL", K::required, "", "every role, admin, tools",
     "libpq URL of Postgres (read models, offsets, accounts, webhook queue)"},
    {"DUEPAY_ACCESS_LOG", K::defaulted, "1", "api, checkout, dashboard",
     "0 turns off the one-line access log of each request"},
    {"DUEPAY_API_THREADS", K::defaulted, "2", "api",
     "server threads (1..64); --threads overrides"},
    {"DUEPAY_BASE_URL", K::optional, "http://127.0.0.1:8080", "api, dashboard",
     "public URL of the API; the checkout URL when DUEPAY_CHECKOUT_URL is unset"},
    {"DUEPAY_CHAINS_FILE", K::required, "", "api, checkout, dashboard, chainwatch, admin chains, tools",
     "the chain registry (JSON; var/chains.json on the dev stack)"},
    {"DUEPAY_CHAINWATCH_POLL_MS", K::defaulted, "250", "chainwatch",
     "idle wait between two asks for a chain's head, ms (10..10000; docs/tuning.md)"},
    {"DUEPAY_CHAINWATCH_RANGE", K::defaulted, "500", "chainwatch",
     "blocks per eth_getLogs range (1..100000)"},
    {"DUEPAY_CHAINWATCH_RETAIN_SECONDS", K::defaulted, "604800", "chainwatch",
     "chain time a done charge stays watched (0..10 years)"},
    {"DUEPAY_CHAINWATCH_TOPIC_CHUNK", K::defaulted, "200", "chainwatch",
     "deposit addresses per Transfer eth_getLogs (1..10000)"},
    {"DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX", K::defaulted, "1000", "chainwatch",
     "watched deposit addresses up to which Transfer queries filter by the to topic; above, every "
     "Transfer of the chain's tokens is fetched and matched in memory (0..1000000)"},
    {"DUEPAY_CHAINWATCH_TRACE", K::optional, "unset: off", "chainwatch",
     "set (to anything): log every block range and every appended event"},
    {"DUEPAY_CHAINWATCH_TRANSFER_SPAN", K::defaulted, "10", "chainwatch",
     "blocks per Transfer eth_getLogs above DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX (1..100000)"},
    {"DUEPAY_CHAIN_IDS", K::required, "", "chainwatch without --chain",
     "comma-separated chain ids to follow, one thread each"},
    {"DUEPAY_CHECKOUT_BURST", K::defaulted, "60", "checkout",
     "requests a client may burst above its rate"},
    {"DUEPAY_CHECKOUT_DB_POOL", K::defaulted, "4", "checkout",
     "Postgres connections of the checkout (1..256)"},
    {"DUEPAY_CHECKOUT_LISTEN", K::optional, "the host:port of DUEPAY_CHECKOUT_URL", "checkout",
     "host:port the checkout listens on; --checkout-listen overrides"},
    {"DUEPAY_CHECKOUT_RATE_PER_MINUTE", K::defaulted, "120", "checkout",
     "requests per minute per client"},
    {"DUEPAY_CHECKOUT_THREADS", K::defaulted, "2", "checkout",
     "checkout server threads (1..64); --checkout-threads overrides"},
    {"DUEPAY_CHECKOUT_URL", K::optional, "api: DUEPAY_BASE_URL; checkout: not serving", "api, checkout",
     "public base URL of the hosted checkout (each charge's checkoutUrl)"},
    {"DUEPAY_DASHBOARD_ABSOLUTE_SECONDS", K::defaulted, "43200", "dashboard",
     "a dashboard session ends this long after sign-in (1..604800)"},
    {"DUEPAY_DASHBOARD_DB_POOL", K::defaulted, "4", "dashboard",
     "Postgres connections of the dashboard (1..256); below its threads + 1 pages wait for one "
     "(a warning at start)"},
    {"DUEPAY_DASHBOARD_IDLE_SECONDS", K::defaulted, "1800", "dashboard",
     "a dashboard session ends after this long without a request (1..86400)"},
    {"DUEPAY_DASHBOARD_LISTEN", K::optional, "the host:port of DUEPAY_DASHBOARD_URL", "dashboard",
     "host:port the dashboard listens on; --dashboard-listen overrides"},
    {"DUEPAY_DASHBOARD_MAX_STREAMS", K::defaulted, "2000", "dashboard",
     "charges-list live streams (SSE) one dashboard process holds at once (1..1000000)"},
    {"DUEPAY_DASHBOARD_THREADS", K::defaulted, "2", "dashboard",
     "dashboard server threads (1..64); --dashboard-threads overrides"},
    {"DUEPAY_DASHBOARD_URL", K::defaulted, "http://127.0.0.1:8082", "dashboard",
     "public origin of the dashboard (sign-in messages, cookies, the origin check)"},
    {"DUEPAY_DB_POOL", K::defaulted, "8", "api",
     "Postgres connections of the API (1..256)"},
    {"DUEPAY_DEV_BUYER_KEYS", K::required, "", "simulate-payment",
     "comma-separated dev buyer keys (hex) that pay test charges"},
    {"DUEPAY_FIAT_BUFFER_BPS", K::defaulted, "50", "api",
     "buffer added to fiat-priced token amounts, basis points (0..10000)"},
    {"DUEPAY_FOLLOWER_FETCH_MIN_BYTES", K::defaulted, "1", "webhooks, chainwatch",
     "fetch.min.bytes of the consumers no request waits on (docs/tuning.md)"},
    {"DUEPAY_FOLLOWER_FETCH_WAIT_MS", K::defaulted, "100", "webhooks, chainwatch",
     "fetch.wait.max.ms of the consumers no request waits on (0..60000; docs/tuning.md)"},
    {"DUEPAY_IDEMPOTENCY_LOCK_SECONDS", K::defaulted, "60", "api",
     "how long an Idempotency-Key in flight stays locked (1..3600)"},
    {"DUEPAY_IDEMPOTENCY_PURGE_SECONDS", K::defaulted, "300", "api",
     "interval of the purge of expired idempotency records (1..86400)"},
    {"DUEPAY_KAFKA_<property>", K::optional, "unset: librdkafka's default", "every Kafka client",
     "a librdkafka property: DUEPAY_KAFKA_SECURITY_PROTOCOL is security.protocol (docs/security.md)"},
    {"DUEPAY_LISTEN", K::defaulted, "127.0.0.1:8080", "api, dev",
     "host:port of the API; --listen overrides"},
    {"DUEPAY_LOG_LEVEL", K::defaulted, "info", "every role and tool",
     "debug, info, warn or error (anything else: exit 78)"},
    {"DUEPAY_OPS_LISTEN", K::optional, "unset: no ops listener", "every role",
     "host:port of /metrics /healthz /readyz; --ops-listen overrides"},
    {"DUEPAY_PRODUCER_COMPRESSION", K::defaulted, "lz4", "api, dashboard",
     "compression of the event log producer (librdkafka compression.type)"},
    {"DUEPAY_PRODUCER_LINGER_MS", K::defaulted, "0", "api, dashboard",
     "linger of the event log producer, ms (0..1000; docs/tuning.md)"},
    {"DUEPAY_PRODUCER_MESSAGE_TIMEOUT_MS", K::defaulted, "5000", "api, dashboard",
     "delivery timeout of the event log producer, ms (1000..300000, above the linger; librdkafka "
     "message.timeout.ms): a create unacknowledged this long answers 503 event_log_outcome_unknown"},
    {"DUEPAY_PROJECTOR_FETCH_MIN_BYTES", K::defaulted, "1", "projector",
     "fetch.min.bytes of the projector's consumer (docs/tuning.md)"},
    {"DUEPAY_PROJECTOR_FETCH_WAIT_MS", K::defaulted, "100", "projector",
     "fetch.wait.max.ms of the projector's consumer (0..60000; docs/tuning.md)"},
    {"DUEPAY_PROJECTOR_GROUP", K::defaulted, "duepay-projector", "projector, replay",
     "the projector's consumer group; --group overrides"},
    {"DUEPAY_PROJECTOR_TRACE", K::optional, "unset: off", "projector",
     "1: log every committed batch"},
    {"DUEPAY_RATE_CACHE_TTL_MS", K::defaulted, "10000", "api",
     "how long a read rate is reused, ms (100..600000)"},
    {"DUEPAY_RATE_HTTP_INVERTED", K::defaulted, "0", "api",
     "1: the HTTP rate source quotes the inverse pair"},
    {"DUEPAY_RATE_HTTP_NAME", K::defaulted, "http", "api",
     "the HTTP rate source's name in logs and metrics"},
    {"DUEPAY_RATE_HTTP_PATH", K::required, "", "api with DUEPAY_RATE_HTTP_URL",
     "JSON path of the rate in the HTTP source's answer"},
    {"DUEPAY_RATE_HTTP_URL", K::defaulted, "", "api",
     "an HTTP JSON rate source (empty: on-chain aggregators only)"},
    {"DUEPAY_RATE_MAX_AGE_SECONDS", K::defaulted, "90000", "api",
     "a rate older than this at its source is refused (1..604800)"},
    {"DUEPAY_RATE_MAX_READ_AGE_MS", K::defaulted, "30000", "api",
     "a rate read longer ago than this is refused (1000..3600000)"},
    {"DUEPAY_READY_MAX_LAG", K::defaulted, "1000", "projector, webhooks, chainwatch",
     "/readyz fails while a consumer's summed lag is above this"},
    {"DUEPAY_REFUND_WAIT_SECONDS", K::defaulted, "3600", "chainwatch",
     "a refund transaction not mined this long after its request is rejected"},
    {"DUEPAY_REPORT_PAGE_ROWS", K::defaulted, "1000", "api",
     "rows the settlement report reads a page, one query each (1..100000)"},
    {"DUEPAY_SERVER_SECRET", K::required, "", "admin, dashboard",
     "hex secret (16+ bytes) the test keys are derived from"},
    {"DUEPAY_SIGNER_KEY", K::required, "", "api, checkout, simulate-payment",
     "hex secp256k1 key that signs payment intents (EIP-712)"},
    {"DUEPAY_START_BLOCK_<chainId>", K::defaulted, "0", "chainwatch",
     "first block of a first scan of that chain (no checkpoint yet)"},
    {"DUEPAY_TOPIC", K::defaulted, "duepay.charge-events.v1", "every role, replay, events",
     "the charge-event topic; --topic overrides"},
    {"DUEPAY_WEBHOOKS_GROUP", K::defaulted, "duepay-webhooks", "webhooks",
     "the webhooks role's consumer group; --webhooks-group overrides"},
    {"DUEPAY_WEBHOOK_ALLOW_INSECURE", K::defaulted, "0", "api, webhooks, admin webhook",
     "1: http and loopback endpoints for test mode (dev stack only)"},
    {"DUEPAY_WEBHOOK_DISABLE_AFTER_SECONDS", K::defaulted, "259200", "webhooks",
     "an endpoint failing this long with no success is disabled"},
    {"DUEPAY_WEBHOOK_HOUSEKEEPING_SECONDS", K::defaulted, "60", "webhooks",
     "interval of disabling failing endpoints and purging old attempts"},
    {"DUEPAY_WEBHOOK_MAX_IN_FLIGHT", K::defaulted, "256", "webhooks",
     "webhook requests in flight per process (1..10000)"},
    {"DUEPAY_WEBHOOK_PER_ENDPOINT", K::defaulted, "10", "webhooks",
     "requests in flight per endpoint, across processes (1..1000)"},
    {"DUEPAY_WEBHOOK_RETRY_SCHEDULE", K::defaulted, "", "webhooks",
     "retry delays (empty: the default schedule over 3 days; docs/webhooks.md)"},
    {"KAFKA_BOOTSTRAP", K::required, "", "every role, admin topic, replay, events",
     "host:port list of the Kafka brokers"},
});
// clang-format on

bool is_family(std::string_view name) { return name.ends_with(">"); }

}  // namespace

std::span<const EnvVar> env_table() { return kTable; }

const EnvVar* find_env_var(std::string_view name) {
    for (const auto& v : kTable) {
        if (v.name == name) return &v;
        if (is_family(v.name)) {
            const auto prefix = v.name.substr(0, v.name.find('<'));
            if (name.starts_with(prefix) && name.size() > prefix.size()) return &v;
        }
    }
    return nullptr;
}

static bool read_by(const EnvVar& v, std::string_view role) {
    if (role.empty() || v.roles.find("every role") != std::string_view::npos) return true;
    for (std::size_t at = v.roles.find(role); at != std::string_view::npos;
         at = v.roles.find(role, at + 1)) {
        const bool starts = at == 0 || v.roles[at - 1] == ' ';
        const auto end = at + role.size();
        const bool ends = end == v.roles.size() || v.roles[end] == ',' || v.roles[end] == ' ';
        if (starts && ends) return true;
    }
    return false;
}

std::string env_help(std::string_view role) {
    std::string out =
        "Environment (read once at start; flags override; var/dev.env sets them all):\n";
    for (const auto& v : kTable) {
        if (!read_by(v, role)) continue;
        out.append("  ").append(v.name);
        switch (v.kind) {
            case EnvVar::Kind::required:
                out.append(" (required)");
                break;
            case EnvVar::Kind::defaulted:
                out.append(" (default: ")
                    .append(v.fallback.empty() ? "empty" : v.fallback)
                    .append(")");
                break;
            case EnvVar::Kind::optional:
                out.append(" (").append(v.fallback).append(")");
                break;
        }
        out.append("\n      ").append(v.meaning).append(" [").append(v.roles).append("]\n");
    }
    return out;
}

}  // namespace duepay::infra::config
