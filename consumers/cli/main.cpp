// build/duepay: the composition root. One subcommand per role (DESIGN 1): api, projector, dev (both
// in one process), admin. Configuration comes from the environment (var/dev.env), flags override.
#include <pthread.h>
#include <signal.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <fstream>
#include <iostream>
#include <optional>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "api/http/charges_api.hpp"
#include "api/http/pg_ports.hpp"
#include "api/http/server.hpp"
#include "consumers/cli/admin.hpp"
#include "consumers/roles/chainwatch.hpp"
#include "consumers/roles/projector.hpp"
#include "domain/evm/address.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/random.hpp"
#include "infra/rates/rate_sources.hpp"

namespace {

using namespace duepay;
using infra::config::env_int_or;
using infra::config::env_or;
using infra::config::require_env;

const char* kUsage =
    "usage: duepay <command> [flags]\n"
    "  api         serve the REST API          [--listen host:port] [--threads N]\n"
    "  projector   project charge events       [--topic T] [--group G] [--batch N]\n"
    "  dev         api + projector in one process (threads); same flags as both;\n"
    "              --with-chainwatch also follows every chain of DUEPAY_CHAIN_IDS (make run does)\n"
    "  admin       account tools (duepay admin --help)\n"
    "environment: DATABASE_URL, KAFKA_BOOTSTRAP, DUEPAY_TOPIC (duepay.charge-events.v1),\n"
    "  DUEPAY_CHAINS_FILE, DUEPAY_SIGNER_KEY, DUEPAY_CHECKOUT_URL, DUEPAY_LISTEN (127.0.0.1:8080),\n"
    "  DUEPAY_API_THREADS (2), DUEPAY_PROJECTOR_GROUP (duepay-projector), DUEPAY_ACCESS_LOG (1).\n"
    "  Source var/dev.env (written by infra/dev/stack.sh up) to get them all.\n";

std::atomic<bool> g_stop{false};

std::optional<std::string> flag(const std::vector<std::string>& args, const std::string& name) {
    for (std::size_t i = 0; i + 1 < args.size(); ++i) {
        if (args[i] == name) return args[i + 1];
    }
    return std::nullopt;
}

bool wants_help(const std::vector<std::string>& args) {
    for (const auto& a : args) {
        if (a == "--help" || a == "-h") return true;
    }
    return false;
}

// SIGINT/SIGTERM are blocked in every thread (create this before any other thread) and taken by
// one waiter thread that sets g_stop. The destructor wakes and joins the waiter.
class SignalWaiter {
public:
    SignalWaiter() {
        sigemptyset(&set_);
        sigaddset(&set_, SIGINT);
        sigaddset(&set_, SIGTERM);
        pthread_sigmask(SIG_BLOCK, &set_, nullptr);
        thread_ = std::thread([this] {
            int sig = 0;
            sigwait(&set_, &sig);
            if (!g_stop) std::cerr << "duepay: signal " << sig << ", stopping" << std::endl;
            g_stop = true;
        });
    }
    ~SignalWaiter() {
        if (!g_stop) {
            g_stop = true;
            pthread_kill(thread_.native_handle(), SIGTERM);
        }
        thread_.join();
    }
    SignalWaiter(const SignalWaiter&) = delete;
    SignalWaiter& operator=(const SignalWaiter&) = delete;

private:
    sigset_t set_{};
    std::thread thread_;
};

consumers::ProjectorSettings projector_settings(const std::vector<std::string>& args) {
    consumers::ProjectorSettings s;
    s.bootstrap = require_env("KAFKA_BOOTSTRAP");
    s.database_url = require_env("DATABASE_URL");
    s.topic = flag(args, "--topic").value_or(env_or("DUEPAY_TOPIC", "duepay.charge-events.v1"));
    s.group_id = flag(args, "--group").value_or(env_or("DUEPAY_PROJECTOR_GROUP", "duepay-projector"));
    s.batch_max = static_cast<std::size_t>(std::stoul(flag(args, "--batch").value_or("1000")));
    return s;
}

// Everything the API role owns, built from the environment.
struct ApiRole {
    infra::config::ChainRegistry chains;
    std::optional<infra::crypto::Secp256k1Signer> signer;
    std::unique_ptr<infra::rates::RateSources> rates;  // fiat pricing (docs/pricing.md)
    std::unique_ptr<infra::postgres::ConnectionPool> pool;
    std::unique_ptr<infra::kafka::KafkaEventLog> log;
    std::unique_ptr<api::PgKeyDirectory> keys;
    std::unique_ptr<api::PgChargeReader> reader;
    std::unique_ptr<api::StatusCache> cache;
    std::unique_ptr<api::PgProjectionWaiter> waiter;
    std::unique_ptr<api::PgIdempotencyKeys> idempotency;
    std::unique_ptr<api::PgCreationLimiter> limiter;
    std::unique_ptr<api::ChargesApi> routes;
    std::unique_ptr<api::ApiServer> server;

