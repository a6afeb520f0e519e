#include "consumers/roles/checkout.hpp"

#include <chrono>
#include <csignal>
#include <optional>
#include <thread>

#include "api/checkout/checkout_assets.hpp"
#include "api/checkout/checkout_routes.hpp"
#include "api/checkout/checkout_server.hpp"
#include "domain/evm/address.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_changes.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/checkout_reader.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/qr/qr_svg.hpp"
#include "infra/rpc/rpc_chain_heads.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"checkout"};
namespace {

using infra::config::env_int_or;
using infra::config::env_or;
using infra::config::require_env;

}  // namespace

std::string listen_of_url(const std::string& url) {
    auto scheme = url.find("://");
    if (scheme == std::string::npos) return {};
    auto rest = url.substr(scheme + 3);
    auto host = rest.substr(0, rest.find('/'));
    if (host.find(':') == std::string::npos) host += url.rfind("https", 0) == 0 ? ":443" : ":80";
    return host;
}

std::string checkout_listen(const CheckoutOptions& options);

namespace {

// Everything the role owns; members are destroyed in reverse.
struct CheckoutRole {
    infra::config::ChainRegistry chains;
    std::optional<infra::crypto::Secp256k1Signer> signer;
    std::unique_ptr<infra::postgres::ConnectionPool> pool;
    std::unique_ptr<infra::postgres::PgCheckoutReader> reader;
    std::unique_ptr<infra::rpc::RpcChainHeads> heads;
    std::unique_ptr<infra::postgres::PgChargeChanges> changes;
    std::unique_ptr<api::checkout::ClientRateLimiter> limiter;
    std::unique_ptr<api::checkout::CheckoutRoutes> routes;
    std::unique_ptr<api::checkout::CheckoutServer> server;

    explicit CheckoutRole(const CheckoutOptions& options);
    ~CheckoutRole() {
        if (server) server->shutdown();
    }
    CheckoutRole(const CheckoutRole&) = delete;
    CheckoutRole& operator=(const CheckoutRole&) = delete;
};

CheckoutRole::CheckoutRole(const CheckoutOptions& options) {
    auto& p = *this;
    // An SSE stream writes to buyers who may have left: a write to a closed socket must fail with
    // EPIPE, not kill the process with SIGPIPE.
    std::signal(SIGPIPE, SIG_IGN);
    const auto database_url = require_env("DATABASE_URL");
    p.chains = infra::config::ChainRegistry::load_file(require_env("DUEPAY_CHAINS_FILE"));
    auto parsed = infra::crypto::Secp256k1Signer::from_hex(require_env("DUEPAY_SIGNER_KEY"));
    if (!parsed) throw infra::config::ConfigError("DUEPAY_SIGNER_KEY: " + parsed.error().message);
    p.signer.emplace(std::move(parsed).value());
    p.pool = std::make_unique<infra::postgres::ConnectionPool>(
        database_url, static_cast<std::size_t>(env_int_or("DUEPAY_CHECKOUT_DB_POOL", 4, 1, 256)),
        infra::postgres::prepare_api_statements, "checkout");
    p.reader = std::make_unique<infra::postgres::PgCheckoutReader>(*p.pool);
    p.heads = std::make_unique<infra::rpc::RpcChainHeads>(p.chains);
    p.changes = std::make_unique<infra::postgres::PgChargeChanges>(database_url);
    p.limiter = std::make_unique<api::checkout::ClientRateLimiter>(
        static_cast<double>(env_int_or("DUEPAY_CHECKOUT_RATE_PER_MINUTE", 120, 1, 1'000'000)),
        static_cast<double>(env_int_or("DUEPAY_CHECKOUT_BURST", 60, 1, 1'000'000)));
    api::checkout::CheckoutDeps deps;
    deps.reader = p.reader.get();
    deps.heads = p.heads.get();
    deps.chains = &p.chains;
    deps.signer = &*p.signer;
    deps.qr_svg = [](std::string_view text, std::string_view title) {
        return infra::qr::qr_svg(text, title);
    };
    deps.now_ms = [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    deps.limiter = p.limiter.get();
    deps.asset_version = std::string(api::checkout::asset_version());
    p.routes = std::make_unique<api::checkout::CheckoutRoutes>(std::move(deps));

    api::checkout::CheckoutServerSettings settings;
    settings.listen = checkout_listen(options);
    settings.threads = options.threads > 0
                           ? options.threads
                           : static_cast<int>(env_int_or("DUEPAY_CHECKOUT_THREADS", 2, 1, 64));
    settings.access_log = env_or("DUEPAY_ACCESS_LOG", "1") != "0";
    settings.changes = p.changes.get();
    p.server = std::make_unique<api::checkout::CheckoutServer>(*p.routes, settings);
    p.server->start();
    kLog.info() << "checkout: listening on " << settings.listen << " (" << settings.threads
                << " threads)";
}

}  // namespace

std::string checkout_listen(const CheckoutOptions& options) {
    if (!options.listen.empty()) return options.listen;
    std::string fallback = listen_of_url(env_or("DUEPAY_CHECKOUT_URL", ""));
    if (fallback.empty()) fallback = "127.0.0.1:8081";
    return env_or("DUEPAY_CHECKOUT_LISTEN", fallback);
}

int run_checkout(const CheckoutOptions& options, const std::atomic<bool>& stop) {
    std::unique_ptr<CheckoutRole> role;
    if (!options.api_listen.empty() && checkout_listen(options) == options.api_listen) {
        kLog.warn() << "checkout: not serving: DUEPAY_CHECKOUT_URL points at the API's own address "
                    << options.api_listen << "; the other roles go on";
        while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        return 0;
    }
    try {
        role = std::make_unique<CheckoutRole>(options);
    } catch (const infra::config::ConfigError&) {
        throw;
    } catch (const std::exception& e) {
        if (!options.listener_optional) throw;
        kLog.warn() << "checkout: not serving (" << e.what() << "); the other roles go on";
    }
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
}

}  // namespace duepay::consumers
