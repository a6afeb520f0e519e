#include "consumers/roles/chainwatch.hpp"

#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <iostream>
#include <map>
#include <mutex>
#include <sstream>
#include <thread>
#include <unordered_map>

#include <pqxx/pqxx>

#include "domain/charge/charge_state.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event_id.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/abi.hpp"
#include "domain/hex.hpp"
#include "domain/url.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/kafka_consumer.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/rpc/rpc_client.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers {
namespace {

using namespace duepay::domain;
using namespace duepay::domain::events;
namespace charge = duepay::domain::charge;
using infra::rpc::BlockHeader;
using infra::rpc::Log;

constexpr int kLockClass = 0x6477;  // pg_advisory_lock(int, int): (this role, chain id)

std::string now_rfc3339() {
    const auto now = std::chrono::system_clock::now();
    const auto ms = std::chrono::duration_cast<std::chrono::milliseconds>(now.time_since_epoch()).count();
    const std::time_t secs = static_cast<std::time_t>(ms / 1000);
    std::tm tm{};
    gmtime_r(&secs, &tm);
    char buf[96];
    std::snprintf(buf, sizeof buf, "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday,
                  tm.tm_hour, tm.tm_min, tm.tm_sec, static_cast<int>(ms % 1000));
    return buf;
}

std::string key_of(const Address& a) { return std::string(a.bytes.begin(), a.bytes.end()); }

Address address_in_word(const Bytes32& w) {
    Address a;
    std::copy(w.begin() + 12, w.end(), a.bytes.begin());
    return a;
}

Bytes32 word_at(const Bytes& data, std::size_t index) {
    Bytes32 w{};
    if (data.size() >= 32 * (index + 1)) std::copy(data.begin() + 32 * index, data.begin() + 32 * (index + 1), w.begin());
    return w;
}

// Everything chainwatch knows about one charge of its chain: the envelope of its charge.created
// (the ids of the facts it appends) and its folded state (what decide judges by).
struct Tracked {
    Event created_envelope;
    charge::ChargeState state;
};

enum class MatchKind { wallet, transfer, settled };

struct Match {
    MatchKind kind = MatchKind::transfer;
    std::string invoice;  // 0x hex
    Payment payment;      // wallet / transfer
    ChargeSettled settled;
};

struct SeenBlock {
    BlockHeader header;
    std::vector<Match> matches;
};

// Waits for the broker's verdict on every append of a batch.
class Acks {
public:
    void expect() {
        std::lock_guard lock(mutex_);
        ++pending_;
    }
    void done(const infra::kafka::AppendResult& r) {
        std::lock_guard lock(mutex_);
        --pending_;
        if (!r.ok() && error_.empty()) error_ = r.error.empty() ? "append not persisted" : r.error;
        cv_.notify_all();
    }
    // Throws when an append failed: nothing after it may be checkpointed.
    void wait() {
        std::unique_lock lock(mutex_);
        cv_.wait(lock, [&] { return pending_ == 0; });
        if (!error_.empty()) {
            auto e = error_;
            error_.clear();
            throw std::runtime_error("kafka append failed: " + e);
        }
    }

private:
    std::mutex mutex_;
    std::condition_variable cv_;
    int pending_ = 0;
    std::string error_;
};

class Chainwatch {
public:
    Chainwatch(const ChainwatchSettings& s, const infra::config::ChainInfo& chain, pqxx::connection& db,
               infra::kafka::EventLog& log)
        : s_(s), chain_(chain), db_(db), log_(log), rpc_(infra::rpc::RpcSettings{chain.rpc_url}) {
        for (const auto& t : chain.tokens) token_addresses_.push_back(t.address);
    }

    // Folds one event of the topic into the known charges.
    void learn(const Event& e) {
        if (e.chain_id.value != s_.chain_id) return;
        const auto id = to_hex(e.invoice_id);
        if (const auto* created = std::get_if<ChargeCreated>(&e.data)) {
            if (charges_.contains(id)) return;
            Tracked t{e, charge::initial_state()};
            charge::apply(t.state, e);
            if (created->deposit_address) by_deposit_[key_of(*created->deposit_address)] = id;
            expiries_.emplace(charge::expiry_limit(t.state), id);
            charges_.emplace(id, std::move(t));
            ++learnt_;
            return;
        }
        auto it = charges_.find(id);
        if (it != charges_.end()) charge::apply(it->second.state, e);
    }