    explicit ApiRole(const std::vector<std::string>& args) {
        const auto database_url = require_env("DATABASE_URL");
        chains = infra::config::ChainRegistry::load_file(require_env("DUEPAY_CHAINS_FILE"));
        {
            std::ifstream registry(require_env("DUEPAY_CHAINS_FILE"));
            std::stringstream text;
            text << registry.rdbuf();
            rates = std::make_unique<infra::rates::RateSources>(text.str(), infra::rates::rate_settings_from_env());
        }
        auto parsed = infra::crypto::Secp256k1Signer::from_hex(require_env("DUEPAY_SIGNER_KEY"));
        if (!parsed) throw infra::config::ConfigError("DUEPAY_SIGNER_KEY: " + parsed.error().message);
        signer.emplace(std::move(parsed).value());
        const auto threads = std::stoi(flag(args, "--threads").value_or(std::to_string(env_int_or("DUEPAY_API_THREADS", 2, 1, 64))));
        pool = std::make_unique<infra::postgres::ConnectionPool>(
            database_url, static_cast<std::size_t>(env_int_or("DUEPAY_DB_POOL", 8, 1, 256)), [](pqxx::connection& c) {
                infra::postgres::prepare_charge_statements(c);
                infra::postgres::prepare_account_statements(c);
            });
        infra::kafka::ProducerSettings producer;
        producer.bootstrap = require_env("KAFKA_BOOTSTRAP");
        producer.topic = flag(args, "--topic").value_or(env_or("DUEPAY_TOPIC", "duepay.charge-events.v1"));
        log = std::make_unique<infra::kafka::KafkaEventLog>(producer);
        keys = std::make_unique<api::PgKeyDirectory>(*pool);
        reader = std::make_unique<api::PgChargeReader>(*pool);
        cache = std::make_unique<api::StatusCache>(*reader);
        waiter = std::make_unique<api::PgProjectionWaiter>(*pool, database_url, cache.get());
        idempotency = std::make_unique<api::PgIdempotencyKeys>(*pool);
        limiter = std::make_unique<api::PgCreationLimiter>(*pool);
        api::ApiDeps deps;
        deps.keys = keys.get();
        deps.charges = cache.get();
        deps.waiter = waiter.get();
        deps.log = log.get();
        deps.chains = &chains;
        deps.signer = &*signer;
        deps.checkout_url = env_or("DUEPAY_CHECKOUT_URL", env_or("DUEPAY_BASE_URL", "http://127.0.0.1:8080"));
        deps.now_ms = [] {
            return std::chrono::duration_cast<std::chrono::milliseconds>(
                       std::chrono::system_clock::now().time_since_epoch())
                .count();
        };
        deps.new_invoice_id = [] { return domain::InvoiceId{infra::random::random_bytes<32>()}; };
        deps.new_event_id = [] { return api::new_uuid(); };
        deps.rates = &rates->source();
        deps.fiat_buffer_bps = static_cast<unsigned>(env_int_or("DUEPAY_FIAT_BUFFER_BPS", 50, 0, 10000));
        deps.idempotency = idempotency.get();
        deps.limiter = limiter.get();
        routes = std::make_unique<api::ChargesApi>(std::move(deps));
        api::ServerSettings settings;
        settings.listen = flag(args, "--listen").value_or(env_or("DUEPAY_LISTEN", "127.0.0.1:8080"));
        settings.threads = threads;
        settings.access_log = env_or("DUEPAY_ACCESS_LOG", "1") != "0";
        server = std::make_unique<api::ApiServer>(*routes, settings);
        server->start();
        std::cerr << "api: listening on " << settings.listen << " (" << threads << " threads), signer "
                  << domain::evm::to_checksum(signer->address()) << std::endl;
    }

