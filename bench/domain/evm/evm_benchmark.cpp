// Micro benchmarks of the EVM encodings and the signer. Peer: ethers_peer.mjs (same work in
// ethers.js); run.sh runs both and prints the ratios. Results in bench/RESULTS.md.
#include <benchmark/benchmark.h>

#include "domain/evm/eip712.hpp"
#include "domain/evm/keccak.hpp"
#include "infra/crypto/secp256k1_signer.hpp"

namespace {

using namespace duepay;

domain::Bytes input(std::size_t n) {
    domain::Bytes b(n);
    for (std::size_t i = 0; i < n; ++i) b[i] = static_cast<std::uint8_t>(i * 31 + 7);
    return b;
}

void keccak_bench(benchmark::State& state, std::size_t n) {
    domain::Bytes data = input(n);
    for (auto _ : state) {
        auto h = domain::evm::keccak256(data);
        benchmark::DoNotOptimize(h);
        data[0] = h[0];  // chain the iterations so nothing is hoisted
    }
    state.SetBytesProcessed(static_cast<std::int64_t>(state.iterations() * n));
}

void BM_Keccak256_32(benchmark::State& state) { keccak_bench(state, 32); }
void BM_Keccak256_136(benchmark::State& state) { keccak_bench(state, 136); }
void BM_Keccak256_1024(benchmark::State& state) { keccak_bench(state, 1024); }
void BM_Keccak256_1M(benchmark::State& state) { keccak_bench(state, 1 << 20); }

infra::crypto::Secp256k1Signer make_signer() {
    domain::Bytes32 key{};
    key[31] = 0x2a;
    key[0] = 0x5e;
    return std::move(infra::crypto::Secp256k1Signer::from_private_key(key)).value();
}

domain::evm::PaymentIntent make_intent() {
    domain::evm::PaymentIntent intent;
    intent.invoice_id.bytes.fill(0x11);
    intent.merchant.bytes.fill(0x22);
    intent.token.bytes.fill(0x33);
    intent.amount = domain::TokenAmount{domain::uint256("123456789012345678")};
    intent.fee_bps = 100;
    intent.deadline = 1767225600;
    return intent;
}

// The service's per-charge crypto: the EIP-712 digest of a fresh intent (domain separator
// included, nothing cached) and its signature.
void BM_Eip712_IntentHashSign(benchmark::State& state) {
    const auto signer = make_signer();
    domain::evm::PaymentIntent intent = make_intent();
    domain::evm::Eip712Domain dom{domain::ChainId{80002}, {}};
    dom.verifying_contract.bytes.fill(0x44);
    std::uint64_t n = 0;
    for (auto _ : state) {
        intent.invoice_id.bytes[0] = static_cast<std::uint8_t>(++n);  // a new invoice every time
        const auto digest = domain::evm::intent_digest(dom, intent);
        auto sig = signer.sign_digest(digest);
        benchmark::DoNotOptimize(sig);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_Eip712_IntentHash(benchmark::State& state) {
    domain::evm::PaymentIntent intent = make_intent();
    domain::evm::Eip712Domain dom{domain::ChainId{80002}, {}};
    std::uint64_t n = 0;
    for (auto _ : state) {
        intent.invoice_id.bytes[0] = static_cast<std::uint8_t>(++n);
        auto digest = domain::evm::intent_digest(dom, intent);
        benchmark::DoNotOptimize(digest);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

void BM_Secp256k1_Recover(benchmark::State& state) {
    const auto signer = make_signer();
    const auto digest = domain::evm::keccak256(std::string_view("recover"));
    const auto sig = signer.sign_digest(digest);
    for (auto _ : state) {
        auto a = infra::crypto::recover_signer(digest, sig);
        benchmark::DoNotOptimize(a);
    }
    state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations()));
}

}  // namespace

BENCHMARK(BM_Keccak256_32);
BENCHMARK(BM_Keccak256_136);
BENCHMARK(BM_Keccak256_1024);
BENCHMARK(BM_Keccak256_1M);
BENCHMARK(BM_Eip712_IntentHash);
BENCHMARK(BM_Eip712_IntentHashSign);
BENCHMARK(BM_Secp256k1_Recover);
