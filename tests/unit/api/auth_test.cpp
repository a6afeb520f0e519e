// Authenticator: what reaches the key directory (Postgres in production) for unknown, malformed
// and known keys, the 1 s bounds both ways (docs/adr/0097), and a rolled key cached no longer than
// its remaining life (docs/adr/0170).
#include "api/http/auth.hpp"

#include <gtest/gtest.h>

#include <set>
#include <string>
#include <thread>

#include "infra/random/key_material.hpp"

namespace duepay::api {
namespace {

using namespace std::chrono_literals;

class CountingKeys final : public KeyDirectory {
  public:
    std::optional<KeyOwner> find(const KeyHash& hash) override {
        ++lookups;
        for (const auto& key : issued) {
            if (infra::random::sha256(key) == hash) {
                KeyOwner owner;
                owner.key_id = key;
                owner.key_hash = hash;
                owner.expires_in_ms = expires_in_ms;
                return owner;
            }
        }
        return std::nullopt;
    }
    std::set<std::string> issued;
    std::optional<std::int64_t> expires_in_ms;  // a rolled key's remaining life
    int lookups = 0;
};

ApiRequest with_key(const std::string& key) {
    ApiRequest r;
    r.headers["x-api-key"] = key;
    return r;
}

const std::string kKey = "dp_test_" + std::string(48, 'a');

TEST(Authenticator, KeysThatCannotBeOursCostNoLookup) {
    CountingKeys keys;
    Authenticator auth(keys);
    for (const std::string& bad :
         {std::string("x"), std::string("dp_test_"), std::string("dp_prod_abc"),
          "dp_test_" + std::string(65, 'a'), std::string("dp_test_a-b"),
          std::string("dp_test_\xc3\xa9"), std::string(100000, 'k')}) {
        EXPECT_FALSE(auth.authenticate(with_key(bad)));
    }
    EXPECT_EQ(keys.lookups, 0);
    EXPECT_TRUE(plausible_key(kKey));
    EXPECT_TRUE(plausible_key("dp_live_" + std::string(64, 'f')));
}

TEST(Authenticator, AnUnknownKeyIsLookedUpOncePerTtl) {
    CountingKeys keys;
    Authenticator auth(keys, 200ms);
    for (int i = 0; i < 50; ++i) EXPECT_FALSE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, 1);
    // Issued after the miss was cached: works once the negative entry expires (the 1 s bound
    // of ADR 0080 with the production TTL).
    keys.issued.insert(kKey);
    EXPECT_FALSE(auth.authenticate(with_key(kKey)));
    std::this_thread::sleep_for(250ms);
    EXPECT_TRUE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, 2);
    // Revoked: refused once the positive entry expires.
    keys.issued.clear();
    EXPECT_TRUE(auth.authenticate(with_key(kKey)));
    std::this_thread::sleep_for(250ms);
    EXPECT_FALSE(auth.authenticate(with_key(kKey)));
}

TEST(Authenticator, AFloodOfUnknownKeysDoesNotEvictKnownOnes) {
    CountingKeys keys;
    keys.issued.insert(kKey);
    Authenticator auth(keys, 60s);
    ASSERT_TRUE(auth.authenticate(with_key(kKey)));
    for (std::size_t i = 0; i < kKeyCacheEntries * 2 + 10; ++i) {
        EXPECT_FALSE(auth.authenticate(with_key("dp_test_" + std::to_string(i))));
    }
    const int before = keys.lookups;
    EXPECT_TRUE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, before) << "the known key was evicted by unknown ones";
}

TEST(Authenticator, ARolledKeyIsNotCachedPastItsExpiry) {
    CountingKeys keys;
    keys.issued.insert(kKey);
    keys.expires_in_ms = 150;  // the directory says: 150 ms left
    Authenticator auth(keys, 60s);
    ASSERT_TRUE(auth.authenticate(with_key(kKey)));
    EXPECT_TRUE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, 1) << "cached within its remaining life";
    // The key expires in the directory; with a 60 s TTL alone the cache would keep it a minute.
    keys.issued.clear();
    std::this_thread::sleep_for(200ms);
    EXPECT_FALSE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, 2);
}

TEST(Authenticator, AKeyWithoutExpiryKeepsTheFullTtl) {
    CountingKeys keys;
    keys.issued.insert(kKey);
    Authenticator auth(keys, 60s);
    ASSERT_TRUE(auth.authenticate(with_key(kKey)));
    std::this_thread::sleep_for(200ms);
    EXPECT_TRUE(auth.authenticate(with_key(kKey)));
    EXPECT_EQ(keys.lookups, 1);
}

}  // namespace
}  // namespace duepay::api
