#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

Lease::~Lease() {
    if (conn_) pool_->give_back(std::move(conn_));
}

ConnectionPool::ConnectionPool(std::string url, std::size_t size, OnConnect on_connect)
    : url_(std::move(url)), on_connect_(std::move(on_connect)) {
    for (std::size_t i = 0; i < size; ++i) idle_.push_back(open());
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
    if (!available_.wait_for(lock, wait, [&] { return !idle_.empty() || missing_ > 0; })) {
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
