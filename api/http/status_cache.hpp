// A read-through cache of (invoiceId -> project, status) for the polling route, kept coherent by
// the projector's NOTIFY: every projected invoice id invalidates its entry, and a lost LISTEN
// connection clears everything. A read that raced with an invalidation is served but not cached
// (per-key sequence numbers), so the cache never holds a status older than the last notification.
#pragma once

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <unordered_map>

#include "api/http/port_names.hpp"

namespace duepay::api {

class StatusCache final : public ChargeReader {
  public:
    explicit StatusCache(ChargeReader& inner, std::size_t capacity = 200'000)
        : inner_(inner), capacity_(capacity) {}

    std::optional<ChargeView> find(const std::string& invoice_id) override {
        return inner_.find(invoice_id);
    }
    std::optional<ChargeStatus> find_status(const std::string& invoice_id) override;

    // The projector changed this charge (from NOTIFY).
    void invalidate(const std::string& invoice_id);
    // Notifications may have been missed (LISTEN reconnect).
    void clear();

    std::uint64_t hits() const;
    std::uint64_t misses() const;

  private:
    struct Entry {
        std::optional<ChargeStatus> status;  // nullopt: a tombstone left by an invalidation
        std::uint64_t seq = 0;               // seq_ when written
    };
    ChargeReader& inner_;
    std::size_t capacity_;
    mutable std::mutex mutex_;
    std::unordered_map<std::string, Entry> entries_;
    std::unordered_map<std::string, int> in_flight_;
    std::uint64_t seq_ = 0;
    std::uint64_t cleared_seq_ = 0;
    std::uint64_t hits_ = 0;
    std::uint64_t misses_ = 0;
};

}  // namespace duepay::api
