// A small fixed-size pool of libpqxx connections. lease() blocks (bounded) until one is free; a
// lease that saw a broken connection is replaced on return, and so is every idle connection (a
// broken one usually means Postgres restarted: the others are stale too; ADR 0044). Each connection
// can be given the same prepared statements by the `on_connect` hook.
#pragma once

#include <chrono>
#include <condition_variable>
#include <functional>
#include <memory>
#include <mutex>
#include <optional>
#include <pqxx/pqxx>
#include <stdexcept>
#include <string>
#include <vector>

#include "domain/ports/errors.hpp"
#include "infra/error.hpp"
#include "infra/metrics/metrics.hpp"

namespace duepay::infra::postgres {

// The database is unreachable or too busy: retryable. It is the ports' StoreUnavailable
// (domain/ports/errors.hpp), which every port backed by Postgres throws.
class DatabaseUnavailable : public InfraError, public ports::StoreUnavailable {
  public:
    explicit DatabaseUnavailable(const std::string& what)
        // NOLINTNEXTLINE(bugprone-throw-keyword-missing): base initialiser, not a dropped exception
        : InfraError(what, true), ports::StoreUnavailable(what) {}
    const char* what() const noexcept override { return InfraError::what(); }
};

// The server cannot do the work now, through no fault of the request: SQLSTATE class 53
// (insufficient resources: 53100 disk full, 53200 out of memory, 53300 too many connections),
// 57P01-57P03 (shutting down, starting up) or 58030 (an I/O error). Returns a short label ("disk
// full") for those, nullopt for anything else. Such an error is DatabaseUnavailable (a 503 with
// Retry-After at the API, a retry for a consumer), never a 500 (docs/operations.md "Full disks").
std::optional<std::string> unavailable_condition(const std::string& sqlstate);

class ConnectionPool;

class Lease {
  public:
    Lease(ConnectionPool* pool, std::unique_ptr<pqxx::connection> conn)
        : pool_(pool), conn_(std::move(conn)) {}
    Lease(Lease&&) noexcept = default;
    Lease& operator=(Lease&&) = delete;
    ~Lease();
    pqxx::connection& operator*() { return *conn_; }
    pqxx::connection* operator->() { return conn_.get(); }

  private:
    ConnectionPool* pool_;
    std::unique_ptr<pqxx::connection> conn_;
};

class ConnectionPool {
  public:
    using OnConnect = std::function<void(pqxx::connection&)>;

    // Opens `size` connections now (throws DatabaseUnavailable if the first cannot be opened).
    // `name` labels its series (ADR 0131): duepay_postgres_pool_in_use{pool} and
    // duepay_postgres_pool_size{pool} (gauges), duepay_postgres_pool_waits_total{pool} (leases
    // that found no free connection and waited) and duepay_postgres_pool_timeouts_total{pool};
    // and its readiness check "postgres <name>" (a `select 1` on a connection leased within 1 s,
    // run on the ops thread at each /readyz).
    ConnectionPool(std::string url, std::size_t size, OnConnect on_connect = {},
                   const std::string& name = "pool");

    // Throws DatabaseUnavailable after `wait` without a free connection.
    Lease lease(std::chrono::milliseconds wait = std::chrono::milliseconds(2000));

    // Runs `work(connection&)` on a leased connection, retrying once on a broken connection (for
    // idempotent reads: a Postgres restart leaves stale connections; the first one seen broken
    // drops every idle one, so the retry gets a fresh connection). Throws DatabaseUnavailable.
    template <class F>
    auto with_connection(F&& work) {
        for (int attempt = 0;; ++attempt) {
            auto conn = lease();
            try {
                return work(*conn);
            } catch (const pqxx::broken_connection& e) {
                if (attempt >= 1) throw DatabaseUnavailable(e.what());
            } catch (const pqxx::sql_error& e) {
                rethrow_unavailable(e);
            }
        }
    }

    // Runs `work(pqxx::transaction_base&)` on a leased connection outside any explicit
    // transaction (a pqxx::nontransaction: each statement commits by itself), retrying once on a
    // broken connection as with_connection does. For work of one statement (a read, or a single
    // statement that may write and may run twice): one round trip, where with_transaction's
    // BEGIN, statement, COMMIT are three. Work of several statements that must see one snapshot,
    // or write together, belongs in with_transaction.
    template <class F>
    auto with_single_statement(F&& work) {
        return with_connection([&](pqxx::connection& conn) {
            pqxx::nontransaction tx(conn);
            return work(static_cast<pqxx::transaction_base&>(tx));
        });
    }

    // Runs `work` in a transaction on a leased connection, retrying once on a broken connection
    // (before COMMIT nothing was written). A connection lost during COMMIT is DatabaseUnavailable.
    template <class F>
    auto with_transaction(F&& work) {
        for (int attempt = 0;; ++attempt) {
            auto conn = lease();
            try {
                pqxx::work tx(*conn);
                if constexpr (std::is_void_v<decltype(work(tx))>) {
                    work(tx);
                    tx.commit();
                    return;
                } else {
                    auto out = work(tx);
                    tx.commit();
                    return out;
                }
            } catch (const pqxx::broken_connection& e) {
                if (attempt >= 1) throw DatabaseUnavailable(e.what());
            } catch (const pqxx::in_doubt_error& e) {
                // The connection broke during COMMIT (a failover, a server crash): the outcome is
                // unknown, so no retry here; the caller sees the database as unavailable (a 503,
                // never a 500), like any other broken connection (ADR 0209).
                throw DatabaseUnavailable(e.what());
            } catch (const pqxx::sql_error& e) {
                rethrow_unavailable(e);
            }
        }
    }

    // How long /readyz reports the last unavailable condition (unavailable_condition) after it
    // was seen: the next statements tell whether it is over, and a pool that sees no traffic
    // (taken out of a load balancer) must become ready again by itself.
    static constexpr std::chrono::seconds kConditionShownFor{10};

  private:
    friend class Lease;
    // Rethrows `e` as DatabaseUnavailable when its SQLSTATE is an unavailable condition (noting
    // it for /readyz), else as it is.
    [[noreturn]] void rethrow_unavailable(const pqxx::sql_error& e);
    std::unique_ptr<pqxx::connection> open();
    void give_back(std::unique_ptr<pqxx::connection> conn);

    std::string url_;
    OnConnect on_connect_;
    std::mutex mutex_;
    std::condition_variable available_;
    std::vector<std::unique_ptr<pqxx::connection>> idle_;
    std::size_t missing_ = 0;  // connections to reopen lazily
    std::size_t size_ = 0;
    std::string condition_;  // the last unavailable condition and when it was seen (mutex_)
    std::chrono::steady_clock::time_point condition_at_{};
    metrics::Counter* waits_ = nullptr;
    metrics::Counter* timeouts_ = nullptr;
    metrics::Registration in_use_metric_;  // last two: unregistered first
    metrics::Registration ready_check_;
};

}  // namespace duepay::infra::postgres
