// The chain registry: var/chains.json written by the chain deploy script (contract in the lead's
// brief). Parsed once at start-up into plain values; lookups by chain id and token symbol.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::infra::config {

struct TokenInfo {
    std::string symbol;
    std::string name;
    domain::Address address;
    int decimals = 0;
};

struct ChainInfo {
    domain::ChainId chain_id;
    std::string name;
    bool testnet = true;  // "network": "testnet" | "mainnet"
    std::string rpc_url;
    std::string public_rpc_url;  // "publicRpcUrl", optional: offered to wallets (add chain)
    std::string explorer_url;  // "explorerUrl", optional: transactions at <explorer_url>/tx/<hash>
    std::uint32_t block_time_seconds = 1;
    std::uint32_t confirmations = 1;
    std::uint64_t grace_seconds = 0;
    bool transfer_rail = false;
    std::uint16_t fee_bps = 0;
    domain::Address fee_recipient;
    domain::Address router;
    domain::Address deposit_factory;
    domain::Bytes32 forwarder_init_code_hash{};
    std::string default_token;
    std::vector<TokenInfo> tokens;

    const TokenInfo* token_by_symbol(std::string_view symbol) const;
};

class ChainRegistry {
  public:
    // Parses the JSON text; error code "invalid_chain_registry" with the offending field. A chain
    // with transferRail true must name a non-zero depositFactory and forwarderInitCodeHash.
    static domain::Result<ChainRegistry> parse(std::string_view json);
    // Reads and parses a file; throws ConfigError when it cannot.
    static ChainRegistry load_file(const std::string& path);

    const ChainInfo* find(domain::ChainId id) const;
    const std::vector<ChainInfo>& chains() const { return chains_; }

  private:
    std::vector<ChainInfo> chains_;
};

}  // namespace duepay::infra::config
