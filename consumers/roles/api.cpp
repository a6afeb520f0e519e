#include "consumers/roles/api.hpp"

#include <chrono>
#include <fstream>
#include <memory>
#include <optional>
#include <sstream>
#include <thread>

#include "api/http/account_api.hpp"
#include "api/http/auth.hpp"
#include "api/http/charges_api.hpp"
#include "api/http/events_api.hpp"
#include "api/http/refunds_api.hpp"
#include "api/http/reports_api.hpp"
#include "api/http/server.hpp"
#include "api/http/status_cache.hpp"
#include "api/http/webhooks_api.hpp"
#include "domain/evm/address.hpp"
#include "infra/accounts/pg_accounts.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/config/producer_env.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/idempotency_store.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/postgres/rate_limiter.hpp"
#include "infra/postgres/settlement_store.hpp"
#include "infra/postgres/webhook_endpoints.hpp"
#include "infra/random/random.hpp"
#include "infra/rates/rate_sources.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"api"};
namespace {

using infra::config::env_int_or;
using infra::config::env_or;
using infra::config::require_env;

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream text;
    text << in.rdbuf();
    return text.str();
}

// Everything the API role owns, built from the environment; members are destroyed in reverse.
struct ApiRole {
    infra::config::ChainRegistry chains;
    std::optional<infra::crypto::Secp256k1Signer> signer;
    std::unique_ptr<infra::rates::RateSources> rates;  // fiat pricing (docs/pricing.md)
    std::unique_ptr<infra::postgres::ConnectionPool> pool;
    std::unique_ptr<infra::kafka::KafkaEventLog> log;
    std::unique_ptr<infra::postgres::PgKeyDirectory> keys;
    std::unique_ptr<api::Authenticator> key_cache;  // the process's one key cache
    std::unique_ptr<infra::postgres::PgChargeReader> reader;
    std::unique_ptr<api::StatusCache> cache;
    std::unique_ptr<infra::postgres::PgProjectionWaiter> waiter;
    std::unique_ptr<infra::postgres::IdempotencyHolder> holder;  // liveness of our keys (ADR 0219)
    std::unique_ptr<infra::postgres::IdempotencyStore> idempotency;
    std::unique_ptr<infra::postgres::RateLimiter> limiter;
    std::unique_ptr<infra::postgres::PgWebhookEndpoints> webhook_endpoints;
    std::unique_ptr<api::WebhooksApi> webhooks;  // /v1/webhook-* (docs/webhooks.md)
    std::unique_ptr<infra::accounts::PgAccounts> accounts;
    std::unique_ptr<api::AccountApi> account;  // key roll, /v1/project, payout wallet
    std::unique_ptr<infra::postgres::PgMerchantEvents> merchant_events;
    std::unique_ptr<api::EventsApi> events;  // /v1/events (docs/events-api.md)
    std::unique_ptr<infra::postgres::PgChargeHistory> history;
    std::unique_ptr<api::RefundsApi> refunds;  // /v1/charges/:id/refunds (docs/refunds.md)
    std::unique_ptr<infra::postgres::PgSettlementReports> settlement_reports;
    std::unique_ptr<api::ReportsApi> reports;  // /v1/reports/settlements (docs/reports.md)
    std::unique_ptr<api::ChargesApi> charges;
    std::unique_ptr<api::Pipeline> pipeline;  // every route of the API, behind one pipeline
    std::unique_ptr<api::ApiServer> server;

