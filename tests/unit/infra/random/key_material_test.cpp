// SHA-256 and HMAC-SHA256 (with the digest fetched once for the process) against published
// vectors, also from several threads at once, and the constant-time comparison.
#include "infra/random/key_material.hpp"

#include <gtest/gtest.h>

#include <atomic>
#include <string>
#include <thread>
#include <vector>

namespace duepay::infra::random {
namespace {

std::string hex(const Digest32& d) {
    static constexpr char kDigits[] = "0123456789abcdef";
    std::string out = "0x";
    for (const auto b : d) {
        out += kDigits[b >> 4];
        out += kDigits[b & 15];
    }
    return out;
}

std::vector<std::uint8_t> bytes(std::string_view s) { return {s.begin(), s.end()}; }

TEST(KeyMaterial, Sha256OfPublishedVectors) {  // FIPS 180-2 appendix B
    EXPECT_EQ(hex(sha256("abc")),
              "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
    EXPECT_EQ(hex(sha256("")),
              "0xe3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST(KeyMaterial, HmacSha256OfRfc4231Case2) {
    const auto key = bytes("Jefe");
    EXPECT_EQ(hex(hmac_sha256(key, "what do ya want for nothing?")),
              "0x5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(KeyMaterial, SameDigestsFromManyThreads) {
    std::atomic<int> wrong{0};
    std::vector<std::thread> threads;
    for (int t = 0; t < 4; ++t) {
        threads.emplace_back([&] {
            const auto key = bytes("Jefe");
            for (int i = 0; i < 2000; ++i) {
                if (hex(sha256("abc")) !=
                    "0xba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad")
                    ++wrong;
                if (hex(hmac_sha256(key, "what do ya want for nothing?")) !=
                    "0x5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843")
                    ++wrong;
            }
        });
    }
    for (auto& t : threads) t.join();
    EXPECT_EQ(wrong.load(), 0);
}

TEST(KeyMaterial, ConstantTimeEqualComparesWholeSpans) {
    const auto a = bytes("same bytes");
    const auto b = bytes("same bytes");
    const auto c = bytes("same bytez");
    EXPECT_TRUE(constant_time_equal(a, b));
    EXPECT_FALSE(constant_time_equal(a, c));
    EXPECT_FALSE(constant_time_equal(a, bytes("same")));
}

}  // namespace
}  // namespace duepay::infra::random
