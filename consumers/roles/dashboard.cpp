#include "consumers/roles/dashboard.hpp"

#include <chrono>
#include <memory>
#include <thread>

#include "api/dashboard/dashboard_assets.hpp"
#include "api/dashboard/dashboard_routes.hpp"
#include "api/dashboard/session_auth.hpp"
#include "api/http/server.hpp"
#include "consumers/roles/checkout.hpp"
#include "domain/hex.hpp"
#include "infra/accounts/pg_dashboard.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/config/producer_env.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_changes.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/postgres/project_stats.hpp"
#include "infra/postgres/settlement_store.hpp"
#include "infra/postgres/webhook_endpoints.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"dashboard"};
namespace {

using infra::config::env_int_or;
using infra::config::env_or;
using infra::config::require_env;

// Everything the role owns; members are destroyed in reverse.
struct DashboardRole {
    std::unique_ptr<infra::postgres::ConnectionPool> pool;
    std::unique_ptr<infra::accounts::PgDashboard> store;
    std::unique_ptr<infra::postgres::PgChargeReader> charges;
    std::unique_ptr<infra::postgres::PgChargeHistory> history;
    std::unique_ptr<infra::postgres::PgChargeChanges> changes;
    std::unique_ptr<api::dashboard::LiveCharges> live;
    std::unique_ptr<infra::postgres::PgProjectStats> stats;
    std::unique_ptr<infra::postgres::PgDashboardWebhooks> webhooks;
    std::unique_ptr<infra::postgres::PgSettlementReports> reports;
    // The exceptions page appends charge.exception_resolved and refund requests (ADR 0230).
    std::unique_ptr<infra::kafka::KafkaEventLog> log;
    std::unique_ptr<api::dashboard::DashboardSessions> sessions;
    std::unique_ptr<api::dashboard::DashboardRoutes> routes;
    std::unique_ptr<api::Pipeline> pipeline;
    std::unique_ptr<api::ApiServer> server;

