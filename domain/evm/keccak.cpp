#include "domain/evm/keccak.hpp"

#include <algorithm>
#include <bit>
#include <cstring>

namespace duepay::domain::evm {

namespace {

constexpr std::array<std::uint64_t, 24> kRoundConstants{
    // clang-format off
    0x0000000000000001ULL, 0x0000000000008082ULL, 0x800000000000808aULL, 0x8000000080008000ULL,
    0x000000000000808bULL, 0x0000000080000001ULL, 0x8000000080008081ULL, 0x8000000000008009ULL,
    0x000000000000008aULL, 0x0000000000000088ULL, 0x0000000080008009ULL, 0x000000008000000aULL,
    0x000000008000808bULL, 0x800000000000008bULL, 0x8000000000008089ULL, 0x8000000000008003ULL,
    0x8000000000008002ULL, 0x8000000000000080ULL, 0x000000000000800aULL, 0x800000008000000aULL,
    0x8000000080008081ULL, 0x8000000000008080ULL, 0x0000000080000001ULL, 0x8000000080008008ULL,
    // clang-format on
};

using std::rotl;

// One round (theta, rho, pi, chi, iota) from lanes S0..S24 into lanes D0..D24. Generated from the
// Keccak reference definition (rotation offsets r[x][y], pi: (x, y) -> (y, 2x + 3y)); the unit
// tests check it against published digests.
// clang-format off
#define DUEPAY_KECCAK_ROUND(S, D, RC) \
    c0 = S##0 ^ S##5 ^ S##10 ^ S##15 ^ S##20; \
    c1 = S##1 ^ S##6 ^ S##11 ^ S##16 ^ S##21; \
    c2 = S##2 ^ S##7 ^ S##12 ^ S##17 ^ S##22; \
    c3 = S##3 ^ S##8 ^ S##13 ^ S##18 ^ S##23; \
    c4 = S##4 ^ S##9 ^ S##14 ^ S##19 ^ S##24; \
    d0 = c4 ^ rotl(c1, 1); \
    d1 = c0 ^ rotl(c2, 1); \
    d2 = c1 ^ rotl(c3, 1); \
    d3 = c2 ^ rotl(c4, 1); \
    d4 = c3 ^ rotl(c0, 1); \
    b0 = (S##0 ^ d0); b1 = rotl(S##6 ^ d1, 44); b2 = rotl(S##12 ^ d2, 43); b3 = rotl(S##18 ^ d3, 21); b4 = rotl(S##24 ^ d4, 14); \
    D##0 = b0 ^ (~b1 & b2); D##1 = b1 ^ (~b2 & b3); D##2 = b2 ^ (~b3 & b4); D##3 = b3 ^ (~b4 & b0); D##4 = b4 ^ (~b0 & b1); \
    b0 = rotl(S##3 ^ d3, 28); b1 = rotl(S##9 ^ d4, 20); b2 = rotl(S##10 ^ d0, 3); b3 = rotl(S##16 ^ d1, 45); b4 = rotl(S##22 ^ d2, 61); \
    D##5 = b0 ^ (~b1 & b2); D##6 = b1 ^ (~b2 & b3); D##7 = b2 ^ (~b3 & b4); D##8 = b3 ^ (~b4 & b0); D##9 = b4 ^ (~b0 & b1); \
    b0 = rotl(S##1 ^ d1, 1); b1 = rotl(S##7 ^ d2, 6); b2 = rotl(S##13 ^ d3, 25); b3 = rotl(S##19 ^ d4, 8); b4 = rotl(S##20 ^ d0, 18); \
    D##10 = b0 ^ (~b1 & b2); D##11 = b1 ^ (~b2 & b3); D##12 = b2 ^ (~b3 & b4); D##13 = b3 ^ (~b4 & b0); D##14 = b4 ^ (~b0 & b1); \
    b0 = rotl(S##4 ^ d4, 27); b1 = rotl(S##5 ^ d0, 36); b2 = rotl(S##11 ^ d1, 10); b3 = rotl(S##17 ^ d2, 15); b4 = rotl(S##23 ^ d3, 56); \
    D##15 = b0 ^ (~b1 & b2); D##16 = b1 ^ (~b2 & b3); D##17 = b2 ^ (~b3 & b4); D##18 = b3 ^ (~b4 & b0); D##19 = b4 ^ (~b0 & b1); \
    b0 = rotl(S##2 ^ d2, 62); b1 = rotl(S##8 ^ d3, 55); b2 = rotl(S##14 ^ d4, 39); b3 = rotl(S##15 ^ d0, 41); b4 = rotl(S##21 ^ d1, 2); \
    D##20 = b0 ^ (~b1 & b2); D##21 = b1 ^ (~b2 & b3); D##22 = b2 ^ (~b3 & b4); D##23 = b3 ^ (~b4 & b0); D##24 = b4 ^ (~b0 & b1); \
    D##0 ^= (RC);
// clang-format on

inline std::uint64_t load_le64(const std::uint8_t* p) {
    std::uint64_t v;
    std::memcpy(&v, p, 8);
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    return v;
}

inline void store_le64(std::uint8_t* p, std::uint64_t v) {
    if constexpr (std::endian::native == std::endian::big) v = __builtin_bswap64(v);
    std::memcpy(p, &v, 8);
}

// XORs `blocks` whole 136-byte blocks into the state, permuting after each (in == nullptr: one bare
// permutation). The state stays in locals across blocks, which is what makes long inputs fast.
[[gnu::always_inline]] inline void absorb_blocks_body(std::array<std::uint64_t, 25>& st,
                                                      const std::uint8_t* in, std::size_t blocks) {
    std::uint64_t a0 = st[0], a1 = st[1], a2 = st[2], a3 = st[3], a4 = st[4], a5 = st[5],
                  a6 = st[6], a7 = st[7], a8 = st[8], a9 = st[9], a10 = st[10], a11 = st[11],
                  a12 = st[12], a13 = st[13], a14 = st[14], a15 = st[15], a16 = st[16],
                  a17 = st[17], a18 = st[18], a19 = st[19], a20 = st[20], a21 = st[21],
                  a22 = st[22], a23 = st[23], a24 = st[24];
    std::uint64_t e0, e1, e2, e3, e4, e5, e6, e7, e8, e9, e10, e11, e12, e13, e14, e15, e16, e17,
        e18, e19, e20, e21, e22, e23, e24;
    std::uint64_t b0, b1, b2, b3, b4, c0, c1, c2, c3, c4, d0, d1, d2, d3, d4;
    for (; blocks != 0; --blocks, in += Keccak256::kRate) {
        if (in != nullptr) {
            a0 ^= load_le64(in + 0);
            a1 ^= load_le64(in + 8);
            a2 ^= load_le64(in + 16);
            a3 ^= load_le64(in + 24);
            a4 ^= load_le64(in + 32);
            a5 ^= load_le64(in + 40);
            a6 ^= load_le64(in + 48);
            a7 ^= load_le64(in + 56);
            a8 ^= load_le64(in + 64);
            a9 ^= load_le64(in + 72);
            a10 ^= load_le64(in + 80);
            a11 ^= load_le64(in + 88);
            a12 ^= load_le64(in + 96);
            a13 ^= load_le64(in + 104);
            a14 ^= load_le64(in + 112);
            a15 ^= load_le64(in + 120);
            a16 ^= load_le64(in + 128);
        }
        for (std::size_t round = 0; round < 24; round += 2) {
            DUEPAY_KECCAK_ROUND(a, e, kRoundConstants[round])
            DUEPAY_KECCAK_ROUND(e, a, kRoundConstants[round + 1])
        }
        if (in == nullptr) break;  // a bare permutation, no input
    }
    st = {a0,  a1,  a2,  a3,  a4,  a5,  a6,  a7,  a8,  a9,  a10, a11, a12,
          a13, a14, a15, a16, a17, a18, a19, a20, a21, a22, a23, a24};
}

#undef DUEPAY_KECCAK_ROUND

using AbsorbFn = void (*)(std::array<std::uint64_t, 25>&, const std::uint8_t*, std::size_t);

void absorb_blocks_generic(std::array<std::uint64_t, 25>& st, const std::uint8_t* in,
                           std::size_t blocks) {
    absorb_blocks_body(st, in, blocks);
}

#if defined(__x86_64__) && defined(__GNUC__)
// The same code compiled for CPUs with BMI1/BMI2 (andn makes chi one instruction shorter, rorx
// rotates without a move); picked at run time, so the binary still runs on any x86-64.
[[gnu::target("bmi,bmi2")]] void absorb_blocks_bmi2(std::array<std::uint64_t, 25>& st,
                                                    const std::uint8_t* in, std::size_t blocks) {
    absorb_blocks_body(st, in, blocks);
}

AbsorbFn select_absorb() {
    __builtin_cpu_init();
    return __builtin_cpu_supports("bmi") && __builtin_cpu_supports("bmi2") ? absorb_blocks_bmi2
                                                                           : absorb_blocks_generic;
}
#else
AbsorbFn select_absorb() { return absorb_blocks_generic; }
#endif

void absorb_blocks(std::array<std::uint64_t, 25>& st, const std::uint8_t* in, std::size_t blocks) {
    static const AbsorbFn absorb = select_absorb();
    absorb(st, in, blocks);
}

}  // namespace

void keccak_f1600(std::array<std::uint64_t, 25>& state) { absorb_blocks(state, nullptr, 1); }

void detail::keccak_f1600_portable(std::array<std::uint64_t, 25>& state) {
    absorb_blocks_generic(state, nullptr, 1);
}

Keccak256& Keccak256::update(std::span<const std::uint8_t> data) {
    const std::uint8_t* p = data.data();
    std::size_t n = data.size();
    if (buffered_ != 0) {
        const std::size_t take = std::min(n, kRate - buffered_);
        std::memcpy(buffer_.data() + buffered_, p, take);
        buffered_ += take;
        p += take;
        n -= take;
        if (buffered_ < kRate) return *this;
        absorb_blocks(state_, buffer_.data(), 1);
        buffered_ = 0;
    }
    if (n >= kRate) {
        const std::size_t blocks = n / kRate;
        absorb_blocks(state_, p, blocks);
        p += blocks * kRate;
        n -= blocks * kRate;
    }
    if (n != 0) {
        std::memcpy(buffer_.data(), p, n);
        buffered_ = n;
    }
    return *this;
}

Keccak256& Keccak256::update(std::string_view text) {
    return update(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

Bytes32 Keccak256::finish() {
    // Keccak padding: a 0x01 byte after the message, 0x80 on the last byte of the block (the two
    // combine to 0x81 when only one byte of the block is left).
    std::memset(buffer_.data() + buffered_, 0, kRate - buffered_);
    buffer_[buffered_] ^= 0x01;
    buffer_[kRate - 1] ^= 0x80;
    absorb_blocks(state_, buffer_.data(), 1);
    Bytes32 out;
    for (std::size_t i = 0; i < 4; ++i) store_le64(out.data() + 8 * i, state_[i]);
    return out;
}

void Keccak256::reset() {
    state_.fill(0);
    buffered_ = 0;
}

Bytes32 keccak256(std::span<const std::uint8_t> data) {
    Keccak256 hasher;
    hasher.update(data);
    return hasher.finish();
}

Bytes32 keccak256(std::string_view text) {
    return keccak256(std::span(reinterpret_cast<const std::uint8_t*>(text.data()), text.size()));
}

}  // namespace duepay::domain::evm
