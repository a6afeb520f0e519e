#include "domain/evm/keccak.hpp"

#include <gtest/gtest.h>

#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

// The deterministic pattern byte i = (7i + 3) mod 256, shared with the ethers script that produced
// the boundary vectors below.
Bytes pattern(std::size_t n) {
    Bytes out(n);
    for (std::size_t i = 0; i < n; ++i) out[i] = static_cast<std::uint8_t>((i * 7 + 3) & 0xff);
    return out;
}

TEST(Keccak256, EmptyInputIsTheWellKnownEthereumEmptyHash) {
    // keccak256("") is the empty-code hash every Ethereum client knows; SHA3-256("") would be
    // 0xa7ffc6f8..., so this also proves the 0x01 (not 0x06) padding.
    EXPECT_EQ(to_hex(keccak256(std::string_view(""))),
              "0xc5d2460186f7233c927e7db2dcc703c0e500b653ca82273b7bfad8045d85a470");
}

TEST(Keccak256, Abc) {
    EXPECT_EQ(to_hex(keccak256(std::string_view("abc"))),
              "0x4e03657aea45a94fc7d47ba826c8d667c0d1e6e33a64a036ec44f58fa12d6c45");
}

TEST(Keccak256, KnownSelectorOfTransfer) {
    // The ERC-20 transfer selector 0xa9059cbb is the first four bytes of this hash.
    const Bytes32 h = keccak256(std::string_view("transfer(address,uint256)"));
    EXPECT_EQ(to_hex(std::span(h).first(4)), "0xa9059cbb");
}

// Vectors computed with ethers 6.17.0 keccak256 on pattern(n) (tests/oracle re-checks random
// inputs on every run). 135/136/137 and 271/272/273 straddle the 136-byte rate.
struct Vector {
    std::size_t length;
    const char* hash;
};

class Keccak256Boundary : public ::testing::TestWithParam<Vector> {};

TEST_P(Keccak256Boundary, MatchesEthers) {
    const auto& v = GetParam();
    EXPECT_EQ(to_hex(keccak256(pattern(v.length))), v.hash) << "length " << v.length;
}

INSTANTIATE_TEST_SUITE_P(
    RateEdges, Keccak256Boundary,
    ::testing::Values(
        Vector{1, "0x69c322e3248a5dfc29d73c5b0553b0185a35cd5bb6386747517ef7e53b15e287"},
        Vector{31, "0x8522dc30be01c01348c0591309ac2948c9ae4ce02facbb745f85a5297286d3dd"},
        Vector{32, "0x04d1b47ed3b04c5ff6a0280293cb2ab55bd297c9c2e0c3449831b419285d7df2"},
        Vector{135, "0x00ef96af9cf4b24c7f269d922294444a197d0a33638c2e56634c57e892103a8f"},
        Vector{136, "0x742061bcad767ed4c4f5883b1dcb1aad11afdcc140dc469d953759b127b9f9ed"},
        Vector{137, "0xe3371f61e770abf254c34239c3b0099ad90594507415bc81dd0a10b9692bbf2a"},
        Vector{271, "0x4401c4afbe16ff911bdbf2d38e556e5b861f3fdf0f9d4306b1c46f6ae4f73584"},
        Vector{272, "0xac141fd7b0a0ffcd2e967254d508da3ec616596493c36fa304425647d90e6de5"},
        Vector{273, "0x16192ea86793083e47731cb3c970600f04768414d92bc0540e54ce8607a0fce0"}));

TEST(Keccak256, OneMegabyteOneShotAndIncrementalAgreeWithEthers) {
    const Bytes data = pattern(1 << 20);
    const std::string expected =
        "0xf2e34ac5feedafab149d3a2b3ed837fc240cc93748a48dd1cf739c1435b8af77";
    EXPECT_EQ(to_hex(keccak256(data)), expected);

    // Feed it in awkward, varying chunk sizes so every buffering path is taken.
    Keccak256 hasher;
    std::size_t pos = 0;
    std::size_t step = 1;
    while (pos < data.size()) {
        const std::size_t n = std::min(step, data.size() - pos);
        hasher.update(std::span(data).subspan(pos, n));
        pos += n;
        step = step * 3 % 1000 + 1;
    }
    EXPECT_EQ(to_hex(hasher.finish()), expected);
}

TEST(Keccak256, IncrementalEqualsOneShotForEverySplitPoint) {
    const Bytes data = pattern(300);
    const Bytes32 expected = keccak256(data);
    for (std::size_t split = 0; split <= data.size(); ++split) {
        Keccak256 hasher;
        hasher.update(std::span(data).first(split)).update(std::span(data).subspan(split));
        ASSERT_EQ(hasher.finish(), expected) << "split at " << split;
    }
}

TEST(Keccak256, ResetMakesTheHasherReusable) {
    Keccak256 hasher;
    hasher.update(std::string_view("something else"));
    (void)hasher.finish();
    hasher.reset();
    hasher.update(std::string_view("abc"));
    EXPECT_EQ(hasher.finish(), keccak256(std::string_view("abc")));
}

TEST(KeccakF1600, PermutationOfZeroStateMatchesReference) {
    // Keccak team's KeccakF-1600 intermediate values: first lane after permuting the zero state.
    std::array<std::uint64_t, 25> state{};
    keccak_f1600(state);
    EXPECT_EQ(state[0], 0xF1258F7940E1DDE7ULL);
    EXPECT_EQ(state[1], 0x84D5CCF933C0478AULL);
    keccak_f1600(state);
    EXPECT_EQ(state[0], 0x2D5C954DF96ECB3CULL);
}

TEST(KeccakF1600, DispatchedAndPortableBuildsAgree) {
    // On a BMI2 machine keccak_f1600 runs the BMI build; the portable one must give the same
    // lanes (on other machines both calls run the portable build and this is trivially true).
    std::array<std::uint64_t, 25> a{};
    std::uint64_t x = 0x9e3779b97f4a7c15ULL;
    for (auto& lane : a) {
        x ^= x << 13;
        x ^= x >> 7;
        x ^= x << 17;
        lane = x;
    }
    auto b = a;
    for (int i = 0; i < 100; ++i) {
        keccak_f1600(a);
        detail::keccak_f1600_portable(b);
        ASSERT_EQ(a, b) << "after " << i + 1 << " permutations";
    }
    std::array<std::uint64_t, 25> zero{};
    detail::keccak_f1600_portable(zero);
    EXPECT_EQ(zero[0], 0xF1258F7940E1DDE7ULL);
}

}  // namespace
}  // namespace duepay::domain::evm
