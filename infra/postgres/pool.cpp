#include "infra/postgres/pool.hpp"

#include "infra/metrics/ops_server.hpp"

namespace duepay::infra::postgres {

std::optional<std::string> unavailable_condition(const std::string& sqlstate) {
    if (sqlstate == "53100") return "disk full";
    if (sqlstate == "53200") return "out of memory";
    if (sqlstate == "53300") return "too many connections";
    if (sqlstate.starts_with("53")) return "insufficient resources";
    if (sqlstate == "57P01" || sqlstate == "57P02") return "shutting down";
    if (sqlstate == "57P03") return "starting up";
    if (sqlstate == "58030") return "I/O error";
    return std::nullopt;
}

void ConnectionPool::rethrow_unavailable(const pqxx::sql_error& e) {
    const auto condition = unavailable_condition(e.sqlstate());
    if (!condition) throw;
    std::string what = *condition + " (SQLSTATE " + e.sqlstate() + "): " + e.what();
    while (!what.empty() && (what.back() == '\n' || what.back() == ' ')) what.pop_back();
    {
        std::lock_guard lock(mutex_);
        condition_ = what;
        condition_at_ = std::chrono::steady_clock::now();
    }
    throw DatabaseUnavailable("postgres: " + what);
}

Lease::~Lease() {
    if (conn_) pool_->give_back(std::move(conn_));
}

ConnectionPool::ConnectionPool(std::string url, std::size_t size, OnConnect on_connect,
                               const std::string& name)
    : url_(std::move(url)), on_connect_(std::move(on_connect)), size_(size) {
    for (std::size_t i = 0; i < size; ++i) idle_.push_back(open());
    auto& r = metrics::registry();
    waits_ = &r.counter("duepay_postgres_pool_waits_total",
                        "Leases that found no free connection and waited", {{"pool", name}});
    timeouts_ =
        &r.counter("duepay_postgres_pool_timeouts_total",
                   "Leases that gave up: no connection became free in time", {{"pool", name}});
    r.gauge("duepay_postgres_pool_size", "Connections a pool holds at most", {{"pool", name}})
        .set(static_cast<double>(size));
    in_use_metric_ = r.collect("duepay_postgres_pool_in_use", "Connections leased right now",
                               metrics::Type::gauge, [this, name] {
                                   std::lock_guard lock(mutex_);
                                   const auto in_use =
                                       static_cast<double>(size_ - idle_.size() - missing_);
                                   return std::vector<metrics::Sample>{{{{"pool", name}}, in_use}};
                               });
    ready_check_ =
        metrics::readiness().add("postgres " + name, [this]() -> std::optional<std::string> {
            {
                std::lock_guard lock(mutex_);
                const auto age = std::chrono::steady_clock::now() - condition_at_;
                if (!condition_.empty() && age < kConditionShownFor) {
                    return "a statement failed " +
                           std::to_string(
                               std::chrono::duration_cast<std::chrono::seconds>(age).count()) +
                           " s ago: " + condition_;
                }
            }
            try {
                auto conn = lease(std::chrono::milliseconds(1000));
                pqxx::nontransaction probe(*conn);
                probe.exec("select 1");
                return std::nullopt;
            } catch (const std::exception& e) {
                return std::string("select 1 failed: ") + e.what();
            }
        });
}

std::unique_ptr<pqxx::connection> ConnectionPool::open() {
    try {
        auto conn = std::make_unique<pqxx::connection>(url_);
        if (on_connect_) on_connect_(*conn);
        return conn;
    } catch (const pqxx::broken_connection& e) {
        throw DatabaseUnavailable(std::string("postgres: ") + e.what());
    }
}

Lease ConnectionPool::lease(std::chrono::milliseconds wait) {
    std::unique_lock lock(mutex_);
    if (idle_.empty() && missing_ == 0) waits_->inc();
    if (!available_.wait_for(lock, wait, [&] { return !idle_.empty() || missing_ > 0; })) {
        timeouts_->inc();
        throw DatabaseUnavailable("postgres: no free connection in the pool");
    }
    if (!idle_.empty()) {
        auto conn = std::move(idle_.back());
        idle_.pop_back();
        return Lease(this, std::move(conn));
    }
    --missing_;
    lock.unlock();
    try {
        return Lease(this, open());
    } catch (...) {
        std::lock_guard relock(mutex_);
        ++missing_;
        available_.notify_one();
        throw;
    }
}

void ConnectionPool::give_back(std::unique_ptr<pqxx::connection> conn) {
    std::lock_guard lock(mutex_);
    if (conn->is_open()) {
        idle_.push_back(std::move(conn));
    } else {
        // Reopened by the next leases. The idle ones share the fate of this one (a server restart
        // or a failover closes them all), so they are dropped too rather than failing one request
        // each; a connection that is still fine costs one reconnect.
        missing_ += 1 + idle_.size();
        idle_.clear();
    }
    available_.notify_one();
}

}  // namespace duepay::infra::postgres
