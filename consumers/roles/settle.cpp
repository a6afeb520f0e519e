#include "consumers/roles/settle.hpp"

#include <iostream>

#include "consumers/roles/simulate.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/config/env.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers {

int run_settle(const std::vector<std::string>& args) {
    std::optional<std::string> invoice_text;
    bool send = false;
    for (const auto& a : args) {
        if (a == "--send") send = true;
        else if (!a.empty() && a[0] != '-') invoice_text = a;
    }
    if (!invoice_text) {
        std::cerr << "usage: duepay settle <invoiceId> [--send]\n"
                     "  prints {\"to\",\"data\"} of DepositFactory.settle for the charge's deposit address (any wallet\n"
                     "  may send it); --send sends it from the first DUEPAY_DEV_BUYER_KEYS key (dev chains) and waits\n"
                     "  for the receipt. chainwatch then appends charge.settled.\n";
        return 2;
    }
    const auto invoice = domain::parse_invoice_id(*invoice_text);
    if (!invoice) {
        std::cerr << "settle: the invoice id must be 0x + 64 hex digits\n";
        return 2;
    }
    const auto charge = load_charge(infra::config::require_env("DATABASE_URL"), *invoice);
    if (!charge.deposit_address) {
        std::cerr << "settle: this charge has no deposit address (wallet rail pays the merchant directly)\n";
        return 3;
    }
    const auto registry = infra::config::ChainRegistry::load_file(infra::config::require_env("DUEPAY_CHAINS_FILE"));
    const auto* chain = registry.find(charge.chain_id);
    if (chain == nullptr) throw infra::config::ConfigError("chain not in the registry");
    const auto data = infra::rpc::factory_settle_calldata(charge.invoice_id, charge.merchant, charge.fee_bps, charge.token);
    if (!send) {
        std::cout << R"({"chainId":)" << charge.chain_id.value << R"(,"to":")" << domain::evm::to_checksum(chain->deposit_factory)
                  << R"(","data":")" << domain::to_hex(data) << "\"}" << std::endl;
        return 0;
    }
    infra::rpc::RpcClient rpc(infra::rpc::RpcSettings{chain->rpc_url});
    const auto receipt = send_signed(rpc, charge.chain_id, dev_buyer_key(0), chain->deposit_factory, data, 400000);
    std::cout << R"({"txHash":")" << domain::to_hex(receipt.tx_hash) << R"(","blockNumber":)" << receipt.block_number
              << R"(,"status":")" << (receipt.success ? "success" : "reverted") << "\"}" << std::endl;
    return receipt.success ? 0 : 4;
}

}  // namespace duepay::consumers
