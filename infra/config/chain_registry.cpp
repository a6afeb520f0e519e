#include "infra/config/chain_registry.hpp"

#include <rapidjson/document.h>

#include <fstream>
#include <sstream>

#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "infra/config/env.hpp"

namespace duepay::infra::config {
namespace {

using domain::Error;
using domain::make_error;

Error bad(const std::string& what) {
    return make_error("invalid_chain_registry", "chain registry: " + what);
}

std::optional<domain::Address> address_of(const rapidjson::Value& obj, const char* key) {
    if (!obj.HasMember(key) || !obj[key].IsString()) return std::nullopt;
    auto bytes = domain::from_hex_fixed<20>(obj[key].GetString());
    if (!bytes) return std::nullopt;
    return domain::Address{*bytes};
}

std::string string_of(const rapidjson::Value& obj, const char* key) {
    if (!obj.HasMember(key) || !obj[key].IsString()) return {};
    return obj[key].GetString();
}

std::uint64_t uint_of(const rapidjson::Value& obj, const char* key, std::uint64_t fallback) {
    if (!obj.HasMember(key) || !obj[key].IsUint64()) return fallback;
    return obj[key].GetUint64();
}

}  // namespace

const TokenInfo* ChainInfo::token_by_symbol(std::string_view symbol) const {
    for (const auto& token : tokens) {
        if (token.symbol == symbol) return &token;
    }
    return nullptr;
}

domain::Result<ChainRegistry> ChainRegistry::parse(std::string_view json) {
    rapidjson::Document doc;
    const auto problem = domain::json::parse(doc, json);
    if (problem.refusal != domain::json::Refusal::none)
        return bad(domain::json::describe(problem, "the file"));
    if (!doc.IsObject()) return bad("not a JSON object");
    if (!doc.HasMember("chains") || !doc["chains"].IsArray()) return bad("missing array 'chains'");
    ChainRegistry registry;
    for (const auto& c : doc["chains"].GetArray()) {
        if (!c.IsObject() || !c.HasMember("chainId") || !c["chainId"].IsUint64()) {
            return bad("a chain without an integer chainId");
        }
        ChainInfo info;
        info.chain_id = domain::ChainId{c["chainId"].GetUint64()};
        const std::string where = "chain " + std::to_string(info.chain_id.value) + ": ";
        info.name = string_of(c, "name");
        const std::string network = string_of(c, "network");
        if (network != "testnet" && network != "mainnet")
            return bad(where + "network must be testnet|mainnet");
        info.testnet = network == "testnet";
        info.rpc_url = string_of(c, "rpcUrl");
        info.public_rpc_url = string_of(c, "publicRpcUrl");
        info.explorer_url = string_of(c, "explorerUrl");
        while (!info.explorer_url.empty() && info.explorer_url.back() == '/')
            info.explorer_url.pop_back();
        info.block_time_seconds = static_cast<std::uint32_t>(uint_of(c, "blockTimeSeconds", 1));
        info.confirmations = static_cast<std::uint32_t>(uint_of(c, "confirmations", 1));
        info.grace_seconds = uint_of(c, "graceSeconds", 0);
        info.transfer_rail = c.HasMember("transferRail") && c["transferRail"].IsBool() &&
                             c["transferRail"].GetBool();
        const auto fee = uint_of(c, "feeBps", 0);
        if (fee > 10000) return bad(where + "feeBps above 10000");
        info.fee_bps = static_cast<std::uint16_t>(fee);
        auto router = address_of(c, "router");
        if (!router) return bad(where + "router is not a 20-byte hex address");
        info.router = *router;
        if (auto a = address_of(c, "feeRecipient")) info.fee_recipient = *a;
        if (auto a = address_of(c, "depositFactory")) info.deposit_factory = *a;
        if (c.HasMember("forwarderInitCodeHash") && c["forwarderInitCodeHash"].IsString()) {
            auto hash = domain::from_hex_fixed<32>(c["forwarderInitCodeHash"].GetString());
            if (!hash) return bad(where + "forwarderInitCodeHash is not 32 bytes of hex");
            info.forwarder_init_code_hash = *hash;
        }
        // A transfer rail derives deposit addresses by CREATE2: without the factory and the
        // forwarder's init-code hash it would hand buyers addresses nobody can sweep.
        if (info.transfer_rail) {
            if (!c.HasMember("depositFactory") || info.deposit_factory == domain::Address{}) {
                return bad(where +
                           "transferRail needs depositFactory (a non-zero 20-byte address)");
            }
            if (!c.HasMember("forwarderInitCodeHash") ||
                info.forwarder_init_code_hash == domain::Bytes32{}) {
                return bad(where +
                           "transferRail needs forwarderInitCodeHash (32 non-zero bytes of hex)");
            }
        }
        info.default_token = string_of(c, "defaultToken");
        if (c.HasMember("tokens") && c["tokens"].IsArray()) {
            for (const auto& t : c["tokens"].GetArray()) {
                TokenInfo token;
                token.symbol = string_of(t, "symbol");
                token.name = string_of(t, "name");
                auto address = address_of(t, "address");
                if (token.symbol.empty() || !address)
                    return bad(where + "a token without symbol or address");
                token.address = *address;
                token.decimals = static_cast<int>(uint_of(t, "decimals", 0));
                info.tokens.push_back(std::move(token));
            }
        }
        if (info.token_by_symbol(info.default_token) == nullptr) {
            return bad(where + "defaultToken '" + info.default_token + "' is not among its tokens");
        }
        registry.chains_.push_back(std::move(info));
    }
    return registry;
}

ChainRegistry ChainRegistry::load_file(const std::string& path) {
    std::ifstream in(path);
    if (!in) throw ConfigError("cannot read the chain registry " + path);
    std::stringstream buffer;
    buffer << in.rdbuf();
    auto parsed = parse(buffer.str());
    if (!parsed) throw ConfigError(parsed.error().message + " (" + path + ")");
    return std::move(parsed).value();
}

const ChainInfo* ChainRegistry::find(domain::ChainId id) const {
    for (const auto& chain : chains_) {
        if (chain.chain_id == id) return &chain;
    }
    return nullptr;
}

}  // namespace duepay::infra::config
