// Dev tools that send transactions from the dev buyer keys (DUEPAY_DEV_BUYER_KEYS): test-mode
// payment simulation and the shared pieces (charge lookup, signed legacy transactions). Real
// signed raw transactions (infra/rpc/transaction.hpp), not the node's unlocked accounts.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "consumers/cli/command.hpp"
#include "domain/types.hpp"
#include "infra/config/chain_registry.hpp"
#include "infra/rpc/rpc_client.hpp"

namespace duepay::consumers {

// The fields of a charge the chain tools need, from the charges read model.
struct ChargeOnChain {
    domain::InvoiceId invoice_id;
    std::string mode;          // test | live
    std::string payment_mode;  // wallet | transfer | both
    std::string status;
    domain::ChainId chain_id;
    domain::TokenAmount amount;
    domain::Address token;
    domain::Address merchant;
    std::uint16_t fee_bps = 0;
    std::uint64_t deadline = 0;
    std::optional<domain::Address> deposit_address;
};

// Throws std::runtime_error when the invoice is unknown to the read model.
ChargeOnChain load_charge(const std::string& database_url, const domain::InvoiceId& invoice_id);

// Signs and sends a legacy transaction from `key_hex`, waits for the receipt (bounded).
infra::rpc::Receipt send_signed(infra::rpc::RpcClient& rpc, domain::ChainId chain,
                                const std::string& key_hex, const domain::Address& to,
                                const domain::Bytes& data, std::uint64_t gas);

// Prints {"txHash","blockNumber","status"}; returns the exit code: 0, or 4 when it reverted.
int print_receipt(const infra::rpc::Receipt& receipt);

// The i-th key of DUEPAY_DEV_BUYER_KEYS (comma-separated); ConfigError when missing.
std::string dev_buyer_key(std::size_t index);

// `duepay simulate-payment` (also `duepay admin simulate-payment`): --invoice <id>
// [--rail wallet|transfer] [--amount N] [--token SYMBOL] [--buyer I].
cli::Run define_simulate_payment(CLI::App& cmd);

}  // namespace duepay::consumers