    std::size_t charges() const { return charges_.size(); }
    std::size_t learnt() const { return learnt_; }
    std::uint64_t emitted() const { return emitted_; }

    void load_checkpoint() {
        pqxx::read_transaction tx(db_);
        auto r = tx.exec_params("select block_number, block_hash from chainwatch_checkpoints where chain_id = $1",
                                static_cast<std::int64_t>(s_.chain_id));
        if (r.empty()) {
            reset_to_start("no checkpoint yet");
            return;
        }
        checkpoint_.number = static_cast<std::uint64_t>(r[0][0].as<std::int64_t>());
        checkpoint_.hash = *from_hex_fixed<32>(r[0][1].as<std::string>());
        auto canonical = rpc_.block_by_number(checkpoint_.number);
        if (!canonical || canonical->hash != checkpoint_.hash) {
            reset_to_start("checkpoint block " + std::to_string(checkpoint_.number) +
                           " is no longer on the chain (node restarted or deep reorg)");
        } else {
            std::cerr << "chainwatch " << s_.chain_id << ": resuming after block " << checkpoint_.number << std::endl;
        }
    }

    // One round: extend to the head, confirm what reached depth, checkpoint. Returns true when it
    // did work (the caller then polls again at once).
    bool step() {
        const auto started = std::chrono::steady_clock::now();
        const std::uint64_t head = rpc_.block_number();
        const std::uint64_t next = window_.empty() ? checkpoint_.number + 1 : window_.back().header.number + 1;
        if (next > head) return false;
        const std::uint64_t to = std::min(head, next + s_.max_range - 1);
        std::vector<BlockHeader> headers;
        Bytes32 prev = window_.empty() ? checkpoint_.hash : window_.back().header.hash;
        for (std::uint64_t n = next; n <= to; ++n) {
            auto h = rpc_.block_by_number(n);
            if (!h) break;
            if (h->parent_hash != prev) {
                if (headers.empty()) {
                    handle_reorg();
                    flush_and_checkpoint();
                    return true;
                }
                break;  // the chain moved under us mid-range: take what links up, retry the rest
            }
            prev = h->hash;
            headers.push_back(*h);
        }
        if (headers.empty()) return false;
        const std::uint64_t last = headers.back().number;
        const auto emitted_before = emitted_;
        auto matches = scan(next, last, headers);
        if (!matches) return true;  // logs of a block we did not fetch: a reorg is in progress
        std::size_t matched = 0;
        for (const auto& [n, v] : *matches) matched += v.size();
        for (auto& h : headers) {
            SeenBlock b{h, std::move((*matches)[h.number])};
            const bool deep = head - h.number + 1 >= chain_.confirmations;
            if (!deep) detect(b, head - h.number + 1);
            window_.push_back(std::move(b));
        }
        confirm_up_to(head);
        flush_and_checkpoint();
        if (trace_ || last - next >= 10 || matched >= 100) {  // backfills and big ranges report their pace
            std::cerr << "chainwatch " << s_.chain_id << ": blocks " << next << ".." << last << ", " << scanned_logs_
                      << " logs, " << matched << " matched, " << emitted_ - emitted_before << " events in "
                      << std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - started).count()
                      << " ms (" << charges_.size() << " charges)" << std::endl;
        }
        return true;
    }

private:
    struct Checkpoint {
        std::uint64_t number = 0;
        Bytes32 hash{};
    };

    void reset_to_start(const std::string& why) {
        const std::uint64_t start = s_.start_block > 0 ? s_.start_block - 1 : 0;
        auto h = rpc_.block_by_number(start);
        if (!h) throw infra::rpc::RpcError("start block " + std::to_string(start) + " not found", true);
        checkpoint_ = {h->number, h->hash};
        window_.clear();
        std::cerr << "chainwatch " << s_.chain_id << ": " << why << "; scanning from block " << start + 1 << std::endl;
    }

