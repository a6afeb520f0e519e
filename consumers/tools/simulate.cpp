#include "consumers/tools/simulate.hpp"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <sstream>
#include <stdexcept>

#include "domain/evm/address.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "infra/config/env.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/postgres/charge_lookup.hpp"
#include "infra/rpc/transaction.hpp"

namespace duepay::consumers {
namespace {

using namespace duepay::domain;

Address must_address(const std::string& text) {
    auto a = evm::parse_address(text);
    if (!a) throw std::runtime_error("bad address in read model: " + text);
    return *a;
}

struct SimulateOptions {
    std::string invoice;
    std::optional<std::string> rail;
    std::optional<std::string> amount;
    std::optional<std::string> token;
    std::size_t buyer = 0;
};

}  // namespace

ChargeOnChain load_charge(const std::string& database_url, const InvoiceId& invoice_id) {
    const auto row = infra::postgres::find_charge_chain_columns(database_url, to_hex(invoice_id));
    if (!row)
        throw std::runtime_error("unknown invoice " + to_hex(invoice_id) +
                                 " (not in the charges read model)");
    ChargeOnChain c;
    c.invoice_id = invoice_id;
    c.mode = row->mode;
    c.payment_mode = row->payment_mode;
    c.status = row->status;
    c.chain_id = ChainId{static_cast<std::uint64_t>(row->chain_id)};
    c.amount = TokenAmount{uint256(row->amount)};
    c.token = must_address(row->token);
    c.merchant = must_address(row->merchant);
    c.fee_bps = static_cast<std::uint16_t>(row->fee_bps);
    c.deadline = static_cast<std::uint64_t>(row->deadline);
    if (row->deposit_address) c.deposit_address = must_address(*row->deposit_address);
    return c;
}

std::string dev_buyer_key(std::size_t index) {
    const auto keys = infra::config::require_env("DUEPAY_DEV_BUYER_KEYS");
    std::stringstream in(keys);
    std::string key;
    for (std::size_t i = 0; std::getline(in, key, ','); ++i) {
        if (i == index) return key;
    }
    throw infra::config::ConfigError("DUEPAY_DEV_BUYER_KEYS has no key number " +
                                     std::to_string(index));
}

infra::rpc::Receipt send_signed(infra::rpc::RpcClient& rpc, ChainId chain,
                                const std::string& key_hex, const Address& to, const Bytes& data,
                                std::uint64_t gas) {
    auto signer = infra::crypto::Secp256k1Signer::from_hex(key_hex);
    if (!signer) throw infra::config::ConfigError("dev key: " + signer.error().message);
    infra::rpc::LegacyTransaction tx;
    tx.nonce = rpc.transaction_count(signer->address(), "pending");
    tx.gas_price = rpc.gas_price() * 2;  // head room over the base fee of the next blocks
    tx.gas = gas;
    tx.to = to;
    tx.data = data;
    tx.chain_id = chain;
    const auto raw = infra::rpc::sign_legacy_transaction(tx, signer.value());
    const auto hash = rpc.send_raw_transaction(raw);
    return rpc.wait_for_receipt(hash, std::chrono::seconds(30));
}

namespace {

int simulate_payment(const SimulateOptions& options) {
    const auto invoice = parse_invoice_id(options.invoice);
    if (!invoice) {
        std::cerr << "simulate-payment: --invoice must be 0x + 64 hex digits\n";
        return 2;
    }
    const auto charge = load_charge(infra::config::require_env("DATABASE_URL"), *invoice);
    const auto registry =
        infra::config::ChainRegistry::load_file(infra::config::require_env("DUEPAY_CHAINS_FILE"));
    const auto* chain = registry.find(charge.chain_id);
    if (chain == nullptr)
        throw infra::config::ConfigError("chain " + std::to_string(charge.chain_id.value) +
                                         " not in the registry");
    if (charge.mode != "test" || !chain->testnet) {
        std::cerr << "simulate-payment: refused: only test-mode charges on a testnet can be "
                     "simulated (this charge is "
                  << charge.mode << " on chain " << charge.chain_id.value << ", "
                  << (chain->testnet ? "testnet" : "mainnet") << ")\n";
        return 3;
    }
    const std::string rail =
        options.rail.value_or(charge.payment_mode == "transfer" ? "transfer" : "wallet");
    if (rail == "wallet" && charge.payment_mode == "transfer") {
        std::cerr << "simulate-payment: this charge accepts transfers only\n";
        return 3;
    }
    if (rail == "transfer" && !charge.deposit_address) {
        std::cerr << "simulate-payment: this charge has no deposit address (wallet rail only)\n";
        return 3;
    }
    const std::string key = dev_buyer_key(options.buyer);
    infra::rpc::RpcClient rpc(infra::rpc::RpcSettings{chain->rpc_url});
    infra::rpc::Receipt receipt;
    if (rail == "wallet") {
        if (options.amount || options.token) {
            std::cerr << "simulate-payment: --amount/--token apply to the transfer rail (the "
                         "intent fixes them)\n";
            return 2;
        }
        auto service = infra::crypto::Secp256k1Signer::from_hex(
            infra::config::require_env("DUEPAY_SIGNER_KEY"));
        if (!service)
            throw infra::config::ConfigError("DUEPAY_SIGNER_KEY: " + service.error().message);
        evm::PaymentIntent intent{charge.invoice_id, charge.merchant, charge.token,
                                  charge.amount,     charge.fee_bps,  uint256(charge.deadline)};
        // The signature the API returned for this charge: RFC 6979 makes it deterministic.
        const auto signature = service->sign_digest(
            evm::intent_digest(evm::Eip712Domain{charge.chain_id, chain->router}, intent));
        const auto approve = send_signed(
            rpc, charge.chain_id, key, charge.token,
            infra::rpc::erc20_approve_calldata(chain->router, charge.amount.value), 100000);
        if (!approve.success)
            throw std::runtime_error("approve reverted: " + to_hex(approve.tx_hash));
        receipt = send_signed(rpc, charge.chain_id, key, chain->router,
                              infra::rpc::router_pay_calldata(intent, signature), 300000);
    } else {
        Address token = charge.token;
        if (const auto& symbol = options.token) {
            const auto* info = chain->token_by_symbol(*symbol);
            if (info == nullptr) {
                std::cerr << "simulate-payment: no token " << *symbol << " on chain "
                          << charge.chain_id.value << "\n";
                return 2;
            }
            token = info->address;
        }
        uint256 amount = charge.amount.value;
        if (options.amount) amount = uint256(*options.amount);
        receipt = send_signed(rpc, charge.chain_id, key, token,
                              infra::rpc::erc20_transfer_calldata(*charge.deposit_address, amount),
                              100000);
    }
    return print_receipt(receipt);
}

}  // namespace

int print_receipt(const infra::rpc::Receipt& receipt) {
    std::cout << R"({"txHash":")" << to_hex(receipt.tx_hash) << R"(","blockNumber":)"
              << receipt.block_number << R"(,"status":")"
              << (receipt.success ? "success" : "reverted") << "\"}" << std::endl;
    return receipt.success ? 0 : 4;
}

cli::Run define_simulate_payment(CLI::App& cmd) {
    auto options = std::make_shared<SimulateOptions>();
    cmd.add_option("--invoice", options->invoice, "the charge (0x + 64 hex digits)")->required();
    cmd.add_option("--rail", options->rail,
                   "wallet: approve + Router.pay with the charge's signed "
                   "intent; transfer: ERC-20 transfer to the deposit address")
        ->check(CLI::IsMember({"wallet", "transfer"}));
    cmd.add_option("--amount", options->amount,
                   "transfer rail: in the token's smallest unit (default the amount due)");
    cmd.add_option(
        "--token", options->token,
        "transfer rail: another of the chain's tokens by symbol (a wrong-token deposit)");
    cmd.add_option("--buyer", options->buyer, "index of the DUEPAY_DEV_BUYER_KEYS key (default 0)");
    cmd.footer(
        "TESTNET, test-mode charges only. Sends signed raw transactions and prints\n"
        "{\"txHash\",\"blockNumber\",\"status\"}. Needs DATABASE_URL, DUEPAY_CHAINS_FILE, "
        "DUEPAY_SIGNER_KEY.");
    return [options](const std::atomic<bool>&) { return simulate_payment(*options); };
}

}  // namespace duepay::consumers