    explicit ApiRole(const ApiOptions& options) {
        const auto database_url = require_env("DATABASE_URL");
        const auto chains_file = require_env("DUEPAY_CHAINS_FILE");
        // Before anything connects: a bad producer setting stops the role at once.
        const auto tuning = infra::config::producer_env();  // docs/tuning.md, docs/operations.md
        chains = infra::config::ChainRegistry::load_file(chains_file);
        rates = std::make_unique<infra::rates::RateSources>(read_file(chains_file),
                                                            infra::rates::rate_settings_from_env());
        // Rates are refreshed in the background and read from memory (ADR 0092); give the first
        // round a bounded head start so the first fiat create after start finds them.
        if (!rates->wait_first_round(std::chrono::seconds(5))) {
            kLog.warn() << "api: rates not all read within 5 s of start; fiat creates answer "
                           "rate_unavailable until they are";
        }
        auto parsed = infra::crypto::Secp256k1Signer::from_hex(require_env("DUEPAY_SIGNER_KEY"));
        if (!parsed) {
            throw infra::config::ConfigError("DUEPAY_SIGNER_KEY: " + parsed.error().message);
        }
        signer.emplace(std::move(parsed).value());
        const int threads =
            options.threads > 0
                ? options.threads
                : static_cast<int>(env_int_or("DUEPAY_API_THREADS", 2, 1, 64));  // 1 to 64 fits
        const auto pool_size = static_cast<std::size_t>(env_int_or("DUEPAY_DB_POOL", 8, 1, 256));
        pool = std::make_unique<infra::postgres::ConnectionPool>(
            database_url, pool_size, infra::postgres::prepare_api_statements, "api");
        infra::kafka::ProducerSettings producer;
        producer.bootstrap = require_env("KAFKA_BOOTSTRAP");
        producer.topic = !options.topic.empty() ? options.topic
                                                : env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
        producer.linger_ms = tuning.linger_ms;
        producer.message_timeout_ms = tuning.message_timeout_ms;
        producer.compression = tuning.compression;
        log = std::make_unique<infra::kafka::KafkaEventLog>(producer);
        keys = std::make_unique<infra::postgres::PgKeyDirectory>(*pool);
        key_cache = std::make_unique<api::Authenticator>(*keys);
        reader = std::make_unique<infra::postgres::PgChargeReader>(*pool);
        cache = std::make_unique<api::StatusCache>(*reader);
        auto* status_cache = cache.get();
        waiter = std::make_unique<infra::postgres::PgProjectionWaiter>(
            *pool, database_url,
            infra::postgres::PgProjectionWaiter::Hooks{
                [status_cache](const std::string& id) { status_cache->invalidate(id); },
                [status_cache] { status_cache->clear(); }});
        infra::postgres::IdempotencySettings idempotency_settings;
        idempotency_settings.lock_timeout =
            std::chrono::seconds(env_int_or("DUEPAY_IDEMPOTENCY_LOCK_SECONDS", 60, 1, 3600));
        holder = std::make_unique<infra::postgres::IdempotencyHolder>(database_url);
        holder->maintain();  // before the first request; the loop keeps it (run_api)
        idempotency = std::make_unique<infra::postgres::IdempotencyStore>(
            *pool, idempotency_settings, holder.get());
        limiter = std::make_unique<infra::postgres::RateLimiter>(*pool);
        api::ApiDeps deps;
        deps.charges = cache.get();
        deps.lister = reader.get();
        deps.waiter = waiter.get();
        deps.log = log.get();
        deps.chains = &chains;
        deps.signer = &*signer;
        deps.checkout_url =
            env_or("DUEPAY_CHECKOUT_URL", env_or("DUEPAY_BASE_URL", "http://127.0.0.1:8080"));
        deps.now_ms = [] {
            return std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                .count();
        };
        deps.new_invoice_id = [] { return domain::InvoiceId{infra::random::random_bytes<32>()}; };
        deps.new_event_id = [] { return api::new_uuid(); };
        deps.rates = &rates->source();
        deps.fiat_buffer_bps =
            static_cast<unsigned>(env_int_or("DUEPAY_FIAT_BUFFER_BPS", 50, 0, 10000));
        deps.idempotency = idempotency.get();
        deps.limiter = limiter.get();
        api::WebhooksApiDeps webhook_deps;
        webhook_endpoints = std::make_unique<infra::postgres::PgWebhookEndpoints>(*pool);
        webhook_deps.endpoints = webhook_endpoints.get();
        webhook_deps.allow_insecure = env_or("DUEPAY_WEBHOOK_ALLOW_INSECURE", "0") == "1";
        webhook_deps.now_ms = deps.now_ms;
        webhooks = std::make_unique<api::WebhooksApi>(std::move(webhook_deps));
        accounts = std::make_unique<infra::accounts::PgAccounts>(*pool);
        account =
            std::make_unique<api::AccountApi>(api::AccountApiDeps{accounts.get(), key_cache.get()});
        merchant_events = std::make_unique<infra::postgres::PgMerchantEvents>(*pool);
        events = std::make_unique<api::EventsApi>(api::EventsApiDeps{merchant_events.get()});
        history = std::make_unique<infra::postgres::PgChargeHistory>(*pool);
        refunds = std::make_unique<api::RefundsApi>(
            api::RefundsApiDeps{reader.get(), history.get(), log.get(), idempotency.get(),
                                deps.now_ms, deps.retry_after_ms});
        settlement_reports = std::make_unique<infra::postgres::PgSettlementReports>(*pool);
        reports = std::make_unique<api::ReportsApi>(api::ReportsApiDeps{
            settlement_reports.get(),
            static_cast<std::size_t>(env_int_or("DUEPAY_REPORT_PAGE_ROWS", 1000, 1, 100000))});
        api::PipelineSettings pipeline_settings;
        pipeline_settings.retry_after_ms = deps.retry_after_ms;
        charges = std::make_unique<api::ChargesApi>(std::move(deps));
        pipeline = std::make_unique<api::Pipeline>(
            api::api_routes({*charges, *webhooks, *account, *events, *refunds, *reports}),
            key_cache.get(), std::move(pipeline_settings));
        api::ServerSettings settings;
        settings.listen =
            !options.listen.empty() ? options.listen : env_or("DUEPAY_LISTEN", "127.0.0.1:8080");
        settings.threads = threads;
        settings.access_log = env_or("DUEPAY_ACCESS_LOG", "1") != "0";
        server = std::make_unique<api::ApiServer>(*pipeline, settings);
        server->start();
        kLog.info() << "api: listening on " << settings.listen << " (" << threads
                    << " threads), signer " << domain::evm::to_checksum(signer->address());
    }

