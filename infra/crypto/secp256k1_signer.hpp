// The Signer port's adapter: ECDSA over secp256k1 with libsecp256k1 (recoverable signatures, the
// r || s || v form EVM contracts verify with ecrecover). Also signature recovery for checking
// wallet signatures (EIP-191 ownership proofs) and tests.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string_view>

#include "domain/ports/signer.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

struct secp256k1_context_struct;  // from <secp256k1.h>, kept out of this header

namespace duepay::infra::crypto {

using domain::Address;
using domain::Bytes32;
using domain::evm::Signature;

class Secp256k1Signer final : public ports::Signer {
  public:
    // Errors (code invalid_private_key): the key is zero, or not below the group order n. The
    // messages never contain the key.
    static domain::Result<Secp256k1Signer> from_private_key(const Bytes32& private_key);
    // "0x" + 64 hex digits (the DUEPAY_SIGNER_KEY form).
    static domain::Result<Secp256k1Signer> from_hex(std::string_view private_key_hex);

    Secp256k1Signer(Secp256k1Signer&&) noexcept = default;
    Secp256k1Signer& operator=(Secp256k1Signer&&) noexcept = default;
    Secp256k1Signer(const Secp256k1Signer&) = delete;
    Secp256k1Signer& operator=(const Secp256k1Signer&) = delete;
    ~Secp256k1Signer() override;  // wipes the key

    // Deterministic (RFC 6979) low-s signature, v = 27 + recovery id. Thread-safe: the context is
    // only read after construction.
    Signature sign_digest(const Bytes32& digest) const override;
    Address address() const override { return address_; }

  private:
    struct ContextDeleter {
        void operator()(secp256k1_context_struct* ctx) const;
    };
    using ContextPtr = std::unique_ptr<secp256k1_context_struct, ContextDeleter>;

    Secp256k1Signer(ContextPtr ctx, const Bytes32& key, const Address& address);

    ContextPtr ctx_;  // created and randomised (side-channel blinding) once per signer
    Bytes32 key_{};
    Address address_;
};

// The address that produced `signature` over `digest`. Errors (code invalid_signature): v not 27 or
// 28, r or s zero or not below n, s in the upper half of the order (malleable "high-s" form), or
// no public key recovers.
domain::Result<Address> recover_signer(const Bytes32& digest, const Signature& signature);

// keccak256(x || y)[12:] of a serialised public key (33-byte compressed or 65-byte uncompressed).
// Errors: invalid_public_key.
domain::Result<Address> address_of_public_key(std::span<const std::uint8_t> serialized);

}  // namespace duepay::infra::crypto
