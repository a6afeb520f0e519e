#include "api/http/auth.hpp"

#include "domain/hex.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::api {

std::optional<std::string> presented_key(const ApiRequest& request) {
    if (auto key = request.header("x-api-key"); key && !key->empty()) return key;
    if (auto auth = request.header("authorization")) {
        constexpr std::string_view kBearer = "Bearer ";
        if (auth->size() > kBearer.size() && auth->compare(0, kBearer.size(), kBearer) == 0) {
            return auth->substr(kBearer.size());
        }
    }
    return std::nullopt;
}

std::optional<KeyOwner> Authenticator::authenticate(const ApiRequest& request) {
    auto key = presented_key(request);
    if (!key || key->size() > 200) return std::nullopt;
    const auto hash = infra::random::sha256(*key);
    const std::string cache_key(reinterpret_cast<const char*>(hash.data()), hash.size());
    const auto now = std::chrono::steady_clock::now();
    {
        std::lock_guard lock(mutex_);
        if (auto it = cache_.find(cache_key); it != cache_.end() && it->second.expires > now) {
            return it->second.owner;
        }
    }
    auto owner = keys_.find(hash);
    if (owner && !infra::random::constant_time_equal(owner->key_hash, hash)) owner.reset();
    std::lock_guard lock(mutex_);
    if (cache_.size() > 10000) cache_.clear();  // bounded: unknown keys must not grow it forever
    cache_[cache_key] = Entry{owner, now + ttl_};
    return owner;
}

}  // namespace duepay::api
