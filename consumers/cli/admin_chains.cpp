// `duepay admin chains`: the chain registry of DUEPAY_CHAINS_FILE as the API parses it, as JSON
// (docs/accounts.md); RPC URLs redacted, since they may hold a provider key.
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <optional>

#include "consumers/cli/admin.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/url.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/config/env.hpp"

namespace duepay::consumers {
namespace {

using domain::json::str;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

int chains_command() {
    const auto path = infra::config::require_env("DUEPAY_CHAINS_FILE");
    const auto registry = infra::config::ChainRegistry::load_file(path);  // what the API parses
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartObject();
    str(w, "file", path);
    w.Key("chains");
    w.StartArray();
    for (const auto& c : registry.chains()) {
        w.StartObject();
        w.Key("chainId");
        w.Uint64(c.chain_id.value);
        str(w, "name", c.name);
        str(w, "network", c.testnet ? "testnet" : "mainnet");
        str(w, "rpcUrl", domain::redact_url(c.rpc_url));  // the full URL may hold a provider key
        w.Key("blockTimeSeconds");
        w.Uint(c.block_time_seconds);
        w.Key("confirmations");
        w.Uint(c.confirmations);
        w.Key("graceSeconds");
        w.Uint64(c.grace_seconds);
        w.Key("transferRail");
        w.Bool(c.transfer_rail);
        w.Key("feeBps");
        w.Uint(c.fee_bps);
        str(w, "feeRecipient", domain::evm::to_checksum(c.fee_recipient));
        str(w, "router", domain::evm::to_checksum(c.router));
        str(w, "depositFactory", domain::evm::to_checksum(c.deposit_factory));
        str(w, "forwarderInitCodeHash", domain::to_hex(c.forwarder_init_code_hash));
        str(w, "defaultToken", c.default_token);
        w.Key("tokens");
        w.StartArray();
        for (const auto& t : c.tokens) {
            w.StartObject();
            str(w, "symbol", t.symbol);
            str(w, "name", t.name);
            str(w, "address", domain::evm::to_checksum(t.address));
            w.Key("decimals");
            w.Int(t.decimals);
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    w.EndObject();
    std::cout << b.GetString() << std::endl;
    return 0;
}

}  // namespace

AdminGroupRun define_chains_command(CLI::App& admin) {
    auto* chains = &admin_subcommand(admin, "chains", "the chain registry of DUEPAY_CHAINS_FILE");
    return [chains]() -> std::optional<int> {
        if (!chains->parsed()) return std::nullopt;
        try {
            return chains_command();
        } catch (...) {
            return report_admin_exception();
        }
    };
}

}  // namespace duepay::consumers
