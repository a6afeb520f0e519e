#include "infra/crypto/secp256k1_signer.hpp"

#include <secp256k1.h>
#include <secp256k1_recovery.h>
#include <sys/random.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <system_error>

#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "infra/error.hpp"

namespace duepay::infra::crypto {

using domain::make_error;
using domain::Result;

namespace {

// The secp256k1 group order n, big-endian.
constexpr Bytes32 kOrder{0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff, 0xff,
                         0xff, 0xff, 0xff, 0xff, 0xfe, 0xba, 0xae, 0xdc, 0xe6, 0xaf, 0x48,
                         0xa0, 0x3b, 0xbf, 0xd2, 0x5e, 0x8c, 0xd0, 0x36, 0x41, 0x41};

Bytes32 os_random_32() {
    Bytes32 seed{};
    std::size_t filled = 0;
    while (filled < seed.size()) {
        const ssize_t n = ::getrandom(seed.data() + filled, seed.size() - filled, 0);
        if (n < 0) {
            if (errno == EINTR) continue;
            // The text std::system_error would give: "what: strerror".
            throw InfraError(std::string("getrandom for secp256k1 blinding: ") +
                                 std::generic_category().message(errno),
                             false);
        }
        filled += static_cast<std::size_t>(n);
    }
    return seed;
}

// The built-in static context serves recovery and parsing (no secret-key operations); the library
// asks for one self test before it is used.
const secp256k1_context* static_context() {
    static const secp256k1_context* ctx = [] {
        secp256k1_selftest();
        return secp256k1_context_static;
    }();
    return ctx;
}

Address address_of(const secp256k1_context* ctx, const secp256k1_pubkey& pubkey) {
    std::array<std::uint8_t, 65> uncompressed{};
    std::size_t len = uncompressed.size();
    secp256k1_ec_pubkey_serialize(ctx, uncompressed.data(), &len, &pubkey,
                                  SECP256K1_EC_UNCOMPRESSED);
    const Bytes32 hash = domain::evm::keccak256(std::span(uncompressed).subspan(1, 64));
    Address out;
    std::copy(hash.begin() + 12, hash.end(), out.bytes.begin());
    return out;
}

bool is_zero(const Bytes32& v) {
    return std::all_of(v.begin(), v.end(), [](std::uint8_t b) { return b == 0; });
}

}  // namespace

void Secp256k1Signer::ContextDeleter::operator()(secp256k1_context_struct* ctx) const {
    secp256k1_context_destroy(ctx);
}

Secp256k1Signer::Secp256k1Signer(ContextPtr ctx, const Bytes32& key, const Address& address)
    : ctx_(std::move(ctx)), key_(key), address_(address) {}

Secp256k1Signer::~Secp256k1Signer() { ::explicit_bzero(key_.data(), key_.size()); }

Result<Secp256k1Signer> Secp256k1Signer::from_private_key(const Bytes32& private_key) {
    if (is_zero(private_key)) {
        return make_error("invalid_private_key", "the secp256k1 private key is zero");
    }
    if (!std::lexicographical_compare(private_key.begin(), private_key.end(), kOrder.begin(),
                                      kOrder.end())) {
        return make_error("invalid_private_key",
                          "the secp256k1 private key is not below the group order n");
    }
    ContextPtr ctx(secp256k1_context_create(SECP256K1_CONTEXT_NONE));
    if (!ctx) throw InfraError("secp256k1_context_create failed", false);
    Bytes32 seed = os_random_32();
    const int randomised = secp256k1_context_randomize(ctx.get(), seed.data());
    ::explicit_bzero(seed.data(), seed.size());
    if (!randomised) throw InfraError("secp256k1_context_randomize failed", false);

    secp256k1_pubkey pubkey;
    if (!secp256k1_ec_pubkey_create(ctx.get(), &pubkey, private_key.data())) {
        return make_error("invalid_private_key", "the secp256k1 private key was rejected");
    }
    const Address address = address_of(ctx.get(), pubkey);
    return Secp256k1Signer(std::move(ctx), private_key, address);
}

Result<Secp256k1Signer> Secp256k1Signer::from_hex(std::string_view private_key_hex) {
    if (private_key_hex.size() != 66 || private_key_hex.substr(0, 2) != "0x") {
        return make_error("invalid_private_key",
                          "a private key is 0x followed by 64 hex digits; got " +
                              std::to_string(private_key_hex.size()) + " characters");
    }
    auto key = domain::from_hex_fixed<32>(private_key_hex);
    if (!key)
        return make_error("invalid_private_key", "the private key contains a non-hex character");
    auto result = from_private_key(*key);
    ::explicit_bzero(key->data(), key->size());
    return result;
}

Signature Secp256k1Signer::sign_digest(const Bytes32& digest) const {
    secp256k1_ecdsa_recoverable_signature sig;
    if (!secp256k1_ecdsa_sign_recoverable(ctx_.get(), &sig, digest.data(), key_.data(), nullptr,
                                          nullptr)) {
        // Only possible for an invalid key, which the factory already rejected.
        throw InfraError("secp256k1_ecdsa_sign_recoverable failed for a validated key", false);
    }
    Signature out;
    int recid = 0;
    secp256k1_ecdsa_recoverable_signature_serialize_compact(ctx_.get(), out.bytes.data(), &recid,
                                                            &sig);
    // libsecp256k1 always returns low-s. Recovery ids 2 and 3 need r >= n (probability ~2^-127)
    // and have no EVM encoding.
    if (recid > 1) throw InfraError("secp256k1 recovery id above 1", false);
    out.bytes[64] = static_cast<std::uint8_t>(27 + recid);
    return out;
}

Result<Address> recover_signer(const Bytes32& digest, const Signature& signature) {
    const secp256k1_context* ctx = static_context();
    const std::uint8_t v = signature.bytes[64];
    if (v != 27 && v != 28) {
        return make_error("invalid_signature",
                          "signature v must be 27 or 28; got " + std::to_string(v));
    }
    Bytes32 r{};
    Bytes32 s{};
    std::copy_n(signature.bytes.begin(), 32, r.begin());
    std::copy_n(signature.bytes.begin() + 32, 32, s.begin());
    if (is_zero(r) || is_zero(s))
        return make_error("invalid_signature", "signature r or s is zero");

    secp256k1_ecdsa_recoverable_signature sig;
    // parse_compact rejects r or s not below n.
    if (!secp256k1_ecdsa_recoverable_signature_parse_compact(ctx, &sig, signature.bytes.data(),
                                                             v - 27)) {
        return make_error("invalid_signature", "signature r or s is not below the group order n");
    }
    secp256k1_ecdsa_signature plain;
    secp256k1_ecdsa_recoverable_signature_convert(ctx, &plain, &sig);
    secp256k1_ecdsa_signature normalized;
    if (secp256k1_ecdsa_signature_normalize(ctx, &normalized, &plain)) {
        return make_error(
            "invalid_signature",
            "signature s is in the upper half of the curve order (malleable high-s form)");
    }
    secp256k1_pubkey pubkey;
    if (!secp256k1_ecdsa_recover(ctx, &pubkey, &sig, digest.data())) {
        return make_error("invalid_signature", "no public key recovers from this signature");
    }
    return address_of(ctx, pubkey);
}

Result<Address> address_of_public_key(std::span<const std::uint8_t> serialized) {
    const secp256k1_context* ctx = static_context();
    secp256k1_pubkey pubkey;
    if (!secp256k1_ec_pubkey_parse(ctx, &pubkey, serialized.data(), serialized.size())) {
        return make_error(
            "invalid_public_key",
            "not a secp256k1 public key (33-byte compressed or 65-byte uncompressed)");
    }
    return address_of(ctx, pubkey);
}

}  // namespace duepay::infra::crypto