    explicit DashboardRole(const DashboardOptions& options);
    ~DashboardRole() {
        if (live) live->stop();  // the held list streams end first; their pages reconnect
        if (server) server->shutdown();
        if (log) log->flush(std::chrono::milliseconds(6000));  // pending actions get their outcome
    }
    DashboardRole(const DashboardRole&) = delete;
    DashboardRole& operator=(const DashboardRole&) = delete;
};

DashboardRole::DashboardRole(const DashboardOptions& options) {
    const auto database_url = require_env("DATABASE_URL");
    const auto chains = infra::config::ChainRegistry::load_file(require_env("DUEPAY_CHAINS_FILE"));
    std::string origin = env_or("DUEPAY_DASHBOARD_URL", "http://127.0.0.1:8082");
    while (!origin.empty() && origin.back() == '/') origin.pop_back();

    const int threads = options.threads > 0
                            ? options.threads
                            : static_cast<int>(env_int_or("DUEPAY_DASHBOARD_THREADS", 2, 1, 64));
    const auto pool_size =
        static_cast<std::size_t>(env_int_or("DUEPAY_DASHBOARD_DB_POOL", 4, 1, 256));
    // A page runs on its server thread, which leases one connection at a time for it; the live
    // charges list and a report download's read-ahead lease theirs from other threads. Fewer
    // connections than threads + 1 and pages queue for a lease
    // (duepay_postgres_pool_waits_total{pool="dashboard"}).
    if (pool_size < static_cast<std::size_t>(threads) + 1) {
        kLog.warn() << "dashboard: DUEPAY_DASHBOARD_DB_POOL " << pool_size << " is below the "
                    << threads << " server threads + 1: pages will wait for a connection";
    }
    pool = std::make_unique<infra::postgres::ConnectionPool>(
        database_url, pool_size, infra::accounts::prepare_dashboard_statements, "dashboard");
    // Test keys are derived from the server secret, as `duepay admin key create` does (ADR 0080).
    auto secret = domain::from_hex(require_env("DUEPAY_SERVER_SECRET"));
    if (!secret || secret->size() < 16) {
        throw infra::config::ConfigError("DUEPAY_SERVER_SECRET must be at least 16 bytes of hex");
    }
    store = std::make_unique<infra::accounts::PgDashboard>(*pool, std::move(*secret));

    api::dashboard::SessionSettings session;
    session.origin = origin;
    session.limits.idle_seconds =
        static_cast<int>(env_int_or("DUEPAY_DASHBOARD_IDLE_SECONDS", 1800, 1, 86400));
    session.limits.absolute_seconds =
        static_cast<int>(env_int_or("DUEPAY_DASHBOARD_ABSOLUTE_SECONDS", 43200, 1, 604800));
    sessions = std::make_unique<api::dashboard::DashboardSessions>(*store, session);

    charges = std::make_unique<infra::postgres::PgChargeReader>(*pool);
    history = std::make_unique<infra::postgres::PgChargeHistory>(*pool);
    stats = std::make_unique<infra::postgres::PgProjectStats>(*pool);

    auto now_ms = [] {
        return std::chrono::duration_cast<std::chrono::milliseconds>(
                   std::chrono::system_clock::now().time_since_epoch())
            .count();
    };
    // The charges list's live updates: one LISTEN on the projector's notifications per process.
    changes = std::make_unique<infra::postgres::PgChargeChanges>(database_url);
    api::dashboard::LiveChargesSettings live_settings;
    live_settings.max_streams =
        static_cast<std::size_t>(env_int_or("DUEPAY_DASHBOARD_MAX_STREAMS", 2000, 1, 1000000));
    live =
        std::make_unique<api::dashboard::LiveCharges>(changes.get(), *store, now_ms, live_settings);
    live->start();
    reports = std::make_unique<infra::postgres::PgSettlementReports>(*pool);
    infra::kafka::ProducerSettings producer;
    producer.bootstrap = require_env("KAFKA_BOOTSTRAP");
    producer.topic = env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
    const auto tuning = infra::config::producer_env();  // the API's knobs (docs/operations.md)
    producer.linger_ms = tuning.linger_ms;
    producer.message_timeout_ms = tuning.message_timeout_ms;
    producer.compression = tuning.compression;
    log = std::make_unique<infra::kafka::KafkaEventLog>(producer);

    api::dashboard::DashboardDeps deps;
    deps.store = store.get();
    deps.charges = charges.get();
    deps.charge_reader = charges.get();
    deps.history = history.get();
    deps.stats = stats.get();
    deps.reports = reports.get();
    deps.log = log.get();
    deps.sessions = sessions.get();
    deps.recover = [](const domain::Bytes32& digest, const domain::evm::Signature& signature) {
        return infra::crypto::recover_signer(digest, signature);
    };
    deps.now_ms = now_ms;
    deps.live = live.get();
    // A wallet signs in on whatever chain it is on: Ethereum mainnet or one of ours.
    deps.chain_ids.push_back(domain::ChainId{1});
    for (const auto& c : chains.chains()) {
        if (!c.explorer_url.empty()) deps.explorers[c.chain_id.value] = c.explorer_url;
        if (c.chain_id != domain::ChainId{1}) deps.chain_ids.push_back(c.chain_id);
    }
    deps.api_url = env_or("DUEPAY_BASE_URL", "http://127.0.0.1:8080");
    deps.asset_version = std::string(api::dashboard::asset_version());
    // The webhooks pages: the REST routes' statements and URL rules (DUEPAY_WEBHOOK_ALLOW_INSECURE
    // as the api role reads it).
    webhooks = std::make_unique<infra::postgres::PgDashboardWebhooks>(*pool);
    deps.webhooks = webhooks.get();
    deps.webhook_allow_insecure = env_or("DUEPAY_WEBHOOK_ALLOW_INSECURE", "0") == "1";
    routes = std::make_unique<api::dashboard::DashboardRoutes>(std::move(deps));

    api::RouteTable table;
    routes->add_routes(table);
    pipeline = std::make_unique<api::Pipeline>(
        std::move(table), nullptr, api::dashboard::dashboard_pipeline_settings(), sessions.get());
    api::ServerSettings settings;
    settings.listen = !options.listen.empty()
                          ? options.listen
                          : env_or("DUEPAY_DASHBOARD_LISTEN", listen_of_url(origin));
    settings.threads = threads;
    settings.access_log = env_or("DUEPAY_ACCESS_LOG", "1") != "0";
    server = std::make_unique<api::ApiServer>(*pipeline, settings);
    server->start();
    kLog.info() << "dashboard: listening on " << settings.listen << " (" << origin << ", "
                << settings.threads << " threads)";
}

}  // namespace

int run_dashboard(const DashboardOptions& options, const std::atomic<bool>& stop) {
    std::unique_ptr<DashboardRole> role;
    try {
        role = std::make_unique<DashboardRole>(options);
    } catch (const infra::config::ConfigError&) {
        throw;
    } catch (const std::exception& e) {
        if (!options.listener_optional) throw;
        kLog.warn() << "dashboard: not serving (" << e.what() << "); the other roles go on";
    }
    while (!stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
}

}  // namespace duepay::consumers
