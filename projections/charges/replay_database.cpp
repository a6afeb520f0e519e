// The database side of `duepay replay` (replay_database.hpp).
#include "projections/charges/replay_database.hpp"

#include <algorithm>
#include <atomic>
#include <exception>
#include <pqxx/pqxx>
#include <thread>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/offset_store.hpp"

namespace duepay::projections::charges {

std::unique_ptr<infra::postgres::TransactionRunner> shadow_runner(const std::string& database_url,
                                                                  const std::string& schema) {
    return std::make_unique<infra::postgres::PgTransactionRunner>(
        database_url, [schema](pqxx::connection& conn) {
            conn.set_variable("search_path", conn.quote_name(schema) + ", public");
            conn.set_variable("work_mem", "'64MB'");
            infra::postgres::prepare_charge_statements(conn);
        });
}

bool shadow_journal_empty(infra::postgres::Transaction& tx) {
    return tx.work().exec1("select not exists (select 1 from charge_events)")[0].as<bool>();
}

int build_deferred_indexes(const std::string& database_url, const std::string& schema,
                           std::size_t workers) {
    std::vector<std::string> statements;
    {
        pqxx::connection conn(database_url);
        pqxx::read_transaction tx(conn);
        statements = deferred_index_statements(tx, schema);
    }
    const std::size_t n = std::min(statements.size(), std::max<std::size_t>(1, workers));
    std::atomic<std::size_t> next{0};
    std::vector<std::exception_ptr> errors(n);
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < n; ++i) {
        threads.emplace_back([&, i] {
            try {
                pqxx::connection conn(database_url);
                for (auto k = next++; k < statements.size(); k = next++) {
                    pqxx::work tx(conn);
                    tx.exec(kDeferredIndexSettings);
                    tx.exec(statements[k]);
                    tx.commit();
                }
            } catch (...) {
                errors[i] = std::current_exception();
            }
        });
    }
    for (auto& t : threads) t.join();
    for (const auto& e : errors) {
        if (e) std::rethrow_exception(e);
    }
    return static_cast<int>(statements.size());
}

struct ReplayDatabase::Impl {
    pqxx::connection conn;
    explicit Impl(const std::string& url) : conn(url) {}
};

ReplayDatabase::ReplayDatabase(const std::string& database_url)
    : impl_(std::make_unique<Impl>(database_url)) {}

ReplayDatabase::~ReplayDatabase() = default;

std::vector<std::string> ReplayDatabase::drop_retired() {
    pqxx::work tx(impl_->conn);
    auto schemas = retired_schemas(tx);
    for (const auto& schema : schemas) {
        tx.exec("drop schema " + impl_->conn.quote_name(schema) + " cascade");
    }
    tx.commit();
    return schemas;
}

bool ReplayDatabase::prepare_shadow(const std::string& schema, const std::string& group, bool fresh,
                                    bool unlogged) {
    pqxx::work tx(impl_->conn);
    const bool incomplete = shadow_incomplete(tx, schema);
    if (fresh || incomplete) {
        drop_shadow(tx, schema);
        tx.exec_params("delete from consumer_offsets where group_id = $1", group);
    }
    create_shadow(tx, schema, unlogged);
    const bool lost = unlogged_shadow_lost(tx, schema);
    if (lost) {
        drop_shadow(tx, schema);
        tx.exec_params("delete from consumer_offsets where group_id = $1", group);
        create_shadow(tx, schema, unlogged);
    }
    tx.commit();
    return lost || incomplete;
}

Offsets ReplayDatabase::stored_offsets(const std::string& group, const std::string& topic,
                                       const std::vector<std::int32_t>& partitions) {
    pqxx::read_transaction tx(impl_->conn);
    return infra::postgres::load_next_offsets(tx, group, topic, partitions);
}

void ReplayDatabase::make_shadow_logged(const std::string& schema) {
    pqxx::work tx(impl_->conn);
    charges::make_shadow_logged(tx, schema);
    tx.commit();
}

ReplayDatabase::Compared ReplayDatabase::compare(const std::string& schema,
                                                 const std::string& topic,
                                                 const std::string& live_group,
                                                 const std::string& group,
                                                 const std::vector<std::int32_t>& partitions) {
    pqxx::read_transaction tx(impl_->conn);
    const auto live = infra::postgres::load_next_offsets(tx, live_group, topic, partitions);
    const auto mine = infra::postgres::load_next_offsets(tx, group, topic, partitions);
    Compared out;
    out.compared = min_offsets(partitions, live, mine);
    out.shadow_at_compared = out.compared == min_offsets(partitions, mine, mine);
    out.comparison = compare_with_live(tx, schema, topic, out.compared);
    return out;
}

Offsets min_offsets(const std::vector<std::int32_t>& partitions, const Offsets& a,
                    const Offsets& b) {
    Offsets out;
    for (const auto p : partitions) {
        const auto x = a.contains(p) ? a.at(p) : 0;
        const auto y = b.contains(p) ? b.at(p) : 0;
        out[p] = std::min(x, y);
    }
    return out;
}

LockedSwap swap_locked(infra::postgres::Transaction& tx, const SwapRequest& r,
                       const std::function<std::vector<std::string>(infra::postgres::Transaction&,
                                                                    const Offsets&)>& catch_up) {
    auto& work = tx.work();
    LockedSwap out;
    lock_live(work, r.lock_timeout_ms);
    out.locked_at = std::chrono::steady_clock::now();
    auto live = infra::postgres::load_next_offsets(work, r.live_group, r.topic, r.partitions);
    Offsets targets;
    for (const auto p : r.partitions) targets[p] = live.contains(p) ? live[p] : 0;
    // When the shadow stood at `compared`, every event from there on, on either side, is one of
    // the records read here (the live journal ends at `targets`): only their charges are read
    // again. Otherwise (a live group behind the shadow) both journals are scanned from
    // `compared`.
    const auto touched = catch_up(tx, targets);
    const auto mine = infra::postgres::load_next_offsets(work, r.group, r.topic, r.partitions);
    out.recheck = compare_with_live(work, r.schema, r.topic, min_offsets(r.partitions, live, mine),
                                    &r.compared, r.shadow_at_compared ? &touched : nullptr);
    if (out.recheck.equal() || r.force) {
        work.exec_params("delete from public.consumer_offsets where group_id = $1", r.group);
        out.retired_schema = swap_in(work, r.schema, r.suffix);
        out.swapped = true;
    } else {
        tx.discard();
    }
    return out;
}

}  // namespace duepay::projections::charges
