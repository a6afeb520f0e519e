#include "api/http/auth.hpp"

#include <algorithm>
#include <cctype>
#include <iterator>
#include <type_traits>

#include "domain/hex.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::api {

std::optional<std::string> presented_key(const ApiRequest& request) {
    if (auto key = request.header("x-api-key"); key && !key->empty()) return key;
    if (auto auth = request.header("authorization")) {
        constexpr std::string_view kBearer = "bearer ";
        const bool bearer =
            auth->size() > kBearer.size() &&
            std::equal(kBearer.begin(), kBearer.end(), auth->begin(), [](char a, char b) {
                return a == std::tolower(static_cast<unsigned char>(b));
            });
        if (bearer) return auth->substr(kBearer.size());
    }
    return std::nullopt;
}

bool plausible_key(std::string_view key) {
    if (key.rfind("dp_test_", 0) != 0 && key.rfind("dp_live_", 0) != 0) return false;
    const auto rest = key.substr(8);
    if (rest.empty() || rest.size() > 64) return false;
    for (char c : rest) {
        const bool ok = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
        if (!ok) return false;
    }
    return true;
}

template <class Map>
void Authenticator::make_room(Map& map, Clock::time_point now) {
    if (map.size() < kKeyCacheEntries) return;
    for (auto it = map.begin(); it != map.end();) {
        Clock::time_point expires;
        if constexpr (std::is_same_v<typename Map::mapped_type, Known>) {
            expires = it->second.expires;
        } else {
            expires = it->second;
        }
        it = expires <= now ? map.erase(it) : std::next(it);
    }
    if (map.size() >= kKeyCacheEntries) map.clear();
}

std::optional<KeyOwner> Authenticator::authenticate(const ApiRequest& request) {
    auto key = presented_key(request);
    if (!key || !plausible_key(*key)) return std::nullopt;  // no lookup for what we never issue
    const auto hash = infra::random::sha256(*key);
    const std::string cache_key(reinterpret_cast<const char*>(hash.data()), hash.size());
    const auto now = Clock::now();
    {
        std::lock_guard lock(mutex_);
        if (auto it = known_.find(cache_key); it != known_.end() && it->second.expires > now) {
            return it->second.owner;
        }
        if (auto it = unknown_.find(cache_key); it != unknown_.end() && it->second > now) {
            return std::nullopt;
        }
    }
    auto owner = keys_.find(hash);
    if (owner && !infra::random::constant_time_equal(owner->key_hash, hash)) owner.reset();
    std::lock_guard lock(mutex_);
    if (owner) {
        unknown_.erase(cache_key);
        make_room(known_, now);
        // A rolled key is never cached past its own expiry (docs/adr/0170).
        auto keep = ttl_;
        if (owner->expires_in_ms) {
            keep = std::min(
                keep, std::chrono::milliseconds(std::max<std::int64_t>(0, *owner->expires_in_ms)));
        }
        known_[cache_key] = Known{*owner, now + keep};
    } else {
        known_.erase(cache_key);
        make_room(unknown_, now);
        unknown_[cache_key] = now + ttl_;
    }
    return owner;
}

void Authenticator::forget_project(const ProjectId& project) {
    std::lock_guard lock(mutex_);
    std::erase_if(known_,
                  [&](const auto& entry) { return entry.second.owner.project_id == project; });
}

}  // namespace duepay::api