    // Logs of [from, to] grouped by block; nullopt when a log names a block hash we did not fetch.
    std::optional<std::map<std::uint64_t, std::vector<Match>>> scan(std::uint64_t from, std::uint64_t to,
                                                                    const std::vector<BlockHeader>& headers) {
        std::map<std::uint64_t, std::vector<Match>> out;
        auto hash_of = [&](std::uint64_t n) { return headers[n - from].hash; };
        std::vector<Log> logs;
        auto add = [&](std::vector<Address> addresses, const Bytes32& topic) {
            infra::rpc::LogFilter f;
            f.from_block = from;
            f.to_block = to;
            f.addresses = std::move(addresses);
            f.topics = {{topic}};
            auto got = rpc_.get_logs(f);
            logs.insert(logs.end(), std::make_move_iterator(got.begin()), std::make_move_iterator(got.end()));
        };
        add({chain_.router}, infra::rpc::invoice_paid_topic());
        add(token_addresses_, infra::rpc::transfer_topic());
        add({chain_.deposit_factory}, infra::rpc::settled_topic());
        scanned_logs_ = logs.size();
        for (const auto& l : logs) {
            if (l.removed) continue;
            if (l.block_number < from || l.block_number > to || l.block_hash != hash_of(l.block_number)) {
                return std::nullopt;
            }
            if (auto m = match(l)) out[l.block_number].push_back(std::move(*m));
        }
        for (auto& [n, v] : out) {
            std::sort(v.begin(), v.end(), [](const Match& a, const Match& b) {
                return a.payment.log_index < b.payment.log_index;
            });
        }
        return out;
    }

    std::optional<Match> match(const Log& l) {
        if (l.topics.empty()) return std::nullopt;
        Match m;
        m.payment.tx_hash = l.tx_hash;
        m.payment.log_index = l.log_index;
        m.payment.block_number = l.block_number;
        m.payment.block_hash = l.block_hash;
        const auto& sig = l.topics[0];
        if (sig == infra::rpc::invoice_paid_topic() && l.topics.size() == 4 && l.address == chain_.router) {
            m.invoice = to_hex(l.topics[1]);
            if (!charges_.contains(m.invoice)) return std::nullopt;
            m.kind = MatchKind::wallet;
            m.payment.rail = Rail::wallet;
            m.payment.from = address_in_word(l.topics[2]);
            m.payment.token = address_in_word(word_at(l.data, 0));
            m.payment.amount = TokenAmount{evm::abi_uint256(word_at(l.data, 1))};
            return m;
        }
        if (sig == infra::rpc::transfer_topic() && l.topics.size() == 3) {
            auto it = by_deposit_.find(key_of(address_in_word(l.topics[2])));
            if (it == by_deposit_.end()) return std::nullopt;
            m.invoice = it->second;
            m.kind = MatchKind::transfer;
            m.payment.rail = Rail::transfer;
            m.payment.from = address_in_word(l.topics[1]);
            m.payment.token = l.address;
            m.payment.amount = TokenAmount{evm::abi_uint256(word_at(l.data, 0))};
            return m;
        }
        if (sig == infra::rpc::settled_topic() && l.topics.size() == 3 && l.address == chain_.deposit_factory) {
            m.invoice = to_hex(l.topics[1]);
            if (!charges_.contains(m.invoice)) return std::nullopt;
            m.kind = MatchKind::settled;
            m.settled.tx_hash = l.tx_hash;
            m.settled.block_number = l.block_number;
            m.settled.deposit_address = address_in_word(l.topics[2]);
            m.settled.token = address_in_word(word_at(l.data, 0));
            m.settled.amount = TokenAmount{evm::abi_uint256(word_at(l.data, 1))};
            return m;
        }
        return std::nullopt;
    }

    charge::ObservePayment observation(const Match& m, const BlockHeader& h,
                                       std::uint64_t depth) const {
        return charge::ObservePayment{m.payment, h.timestamp, depth, chain_.confirmations};
    }

