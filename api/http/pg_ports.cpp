#include "api/http/pg_ports.hpp"

#include <vector>

#include "infra/postgres/charge_store.hpp"

namespace duepay::api {

std::optional<KeyOwner> PgKeyDirectory::find(const infra::random::Digest32& key_hash) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        return infra::postgres::find_key_owner(tx, key_hash);
    });
}

std::optional<ChargeRow> PgChargeReader::find(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return infra::postgres::find_charge(tx, invoice_id);
    });
}

std::vector<std::string> PgChargeHistory::events(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        std::vector<std::string> out;
        for (auto& [id, payload] : infra::postgres::load_journal(tx, {invoice_id}))
            out.push_back(std::move(payload));
        return out;
    });
}

std::optional<ChargeStatus> PgChargeReader::find_status(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return infra::postgres::find_charge_status(tx, invoice_id);
    });
}

std::vector<infra::postgres::ListedCharge> PgChargeReader::list(
    const infra::postgres::ChargeListQuery& query) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return infra::postgres::list_charges(tx, query);
    });
}

PgProjectionWaiter::PgProjectionWaiter(infra::postgres::ConnectionPool& pool,
                                       const std::string& database_url, StatusCache* cache)
    : pool_(pool), cache_(cache) {
    sweeper_ = std::thread([this] { sweep_loop(); });
    listener_ = std::make_unique<infra::postgres::NotifyListener>(
        database_url, infra::postgres::kChargesChannel,
        [this](const std::string& p) { on_payload(p); },
        [this] {
            if (cache_ != nullptr) cache_->clear();
            std::lock_guard lock(mutex_);
            recheck_ = true;
            wake_.notify_one();
        });
}

PgProjectionWaiter::~PgProjectionWaiter() {
    listener_.reset();
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
    }
    wake_.notify_one();
    sweeper_.join();
    for (auto& [id, waiter] : waiters_) waiter.done(false);
}

void PgProjectionWaiter::wait(const std::string& invoice_id, std::chrono::milliseconds timeout,
                              std::function<void(bool)> done) {
    {
        std::lock_guard lock(mutex_);
        if (!recent_.contains(invoice_id)) {
            waiters_.emplace(invoice_id,
                             Waiter{std::chrono::steady_clock::now() + timeout, std::move(done)});
            return;
        }
    }
    done(true);
}

void PgProjectionWaiter::on_payload(const std::string& payload) {
    std::vector<std::function<void(bool)>> ready;
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        std::size_t start = 0;
        while (start < payload.size()) {
            std::size_t end = payload.find(',', start);
            if (end == std::string::npos) end = payload.size();
            std::string id = payload.substr(start, end - start);
            start = end + 1;
            if (cache_ != nullptr) cache_->invalidate(id);
            auto range = waiters_.equal_range(id);
            for (auto it = range.first; it != range.second; ++it)
                ready.push_back(std::move(it->second.done));
            waiters_.erase(range.first, range.second);
            if (recent_.insert(id).second) recent_order_.emplace_back(now, std::move(id));
        }
        // Remember ids for 30 s (and at most 200k of them).
        while (!recent_order_.empty() &&
               (recent_order_.front().first + std::chrono::seconds(30) < now ||
                recent_order_.size() > 200'000)) {
            recent_.erase(recent_order_.front().second);
            recent_order_.pop_front();
        }
    }
    for (auto& done : ready) done(true);
}

bool PgProjectionWaiter::exists_in_table(const std::string& invoice_id) {
    try {
        auto conn = pool_.lease();
        pqxx::nontransaction tx(*conn);
        return infra::postgres::find_charge_status(tx, invoice_id).has_value();
    } catch (const std::exception&) {
        return false;
    }
}

void PgProjectionWaiter::sweep_loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, std::chrono::milliseconds(50));
        if (stop_) break;
        const auto now = std::chrono::steady_clock::now();
        std::vector<std::pair<std::string, Waiter>> due;
        const bool recheck = recheck_;
        recheck_ = false;
        for (auto it = waiters_.begin(); it != waiters_.end();) {
            if (recheck || it->second.deadline <= now) {
                due.emplace_back(it->first, std::move(it->second));
                it = waiters_.erase(it);
            } else {
                ++it;
            }
        }
        if (due.empty()) continue;
        lock.unlock();
        for (auto& [id, waiter] : due) {
            const bool found = exists_in_table(id);
            if (found || waiter.deadline <= now) {
                waiter.done(found);
            } else {  // a recheck that did not find it yet: keep waiting
                std::lock_guard relock(mutex_);
                waiters_.emplace(id, std::move(waiter));
            }
        }
        lock.lock();
    }
}

}  // namespace duepay::api
