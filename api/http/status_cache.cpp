#include "api/http/status_cache.hpp"

namespace duepay::api {

std::optional<ChargeStatus> StatusCache::find_status(const std::string& invoice_id) {
    std::uint64_t started = 0;
    {
        std::lock_guard lock(mutex_);
        auto it = entries_.find(invoice_id);
        if (it != entries_.end() && it->second.status) {
            ++hits_;
            return it->second.status;
        }
        ++misses_;
        started = seq_;
        ++in_flight_[invoice_id];
    }
    std::optional<ChargeStatus> status;
    try {
        status = inner_.find_status(invoice_id);
    } catch (...) {
        std::lock_guard lock(mutex_);
        if (--in_flight_[invoice_id] == 0) in_flight_.erase(invoice_id);
        throw;
    }
    std::lock_guard lock(mutex_);
    if (--in_flight_[invoice_id] == 0) in_flight_.erase(invoice_id);
    if (!status) return status;  // unknown ids are not cached (the charge may be projected next)
    auto it = entries_.find(invoice_id);
    const bool raced = started < cleared_seq_ || (it != entries_.end() && it->second.seq > started);
    if (!raced) {
        if (entries_.size() >= capacity_) {
            entries_.clear();
            cleared_seq_ = ++seq_;
        }
        entries_[invoice_id] = Entry{status, seq_};
    } else if (it != entries_.end() && !in_flight_.contains(invoice_id)) {
        entries_.erase(it);  // the tombstone has done its job
    }
    return status;
}

void StatusCache::invalidate(const std::string& invoice_id) {
    std::lock_guard lock(mutex_);
    auto it = entries_.find(invoice_id);
    if (it == entries_.end() && !in_flight_.contains(invoice_id)) return;
    entries_[invoice_id] = Entry{std::nullopt, ++seq_};
}

void StatusCache::clear() {
    std::lock_guard lock(mutex_);
    entries_.clear();
    cleared_seq_ = ++seq_;
}

std::uint64_t StatusCache::hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
}

std::uint64_t StatusCache::misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
}

}  // namespace duepay::api