    // Below depth: what decide makes of each payment of a fetched block (a detection).
    void detect(const SeenBlock& b, std::uint64_t depth) {
        for (const auto& m : b.matches) {
            if (m.kind != MatchKind::settled) decide(m.invoice, observation(m, b.header, depth));
        }
    }

    void confirm_up_to(std::uint64_t head) {
        while (!window_.empty() && head - window_.front().header.number + 1 >= chain_.confirmations) {
            const auto& b = window_.front();
            expire_before(b.header);
            for (const auto& m : b.matches) {
                if (m.kind == MatchKind::settled) {
                    decide(m.invoice, charge::ObserveSettlement{m.settled}, m.payment.log_index);
                } else {
                    decide(m.invoice, observation(m, b.header, head - b.header.number + 1));
                }
            }
            checkpoint_ = {b.header.number, b.header.hash};
            window_.pop_front();
        }
    }

    // Chain time reached a charge's limit in this block (every earlier block is confirmed
    // already): decide whether it expires. The multimap only finds the candidates.
    void expire_before(const BlockHeader& h) {
        while (!expiries_.empty() && expiries_.begin()->first < h.timestamp) {
            const auto id = expiries_.begin()->second;
            expiries_.erase(expiries_.begin());
            decide(id, charge::ObserveBlock{h.number, h.timestamp});
        }
    }

    // Walks back the unconfirmed window to the fork point, withdrawing the detections of orphaned
    // blocks. If the fork is below the checkpoint (deeper than the confirmation depth, or a dev
    // node restarted at genesis) the checkpoint cannot be trusted: rescan from the start block.
    void handle_reorg() {
        while (!window_.empty()) {
            auto canonical = rpc_.block_by_number(window_.back().header.number);
            if (canonical && canonical->hash == window_.back().header.hash) return;
            const auto& b = window_.back();
            std::cerr << "chainwatch " << s_.chain_id << ": block " << b.header.number << " "
                      << to_hex(b.header.hash) << " left the chain" << std::endl;
            for (const auto& m : b.matches) {
                if (m.kind == MatchKind::settled) continue;
                decide(m.invoice, charge::ObserveReorg{m.payment.tx_hash, m.payment.log_index,
                                                       m.payment.block_number, b.header.hash});
            }
            window_.pop_back();
        }
        auto canonical = rpc_.block_by_number(checkpoint_.number);
        if (!canonical || canonical->hash != checkpoint_.hash) {
            reset_to_start("reorg below the checkpoint (block " + std::to_string(checkpoint_.number) + ")");
        }
    }

    // Appends what decide makes of `command` for one charge, each event applied to the charge's
    // state as it is appended. `log_index` names a settlement's log (its fact id).
    void decide(const std::string& invoice, const charge::Command& command,
                std::uint32_t log_index = 0) {
        auto& t = charges_.at(invoice);
        auto events = charge::decide(t.state, command);
        if (!events) {
            std::cerr << "chainwatch " << s_.chain_id << ": " << invoice << ": "
                      << events.error().message << std::endl;
            return;
        }
        for (auto& data : *events) emit(t, invoice, std::move(data), log_index);
    }

    // The deterministic id of a chain fact (chain_fact_id): re-emissions are duplicates.
    std::string fact_id(const Tracked& t, const EventData& data, std::uint32_t log_index) const {
        const ChainId chain{s_.chain_id};
        return std::visit(
            [&](const auto& d) -> std::string {
                using T = std::decay_t<decltype(d)>;
                if constexpr (std::is_same_v<T, PaymentDetected>) {
                    return chain_fact_id(T::kType, chain, d.payment.tx_hash, d.payment.log_index,
                                         d.payment.block_hash);
                } else if constexpr (std::is_same_v<T, PaymentReorged>) {
                    return chain_fact_id(T::kType, chain, d.tx_hash, d.log_index, d.block_hash);
                } else if constexpr (requires { d.payment; }) {
                    return chain_fact_id(T::kType, chain, d.payment.tx_hash, d.payment.log_index);
                } else if constexpr (std::is_same_v<T, ChargeExpired>) {
                    return chain_fact_id(T::kType, chain, t.created_envelope.invoice_id.bytes, 0);
                } else if constexpr (std::is_same_v<T, ChargeSettled>) {
                    return chain_fact_id(T::kType, chain, d.tx_hash, log_index);
                } else {
                    throw std::logic_error("chainwatch does not append " + std::string(T::kType));
                }
            },
            data);
    }

