// Sign-In with Ethereum test vectors (docs/adr/0210-siwe-messages.md), shared by the domain's
// parse and check tests (tests/unit/domain/accounts/siwe_test.cpp) and the signature tests that
// link libsecp256k1 (tests/unit/infra/crypto/siwe_signature_test.cpp): one message with every
// field, signed by anvil's first dev account, and what ethers makes of it.
#pragma once

#include <string>
#include <string_view>

namespace duepay::tests::siwe_vectors {

// anvil's first dev account (a public test key, never funded outside a local chain) and its
// address, checksummed.
inline constexpr std::string_view kDevKey =
    "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
inline constexpr std::string_view kDevAddress = "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266";

// Every field present, for kDevAddress.
inline const std::string kFull =
    "https://dash.duepay.example wants you to sign in with your Ethereum account:\n"
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n"
    "\n"
    "Sign in to the duepay dashboard.\n"
    "\n"
    "URI: https://dash.duepay.example/login\n"
    "Version: 1\n"
    "Chain ID: 137\n"
    "Nonce: k3Jd8sQ2pL9x\n"
    "Issued At: 2026-11-27T11:00:00.000Z\n"
    "Expiration Time: 2026-11-27T11:10:00.000Z\n"
    "Not Before: 2026-11-27T11:00:00.000Z\n"
    "Request ID: req-42\n"
    "Resources:\n"
    "- https://dash.duepay.example/terms";

// ethers 6.17.0: hashMessage(kFull) and new Wallet(kDevKey).signMessage(kFull).
inline constexpr std::string_view kEthersHash =
    "0x611ba5c071056e0ba8ec775ed3d4f078e766a9472effc60f27f485dee27bb678";
inline constexpr std::string_view kEthersSignature =
    "0x5dfaae54ad33e16151898ed4497c5713dd58d1772d095a24a509d5041c679049"
    "6fdc8f2a5ba85e767181047b6b8b2b3e4f0b20c3f17c19ebc58ce9b866e821a5"
    "1c";

}  // namespace duepay::tests::siwe_vectors
