#include "consumers/roles/chainwatch.hpp"

#include <chrono>
#include <map>
#include <sstream>
#include <thread>

#include "consumers/roles/chain_follower.hpp"
#include "consumers/roles/consumer_loop.hpp"
#include "domain/events/event_json.hpp"
#include "domain/url.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/log/log.hpp"
#include "infra/metrics/metrics.hpp"
#include "infra/postgres/chainwatch_store.hpp"
#include "infra/postgres/quarantine_store.hpp"
#include "infra/rpc/rpc_client.hpp"

namespace duepay::consumers {

constexpr infra::log::Logger kLog{"chainwatch"};
namespace {

using namespace duepay::domain;
using namespace duepay::domain::events;

// An event chainwatch cannot learn from goes to the quarantine (ADR 0043) and is passed over. The
// topic is re-read at every start, so if the quarantine write fails the event is met again then.
void quarantine(infra::postgres::QuarantineWriter& writer, const std::string& group,
                const infra::kafka::ConsumedMessage& m, const std::string& error) {
    try {
        writer.record({group, m.topic, m.partition, m.offset, m.key, m.value, error});
    } catch (const std::exception& e) {
        kLog.error() << "chainwatch: cannot quarantine " << m.topic << "/" << m.partition << "@"
                     << m.offset << " (" << e.what() << "); passed over until the next start";
    }
}

// Applies what the consumer has; returns the number of messages read.
std::size_t drain(infra::kafka::KafkaConsumer& consumer, detail::ChainFollower& watch,
                  infra::postgres::QuarantineWriter& quarantined, const std::string& group,
                  std::chrono::milliseconds timeout) {
    std::size_t n = 0;
    for (;;) {
        auto batch = consumer.poll_batch(5000, timeout);
        if (batch.empty()) return n;
        for (const auto& m : batch) {
            auto e = decode_event(m.value);
            if (!e) {
                quarantine(quarantined, group, m, e.error().message);
                continue;
            }
            watch.learn(*e);
        }
        n += batch.size();
        timeout = std::chrono::milliseconds(0);
    }
}

}  // namespace

int run_chainwatch(const ChainwatchSettings& settings, const std::atomic<bool>& stop) {
    const auto registry = infra::config::ChainRegistry::load_file(settings.chains_file);
    const auto* chain = registry.find(ChainId{settings.chain_id});
    if (chain == nullptr) {
        kLog.error() << "chainwatch: chain " << settings.chain_id << " is not in "
                     << settings.chains_file;
        return 2;
    }
    // Leadership: one chainwatch per chain. The lock lives as long as its connection.
    infra::postgres::ChainLeaderLock leader(settings.database_url, settings.chain_id);
    auto& is_leader = infra::metrics::registry().gauge(
        "duepay_chainwatch_leader", "1 while this process leads the chain, 0 as standby",
        {{"chain", std::to_string(settings.chain_id)}});
    is_leader.set(0);
    struct NotLeaderOnExit {
        infra::metrics::Gauge& g;
        ~NotLeaderOnExit() { g.set(0); }
    } not_leader_on_exit{is_leader};
    for (bool announced = false;;) {
        if (leader.try_acquire()) break;
        if (!announced)
            kLog.info() << "chainwatch " << settings.chain_id
                        << ": standby (another leader holds the lock)";
        announced = true;
        for (int i = 0; i < 10 && !stop; ++i)
            std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (stop) return 0;
    }
    is_leader.set(1);
    kLog.info() << "chainwatch " << settings.chain_id << ": leader, rpc "
                << domain::redact_url(chain->rpc_url) << ", " << chain->confirmations
                << " confirmations";

    infra::postgres::ChainCheckpointStore checkpoints(settings.database_url);
    infra::kafka::KafkaEventLog log(
        infra::kafka::ProducerSettings{settings.bootstrap, settings.topic});
    infra::rpc::RpcClient node(infra::rpc::RpcSettings{chain->rpc_url});
    detail::ChainFollower watch(settings, *chain, checkpoints, log, node);
    infra::postgres::QuarantineWriter quarantined(settings.database_url);
    // No stored offsets: every start replays the topic from the beginning (the charges of this
    // chain are rebuilt in memory; docs/chainwatch.md says why this is fine at dev scale).
    infra::kafka::ConsumerSettings consumer_settings{
        settings.bootstrap, settings.group_id, settings.topic,
        "duepay-chainwatch-" + std::to_string(settings.chain_id)};
    consumer_settings.ready_max_lag = settings.ready_max_lag;
    tune_follower_fetch(consumer_settings);
    infra::kafka::KafkaConsumer consumer(consumer_settings,
                                         [](const std::string&, const std::vector<std::int32_t>&) {
                                             return std::map<std::int32_t, std::int64_t>{};
                                         });
    // Catch up with the topic before touching the chain, so decisions see every earlier fact.
    const auto catchup_started = std::chrono::steady_clock::now();
    while (!stop && consumer.assignment().empty() &&
           std::chrono::steady_clock::now() - catchup_started < std::chrono::seconds(30)) {
        drain(consumer, watch, quarantined, settings.group_id, std::chrono::milliseconds(200));
    }
    for (int quiet = 0; !stop && quiet < 3;) {
        quiet = drain(consumer, watch, quarantined, settings.group_id,
                      std::chrono::milliseconds(300)) == 0
                    ? quiet + 1
                    : 0;
    }
    kLog.info() << "chainwatch " << settings.chain_id << ": caught up, " << watch.charges()
                << " charges of this chain";

    int backoff_ms = 200;
    bool loaded = false;
    auto last_lock_check = std::chrono::steady_clock::now();
    while (!stop) {
        // The advisory lock lives with its connection: if that is gone, so is leadership.
        if (std::chrono::steady_clock::now() - last_lock_check > std::chrono::seconds(5)) {
            if (!leader.alive()) {
                kLog.error() << "chainwatch " << settings.chain_id
                             << ": lost the leader connection; exiting";
                return 1;
            }
            last_lock_check = std::chrono::steady_clock::now();
        }
        try {
            if (!loaded) {
                watch.load_checkpoint();
                loaded = true;
            }
            drain(consumer, watch, quarantined, settings.group_id, std::chrono::milliseconds(0));
            if (watch.take_rewind()) consumer.rewind_to_stored();  // from the beginning
            if (!watch.step())
                drain(consumer, watch, quarantined, settings.group_id,
                      std::chrono::milliseconds(settings.poll_ms));
            backoff_ms = 200;
        } catch (const infra::rpc::RpcError& e) {
            if (!e.retryable()) {
                // The node refuses what we ask (or is no node): retrying cannot help, and this
                // chain alone is affected. Stop this chainwatch; in `duepay dev` the other roles
                // keep running (docs/chainwatch.md).
                kLog.error() << "chainwatch " << settings.chain_id << ": rpc error that a retry "
                             << "cannot fix: " << e.what() << "; this chainwatch stops";
                consumer.close();
                return kRpcRefused;
            }
            kLog.warn() << "chainwatch " << settings.chain_id << ": rpc: " << e.what()
                        << "; retrying";
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
            backoff_ms = std::min(backoff_ms * 2, 5000);
        } catch (const std::exception& e) {
            // Kafka or Postgres failed mid-round: nothing past the checkpoint is trusted. Exit; the
            // next run (supervisor or standby) resumes from the checkpoint, and re-emissions carry
            // the same ids, which evolve and the projector ignore.
            kLog.error() << "chainwatch " << settings.chain_id << ": " << e.what()
                         << "; exiting (the next leader resumes from the checkpoint)";
            return 1;
        }
    }
    consumer.close();
    log.flush(std::chrono::milliseconds(5000));
    kLog.info() << "chainwatch " << settings.chain_id << ": stopped, " << watch.emitted()
                << " events emitted";
    return 0;
}

ChainwatchSettings chainwatch_settings_from_env(std::uint64_t chain_id) {
    ChainwatchSettings s;
    s.chain_id = chain_id;
    s.bootstrap = infra::config::require_env("KAFKA_BOOTSTRAP");
    s.database_url = infra::config::require_env("DATABASE_URL");
    s.topic = infra::config::env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
    s.group_id = "duepay-chainwatch-" + std::to_string(chain_id);
    s.chains_file = infra::config::require_env("DUEPAY_CHAINS_FILE");
    const std::string start_var = "DUEPAY_START_BLOCK_" + std::to_string(chain_id);
    s.start_block =
        static_cast<std::uint64_t>(infra::config::env_int_or(start_var.c_str(), 0, 0, 1LL << 62));
    s.max_range = static_cast<std::uint64_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_RANGE", 500, 1, 100000));
    s.topic_chunk = static_cast<std::size_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_TOPIC_CHUNK", 200, 1, 10000));
    s.topic_filter_max = static_cast<std::size_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_TOPIC_FILTER_MAX", 1000, 0, 1'000'000));
    s.transfer_span = static_cast<std::uint64_t>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_TRANSFER_SPAN", 10, 1, 100000));
    s.retain_seconds = static_cast<std::uint64_t>(infra::config::env_int_or(
        "DUEPAY_CHAINWATCH_RETAIN_SECONDS", 7LL * 24 * 3600, 0, 10LL * 365 * 24 * 3600));
    s.refund_wait_seconds =
        infra::config::env_int_or("DUEPAY_REFUND_WAIT_SECONDS", 3600, 1, 30LL * 24 * 3600);
    s.poll_ms = static_cast<int>(
        infra::config::env_int_or("DUEPAY_CHAINWATCH_POLL_MS", s.poll_ms, 10, 10000));
    s.trace = infra::config::env_is_set("DUEPAY_CHAINWATCH_TRACE");
    s.ready_max_lag = infra::config::env_int_or("DUEPAY_READY_MAX_LAG", 1000, 0, 1'000'000'000);
    return s;
}

std::vector<std::uint64_t> chain_ids_from_env() {
    std::vector<std::uint64_t> ids;
    std::stringstream text(infra::config::require_env("DUEPAY_CHAIN_IDS"));
    for (std::string id; std::getline(text, id, ',');) {
        try {
            ids.push_back(std::stoull(id));
        } catch (const std::exception&) {
            throw infra::config::ConfigError("DUEPAY_CHAIN_IDS: not a chain id: '" + id + "'");
        }
    }
    return ids;
}

}  // namespace duepay::consumers
