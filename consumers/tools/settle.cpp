#include "consumers/tools/settle.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "consumers/tools/simulate.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/config/env.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers {

namespace {

struct SettleOptions {
    std::string invoice;
    bool send = false;
};

int settle(const SettleOptions& options) {
    const auto invoice = domain::parse_invoice_id(options.invoice);
    if (!invoice) {
        std::cerr << "settle: the invoice id must be 0x + 64 hex digits\n";
        return 2;
    }
    const auto charge = load_charge(infra::config::require_env("DATABASE_URL"), *invoice);
    if (!charge.deposit_address) {
        std::cerr << "settle: this charge has no deposit address (wallet rail pays the merchant "
                     "directly)\n";
        return 3;
    }
    const auto registry =
        infra::config::ChainRegistry::load_file(infra::config::require_env("DUEPAY_CHAINS_FILE"));
    const auto* chain = registry.find(charge.chain_id);
    if (chain == nullptr) throw infra::config::ConfigError("chain not in the registry");
    const auto data = infra::rpc::factory_settle_calldata(charge.invoice_id, charge.merchant,
                                                          charge.fee_bps, charge.token);
    if (!options.send) {
        std::cout << R"({"chainId":)" << charge.chain_id.value << R"(,"to":")"
                  << domain::evm::to_checksum(chain->deposit_factory) << R"(","data":")"
                  << domain::to_hex(data) << "\"}" << std::endl;
        return 0;
    }
    infra::rpc::RpcClient rpc(infra::rpc::RpcSettings{chain->rpc_url});
    const auto receipt =
        send_signed(rpc, charge.chain_id, dev_buyer_key(0), chain->deposit_factory, data, 400000);
    return print_receipt(receipt);
}

}  // namespace

cli::Run define_settle(CLI::App& cmd) {
    auto options = std::make_shared<SettleOptions>();
    cmd.add_option("invoiceId", options->invoice, "the charge (0x + 64 hex digits)")->required();
    cmd.add_flag("--send", options->send,
                 "send it from the first DUEPAY_DEV_BUYER_KEYS key (dev chains) and wait for the "
                 "receipt; chainwatch then appends charge.settled");
    cmd.footer(
        "Prints {\"chainId\",\"to\",\"data\"} of DepositFactory.settle for the charge's deposit "
        "address\n(any wallet may send it). Needs DATABASE_URL, DUEPAY_CHAINS_FILE.");
    return [options](const std::atomic<bool>&) { return settle(*options); };
}

}  // namespace duepay::consumers