    // Deletes expired Idempotency-Keys, a bounded batch at a time (docs/limits.md); called by the
    // role's own loop thread, never a reactor thread. A database outage is logged and retried
    // at the next period.
    void purge_idempotency_keys() {
        constexpr int kBatch = 5000;
        constexpr int kMaxBatches = 20;
        try {
            std::int64_t total = 0;
            for (int i = 0; i < kMaxBatches; ++i) {
                const auto n = idempotency->purge_expired(kBatch);
                total += n;
                if (n < kBatch) break;
            }
            if (total > 0) kLog.info() << "api: purged " << total << " expired idempotency keys";
        } catch (const std::exception& e) {
            kLog.warn() << "api: idempotency purge failed (retried next period): " << e.what();
        }
    }

    ~ApiRole() {
        server->shutdown();                           // no new requests
        log->flush(std::chrono::milliseconds(6000));  // pending creates get their outcome
    }

    ApiRole(const ApiRole&) = delete;
    ApiRole& operator=(const ApiRole&) = delete;
};

}  // namespace

int run_api(const ApiOptions& options, const std::atomic<bool>& stop) {
    ApiRole role(options);
    const auto period =
        std::chrono::seconds(env_int_or("DUEPAY_IDEMPOTENCY_PURGE_SECONDS", 300, 1, 86400));
    auto next_purge = std::chrono::steady_clock::now();  // once at start, then every period
    auto next_holder_check = std::chrono::steady_clock::now() + std::chrono::seconds(1);
    while (!stop) {
        if (std::chrono::steady_clock::now() >= next_holder_check) {
            role.holder->maintain();  // reopens the holder session after a database outage
            next_holder_check = std::chrono::steady_clock::now() + std::chrono::seconds(1);
        }
        if (std::chrono::steady_clock::now() >= next_purge) {
            role.purge_idempotency_keys();
            next_purge = std::chrono::steady_clock::now() + period;
        }
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    return 0;
}

}  // namespace duepay::consumers