    void emit(Tracked& t, const std::string& invoice, EventData data, std::uint32_t log_index) {
        Event e;
        e.id = fact_id(t, data, log_index);
        if (t.state.seen_event_ids.contains(e.id)) return;  // emitted before (maybe by a previous run)
        e.invoice_id = t.created_envelope.invoice_id;
        e.project_id = t.created_envelope.project_id;
        e.mode = t.created_envelope.mode;
        e.chain_id = ChainId{s_.chain_id};
        e.occurred_at = now_rfc3339();
        e.data = std::move(data);
        charge::apply(t.state, e);
        acks_.expect();
        log_.append_async(infra::kafka::LogRecord{invoice, encode_event(e)},
                          [this](infra::kafka::AppendResult r) { acks_.done(r); });
        ++emitted_;
        if (trace_) {
            std::cerr << "chainwatch " << s_.chain_id << ": " << event_type(e) << " " << invoice
                      << std::endl;
        }
    }

    void flush_and_checkpoint() {
        acks_.wait();
        pqxx::work tx(db_);
        tx.exec_params(
            "insert into chainwatch_checkpoints (chain_id, block_number, block_hash) values ($1, $2, $3) "
            "on conflict (chain_id) do update set block_number = excluded.block_number, "
            "block_hash = excluded.block_hash, updated_at = now()",
            static_cast<std::int64_t>(s_.chain_id), static_cast<std::int64_t>(checkpoint_.number),
            to_hex(checkpoint_.hash));
        tx.commit();
    }

    const ChainwatchSettings& s_;
    const infra::config::ChainInfo& chain_;
    pqxx::connection& db_;
    infra::kafka::EventLog& log_;
    infra::rpc::RpcClient rpc_;
    std::vector<Address> token_addresses_;
    std::unordered_map<std::string, Tracked> charges_;
    std::unordered_map<std::string, std::string> by_deposit_;  // 20 raw bytes -> invoice hex
    std::multimap<std::uint64_t, std::string> expiries_;        // limit -> invoice hex
    std::deque<SeenBlock> window_;                              // fetched, below confirmation depth
    Checkpoint checkpoint_;
    Acks acks_;
    std::size_t learnt_ = 0;
    std::uint64_t emitted_ = 0;
    std::size_t scanned_logs_ = 0;
    bool trace_ = std::getenv("DUEPAY_CHAINWATCH_TRACE") != nullptr;
};