    ~ApiRole() {
        server->shutdown();  // no new requests
        log->flush(std::chrono::milliseconds(6000));  // pending creates get their outcome
    }
};

int run_api(const std::vector<std::string>& args) {
    SignalWaiter signals;
    ApiRole role(args);
    while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    return 0;
}

int run_projector(const std::vector<std::string>& args) {
    auto settings = projector_settings(args);
    SignalWaiter signals;
    return consumers::run_projector(settings, g_stop);
}

int run_dev(const std::vector<std::string>& args) {
    auto settings = projector_settings(args);
    SignalWaiter signals;
    int projector_rc = 0;
    std::thread projector([&] {
        try {
            projector_rc = consumers::run_projector(settings, g_stop);
        } catch (const std::exception& e) {
            std::cerr << "duepay dev: projector: " << e.what() << std::endl;
            projector_rc = 1;
            g_stop = true;
        }
    });
    // Opt-in, so test harnesses that run `duepay dev` on their own topics never take the
    // chains' leader locks from a chainwatch under test.
    std::vector<std::thread> watchers;
    if (std::find(args.begin(), args.end(), "--with-chainwatch") != args.end()) {
        std::stringstream ids(infra::config::require_env("DUEPAY_CHAIN_IDS"));
        for (std::string id; std::getline(ids, id, ',');) {
            auto cw = consumers::chainwatch_settings_from_env(std::stoull(id));
            watchers.emplace_back([cw] {
                try {
                    if (consumers::run_chainwatch(cw, g_stop) != 0) g_stop = true;
                } catch (const std::exception& e) {
                    std::cerr << "duepay dev: chainwatch " << cw.chain_id << ": " << e.what() << std::endl;
                    g_stop = true;
                }
            });
        }
    }
    auto join_all = [&] {
        projector.join();
        for (auto& w : watchers) w.join();
    };
    try {
        ApiRole role(args);
        while (!g_stop) std::this_thread::sleep_for(std::chrono::milliseconds(100));
    } catch (...) {
        g_stop = true;
        join_all();
        throw;
    }
    join_all();
    return projector_rc;
}

}  // namespace

int main(int argc, char** argv) {
    std::vector<std::string> args(argv + 1, argv + argc);
    if (args.empty() || args[0] == "--help" || args[0] == "-h" || args[0] == "help") {
        std::cout << kUsage;
        return args.empty() ? 2 : 0;
    }
    const std::string command = args[0];
    args.erase(args.begin());
    try {
        if (auto rc = consumers::run_chain_command(command, args)) return *rc;  // chainwatch, settle, admin simulate-payment
        if (command == "admin") return consumers::run_admin(args);
        if (wants_help(args)) {
            std::cout << kUsage;
            return 0;
        }
        if (command == "api") return run_api(args);
        if (command == "projector") return run_projector(args);
        if (command == "dev") return run_dev(args);
        std::cerr << "duepay: unknown command '" << command << "'\n" << kUsage;
        return 2;
    } catch (const infra::config::ConfigError& e) {
        std::cerr << "duepay " << command << ": configuration error: " << e.what() << std::endl;
        return 78;  // EX_CONFIG
    } catch (const std::exception& e) {
        std::cerr << "duepay " << command << ": " << e.what() << std::endl;
        return 1;
    }
}
