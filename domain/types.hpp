// Strong types for what must not be mixed up (docs/style.md). Byte-array values compare and
// hash by content; their text forms (0x-hex) live in domain/hex.hpp and domain/evm/address.hpp.
#pragma once

#include <array>
#include <boost/multiprecision/cpp_int.hpp>
#include <compare>
#include <cstdint>
#include <string>
#include <vector>

namespace duepay::domain {

using Bytes = std::vector<std::uint8_t>;
using Bytes32 = std::array<std::uint8_t, 32>;
using uint256 = boost::multiprecision::uint256_t;

// A 20-byte EVM account or contract address.
struct Address {
    std::array<std::uint8_t, 20> bytes{};
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const Address&) const = default;
};

// The 32-byte identifier of a charge (bytes32 on chain; 0x + 64 hex in JSON).
struct InvoiceId {
    Bytes32 bytes{};
    auto operator<=>(const InvoiceId&) const = default;
};

// An EVM chain id (EIP-155).
struct ChainId {
    std::uint64_t value = 0;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const ChainId&) const = default;
};

// A merchant project's id (e.g. "prj_demo"): scopes keys, charges and guards.
struct ProjectId {
    std::string value;
    auto operator<=>(const ProjectId&) const = default;
};

// An amount of a token in its smallest unit: an unsigned 256-bit integer, never a float.
struct TokenAmount {
    uint256 value = 0;
    auto operator<=>(const TokenAmount&) const = default;
};

}  // namespace duepay::domain