// Applies what the consumer has; returns the number of messages read.
std::size_t drain(infra::kafka::KafkaConsumer& consumer, Chainwatch& watch, std::chrono::milliseconds timeout) {
    std::size_t n = 0;
    for (;;) {
        auto batch = consumer.poll_batch(5000, timeout);
        if (batch.empty()) return n;
        for (const auto& m : batch) {
            auto e = decode_event(m.value);
            if (!e) {
                std::cerr << "chainwatch: skipping undecodable event at " << m.partition << "/" << m.offset << ": "
                          << e.error().message << std::endl;
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
        std::cerr << "chainwatch: chain " << settings.chain_id << " is not in " << settings.chains_file << std::endl;
        return 2;
    }
    // Leadership: one chainwatch per chain. The lock lives as long as this connection.
    pqxx::connection lock_conn(settings.database_url);
    for (bool announced = false;;) {
        pqxx::nontransaction q(lock_conn);
        if (q.exec_params1("select pg_try_advisory_lock($1, $2)", kLockClass, static_cast<int>(settings.chain_id))[0]
                .as<bool>()) {
            break;
        }
        if (!announced) std::cerr << "chainwatch " << settings.chain_id << ": standby (another leader holds the lock)" << std::endl;
        announced = true;
        for (int i = 0; i < 10 && !stop; ++i) std::this_thread::sleep_for(std::chrono::milliseconds(100));
        if (stop) return 0;
    }
    std::cerr << "chainwatch " << settings.chain_id << ": leader, rpc " << domain::redact_url(chain->rpc_url) << ", "
              << chain->confirmations << " confirmations" << std::endl;

    pqxx::connection db(settings.database_url);
    infra::kafka::KafkaEventLog log(infra::kafka::ProducerSettings{settings.bootstrap, settings.topic});
    Chainwatch watch(settings, *chain, db, log);
    // No stored offsets: every start replays the topic from the beginning (the charges of this
    // chain are rebuilt in memory; docs/chainwatch.md says why this is fine at dev scale).
    infra::kafka::KafkaConsumer consumer(
        infra::kafka::ConsumerSettings{settings.bootstrap, settings.group_id, settings.topic,
                                       "duepay-chainwatch-" + std::to_string(settings.chain_id)},
        [](const std::string&, const std::vector<std::int32_t>&) { return std::map<std::int32_t, std::int64_t>{}; });
    // Catch up with the topic before touching the chain, so decisions see every earlier fact.
    const auto catchup_started = std::chrono::steady_clock::now();
    while (!stop && consumer.assignment().empty() &&
           std::chrono::steady_clock::now() - catchup_started < std::chrono::seconds(30)) {
        drain(consumer, watch, std::chrono::milliseconds(200));
    }
    for (int quiet = 0; !stop && quiet < 3;) {
        quiet = drain(consumer, watch, std::chrono::milliseconds(300)) == 0 ? quiet + 1 : 0;
    }
    std::cerr << "chainwatch " << settings.chain_id << ": caught up, " << watch.charges() << " charges of this chain"
              << std::endl;

    int backoff_ms = 200;
    bool loaded = false;
    auto last_lock_check = std::chrono::steady_clock::now();
    while (!stop) {
        // The advisory lock lives with lock_conn: if that connection is gone, so is leadership.
        if (std::chrono::steady_clock::now() - last_lock_check > std::chrono::seconds(5)) {
            try {
                pqxx::nontransaction q(lock_conn);
                q.exec("select 1");
            } catch (const std::exception& e) {
                std::cerr << "chainwatch " << settings.chain_id << ": lost the leader connection (" << e.what()
                          << "); exiting" << std::endl;
                return 1;
            }
            last_lock_check = std::chrono::steady_clock::now();
        }
        try {
            if (!loaded) {
                watch.load_checkpoint();
                loaded = true;
            }
            drain(consumer, watch, std::chrono::milliseconds(0));
            if (!watch.step()) drain(consumer, watch, std::chrono::milliseconds(settings.poll_ms));
            backoff_ms = 200;
        } catch (const infra::rpc::RpcError& e) {
            if (!e.retryable()) throw;
            std::cerr << "chainwatch " << settings.chain_id << ": rpc: " << e.what() << "; retrying" << std::endl;
            std::this_thread::sleep_for(std::chrono::milliseconds(backoff_ms));
            backoff_ms = std::min(backoff_ms * 2, 5000);
        } catch (const std::exception& e) {
            // Kafka or Postgres failed mid-round: nothing past the checkpoint is trusted. Exit; the
            // next run (supervisor or standby) resumes from the checkpoint, and re-emissions carry
            // the same ids, which evolve and the projector ignore.
            std::cerr << "chainwatch " << settings.chain_id << ": " << e.what()
                      << "; exiting (the next leader resumes from the checkpoint)" << std::endl;
            return 1;
        }
    }
    consumer.close();
    log.flush(std::chrono::milliseconds(5000));
    std::cerr << "chainwatch " << settings.chain_id << ": stopped, " << watch.emitted() << " events emitted" << std::endl;
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
    s.start_block = static_cast<std::uint64_t>(infra::config::env_int_or(start_var.c_str(), 0, 0, 1LL << 62));
    s.max_range = static_cast<std::uint64_t>(infra::config::env_int_or("DUEPAY_CHAINWATCH_RANGE", 500, 1, 100000));
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
