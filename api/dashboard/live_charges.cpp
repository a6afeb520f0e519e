#include "api/dashboard/live_charges.hpp"

#include <charconv>
#include <utility>

#include "infra/log/log.hpp"

namespace duepay::api::dashboard {
namespace {

constexpr infra::log::Logger kLog{"dashboard"};

ApiResponse sse(std::string body) {
    ApiResponse r;
    r.status = 200;
    r.body = std::move(body);
    r.headers["content-type"] = "text/event-stream";
    r.headers["cache-control"] = "no-store";
    r.headers["x-accel-buffering"] = "no";
    return r;
}

std::optional<std::int64_t> millis(std::string_view text) {
    std::int64_t v = 0;
    const auto* end = text.data() + text.size();
    auto [p, ec] = std::from_chars(text.data(), end, v);
    if (text.empty() || ec != std::errc{} || p != end || v < 0) return std::nullopt;
    return v;
}

}  // namespace

LiveCharges::LiveCharges(ports::ChargeChanges* changes, ports::DashboardStore& store,
                         std::function<std::int64_t()> now_ms, LiveChargesSettings settings)
    : changes_(changes),
      store_(store),
      now_ms_(std::move(now_ms)),
      settings_(settings),
      known_since_ms_(now_ms_()) {}

LiveCharges::~LiveCharges() { stop(); }

std::string LiveCharges::changed_event(std::int64_t id_ms) {
    return "retry: 1000\nid: " + std::to_string(id_ms) + "\nevent: changed\ndata: {}\n\n";
}

std::string LiveCharges::keep_alive() { return "retry: 1000\n: no change\n\n"; }

std::optional<std::int64_t> LiveCharges::since_of(const ApiRequest& request) {
    if (auto last = request.header("last-event-id")) return millis(*last);
    if (auto since = request.query_param("since")) return millis(*since);
    return std::nullopt;
}

void LiveCharges::start() {
    {
        std::lock_guard lock(mutex_);
        stop_ = false;
    }
    hub_ = std::thread([this] { hub_loop(); });
    if (changes_ != nullptr) {
        subscription_ = changes_->subscribe([this](const std::string& id) { on_changed(id); },
                                            [this] { on_missed(); });
    }
}

void LiveCharges::stop() {
    subscription_.reset();
    std::multimap<Key, Waiter> open;
    {
        std::lock_guard lock(mutex_);
        stop_ = true;
        open.swap(waiters_);
    }
    wake_.notify_one();
    if (hub_.joinable()) hub_.join();
    for (auto& [key, w] : open) w.respond(sse(keep_alive()));
}

std::size_t LiveCharges::waiting() const {
    std::lock_guard lock(mutex_);
    return waiters_.size();
}

void LiveCharges::wait(const ports::ProjectId& project, ports::Mode mode, std::int64_t since_ms,
                       Responder respond) {
    Key key{project.value, mode};
    std::unique_lock lock(mutex_);
    last_wait_ = Clock::now();
    std::int64_t changed_at = 0;
    if (since_ms < known_since_ms_) {
        changed_at = now_ms_();  // from before this process listened: the client re-reads once
    } else if (auto it = last_change_ms_.find(key);
               it != last_change_ms_.end() && it->second > since_ms) {
        changed_at = it->second;
    }
    if (changed_at > 0 || stop_ || waiters_.size() >= settings_.max_streams) {
        lock.unlock();
        respond(sse(changed_at > 0 ? changed_event(changed_at) : keep_alive()));
        return;
    }
    waiters_.emplace(std::move(key),
                     Waiter{since_ms, Clock::now() + std::chrono::seconds(settings_.stream_seconds),
                            std::move(respond)});
}

void LiveCharges::on_changed(const std::string& invoice_id) {
    std::lock_guard lock(mutex_);
    if (Clock::now() - last_wait_ > settings_.watched_for) return;  // nobody watches
    pending_.insert(invoice_id);
}

void LiveCharges::on_missed() {
    std::lock_guard lock(mutex_);
    missed_ = true;
    wake_.notify_one();
}

void LiveCharges::changed(const std::set<Key>& keys, std::int64_t at_ms) {
    std::vector<Responder> answer;
    {
        std::lock_guard lock(mutex_);
        for (const auto& key : keys) {
            auto& last = last_change_ms_[key];
            last = std::max(last, at_ms);
            auto [from, to] = waiters_.equal_range(key);
            for (auto it = from; it != to; ++it) answer.push_back(std::move(it->second.respond));
            waiters_.erase(from, to);
        }
    }
    for (auto& respond : answer) respond(sse(changed_event(at_ms)));
}

void LiveCharges::hub_loop() {
    std::unique_lock lock(mutex_);
    while (!stop_) {
        wake_.wait_for(lock, settings_.batch);
        if (stop_) break;
        std::set<std::string> ids;
        ids.swap(pending_);
        const bool missed = std::exchange(missed_, false);
        // Waits whose time is up end with a comment; EventSource asks again.
        std::vector<Responder> ended;
        const auto now = Clock::now();
        for (auto it = waiters_.begin(); it != waiters_.end();) {
            if (it->second.ends_at <= now) {
                ended.push_back(std::move(it->second.respond));
                it = waiters_.erase(it);
            } else {
                ++it;
            }
        }
        std::set<Key> everyone;
        if (missed) {
            for (const auto& [key, w] : waiters_) everyone.insert(key);
        }
        lock.unlock();
        for (auto& respond : ended) respond(sse(keep_alive()));
        const auto at_ms = now_ms_();
        if (missed) changed(everyone, at_ms);
        if (!ids.empty()) {
            try {
                std::set<Key> keys;
                for (auto& [project, mode] :
                     store_.charge_scopes(std::vector<std::string>(ids.begin(), ids.end()))) {
                    keys.emplace(project.value, mode);
                }
                changed(keys, at_ms);
            } catch (const std::exception& e) {
                kLog.warn() << "charges live: reading the changed charges' projects failed: "
                            << e.what();
                std::lock_guard again(mutex_);
                missed_ = true;  // every waiting page re-reads on the next tick
            }
        }
        lock.lock();
    }
}

}  // namespace duepay::api::dashboard
