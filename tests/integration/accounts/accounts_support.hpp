// Shared by the accounts integration tests: `duepay admin` of this build tree as a subprocess, JSON
// helpers, and EIP-191 signatures made here by Secp256k1Signer from fixed test keys (the service
// never sees a wallet's key).
#pragma once

#include <rapidjson/document.h>

#include <string>
#include <vector>

#include "infra/crypto/secp256k1_signer.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {

// Fixed test wallets (keys only ever used by tests).
inline constexpr const char* kWalletKey =
    "0x4c0883a69102937d6231471b5dbb6204fe5129617082792ae468d01a3f362318";
inline constexpr const char* kOtherKey =
    "0x1111111111111111111111111111111111111111111111111111111111111111";

struct Admin {
    int rc = -1;
    std::string output;  // stdout + stderr
    rapidjson::Document json;
};

// `duepay admin <args>` (20 s bound).
Admin admin(const std::vector<std::string>& args);

// v[key] as a string, or "<missing key>".
std::string text(const rapidjson::Value& v, const char* key);

// error.code of a failed admin command.
std::string error_code(const Admin& a);

rapidjson::Document parse(const std::string& body);

// meta.code of an API error envelope.
std::string meta_code(const HttpResponse& r);

infra::crypto::Secp256k1Signer signer_of(const char* key);

// personal_sign(message) as 0x + 130 hex.
std::string personal_sign(const infra::crypto::Secp256k1Signer& signer, const std::string& message);

}  // namespace duepay::tests
