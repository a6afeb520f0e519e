#include "api/checkout/checkout_view.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <array>
#include <cctype>
#include <cstdio>
#include <ctime>
#include <vector>

#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/evm/wallet_calls.hpp"
#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"
#include "domain/url.hpp"

namespace duepay::api::checkout {
namespace {

using Writer = rapidjson::Writer<rapidjson::StringBuffer>;
namespace evm = domain::evm;

using domain::json::opt_str;
using domain::json::str;

// The latest non-empty txHash of the timeline (a JSON array of {status, at, txHash}).
std::optional<std::string> latest_tx(const std::string& timeline_json) {
    rapidjson::Document doc;
    if (domain::json::parse(doc, timeline_json).refusal != domain::json::Refusal::none ||
        !doc.IsArray())
        return std::nullopt;
    std::optional<std::string> found;
    for (const auto& entry : doc.GetArray()) {
        if (entry.IsObject() && entry.HasMember("txHash") && entry["txHash"].IsString()) {
            found = entry["txHash"].GetString();
        }
    }
    return found;
}

std::optional<WalletRail> wallet_rail(const ChargeView& row, const infra::config::ChainInfo& chain,
                                      const ports::Signer& signer) {
    auto id = domain::parse_invoice_id(row.invoice_id);
    if (!id) return std::nullopt;
    evm::PaymentIntent intent{*id,
                              row.merchant,
                              row.token,
                              row.amount,
                              static_cast<std::uint16_t>(row.fee_bps),
                              domain::uint256(row.deadline)};
    const auto digest = evm::intent_digest(evm::Eip712Domain{chain.chain_id, chain.router}, intent);
    const auto signature = signer.sign_digest(digest);
    WalletRail rail;
    rail.router = evm::to_checksum(chain.router);
    rail.merchant = evm::to_checksum(row.merchant);
    rail.fee_bps = row.fee_bps;
    rail.signature = domain::to_hex(signature.bytes);
    rail.approve = WalletTx{evm::to_checksum(row.token),
                            domain::to_hex(evm::erc20_approve_calldata(chain.router, row.amount))};
    rail.pay = WalletTx{rail.router, domain::to_hex(evm::router_pay_calldata(intent, signature))};
    return rail;
}

std::string percent_encode(std::string_view text) {
    static const char* hex = "0123456789ABCDEF";
    std::string out;
    for (unsigned char c : text) {
        if (std::isalnum(c) != 0 || c == '-' || c == '_' || c == '.' || c == '~') {
            out += static_cast<char>(c);
        } else {
            out += '%';
            out += hex[c >> 4];
            out += hex[c & 15];
        }
    }
    return out;
}

}  // namespace

CheckoutView build_view(const ChargeView& row, const infra::config::ChainInfo* chain,
                        const Branding& branding, const ports::Signer* signer,
                        std::optional<std::uint64_t> confirmations_seen) {
    CheckoutView v;
    v.invoice_id = row.invoice_id;
    v.status = row.status;
    v.payment_mode = domain::events::to_string(row.payment_mode);
    v.chain_id = row.chain_id.value;
    v.token_address = evm::to_checksum(row.token);
    v.amount = domain::money::to_string(row.amount);
    v.amount_confirmed = domain::money::to_string(row.amount_confirmed);
    v.deadline = row.deadline;
    v.reference = row.reference;
    v.return_url = row.return_url;
    v.branding = branding;
    v.exception = row.exception;
    v.fiat_json = row.fiat_json;
    const infra::config::TokenInfo* listed = nullptr;
    if (chain != nullptr) {
        v.chain_name = chain->name;
        v.testnet = chain->testnet;
        v.explorer_url = chain->explorer_url;
        v.public_rpc_url = chain->public_rpc_url;
        v.confirmations_required = chain->confirmations;
        for (const auto& t : chain->tokens) {
            if (t.address == row.token) listed = &t;
        }
    } else {
        v.chain_name = "chain " + std::to_string(row.chain_id.value);
    }
    v.token_symbol = row.token_symbol.value_or(listed ? listed->symbol : "");
    v.token_name = listed ? listed->name : v.token_symbol;
    v.token_decimals = row.token_decimals.value_or(listed ? listed->decimals : 0);
    const auto decimals = static_cast<unsigned>(std::clamp(v.token_decimals, 0, 77));

    const domain::TokenAmount due{
        row.amount_confirmed.value >= row.amount.value
            ? domain::uint256(0)
            : domain::uint256(row.amount.value - row.amount_confirmed.value)};
    v.amount_display = domain::money::format_units(row.amount, decimals);
    v.amount_due = domain::money::to_string(due);
    v.amount_due_display = domain::money::format_units(due, decimals);

    if (row.fiat_json) {
        rapidjson::Document fiat;
        const auto problem = domain::json::parse(fiat, *row.fiat_json);
        if (problem.refusal == domain::json::Refusal::none && fiat.IsObject()) {
            if (fiat.HasMember("currency") && fiat["currency"].IsString()) {
                auto currency = domain::money::parse_fiat_currency(fiat["currency"].GetString());
                if (currency) v.fiat_currency = *currency;
            }
            if (fiat.HasMember("amount") && fiat["amount"].IsString())
                v.fiat_amount = fiat["amount"].GetString();
        }
    }

    const bool open = domain::charge::payable(row.status);
    if (row.payment_mode != PaymentMode::wallet && row.deposit_address) {
        v.deposit_address = evm::to_checksum(*row.deposit_address);
        if (open && due.value > 0) {
            v.payment_uri =
                evm::eip681_transfer_uri(row.token, row.chain_id, *row.deposit_address, due);
        }
    }
    // The router takes the whole amount in one call: once part came by transfer, the wallet rail
    // would overpay, so it is offered only while nothing is confirmed.
    const bool nothing_paid = row.amount_confirmed.value == 0;
    if (row.payment_mode != PaymentMode::transfer && row.status == Status::pending &&
        nothing_paid && signer != nullptr && chain != nullptr) {
        v.wallet = wallet_rail(row, *chain, *signer);
    }
    if (row.status == Status::confirming) v.confirmations_seen = confirmations_seen;
    v.tx_hash = latest_tx(row.timeline_json);
    if (v.tx_hash) v.tx_url = domain::explorer_tx_url(v.explorer_url, *v.tx_hash);
    if (row.return_url)
        v.redirect_url = append_return_params(*row.return_url, row.invoice_id, row.reference);
    return v;
}

std::string checkout_json(const CheckoutView& v) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    str(w, "invoiceId", v.invoice_id);
    str(w, "status", domain::charge::to_string(v.status));
    str(w, "mode", v.payment_mode);
    w.Key("chain");
    w.StartObject();
    w.Key("chainId");
    w.Uint64(v.chain_id);
    str(w, "name", v.chain_name);
    w.Key("testnet");
    w.Bool(v.testnet);
    opt_str(w, "explorerUrl",
            v.explorer_url.empty() ? std::nullopt : std::optional(v.explorer_url));
    opt_str(w, "rpcUrl", v.public_rpc_url.empty() ? std::nullopt : std::optional(v.public_rpc_url));
    w.EndObject();
    w.Key("token");
    w.StartObject();
    str(w, "address", v.token_address);
    str(w, "symbol", v.token_symbol);
    str(w, "name", v.token_name);
    w.Key("decimals");
    w.Int(v.token_decimals);
    w.EndObject();
    str(w, "amount", v.amount);
    str(w, "amountDisplay", v.amount_display);
    str(w, "amountConfirmed", v.amount_confirmed);
    str(w, "amountDue", v.amount_due);
    str(w, "amountDueDisplay", v.amount_due_display);
    w.Key("fiat");
    if (v.fiat_json) {
        w.RawValue(v.fiat_json->data(), v.fiat_json->size(), rapidjson::kObjectType);
    } else {
        w.Null();
    }
    opt_str(w, "depositAddress", v.deposit_address);
    opt_str(w, "paymentUri", v.payment_uri);
    str(w, "deadline", std::to_string(v.deadline));
    opt_str(w, "reference", v.reference);
    opt_str(w, "returnUrl", v.return_url);
    opt_str(w, "redirectUrl", v.redirect_url);
    w.Key("branding");
    w.StartObject();
    str(w, "projectName", v.branding.project_name);
    opt_str(w, "logoUrl", v.branding.logo_url);
    opt_str(w, "accentColor", v.branding.accent_color);
    w.EndObject();
    w.Key("confirmations");
    w.StartObject();
    w.Key("required");
    w.Uint(v.confirmations_required);
    w.Key("seen");
    if (v.confirmations_seen) {
        w.Uint64(*v.confirmations_seen);
    } else {
        w.Null();
    }
    w.EndObject();
    opt_str(w, "txHash", v.tx_hash);
    opt_str(w, "txUrl", v.tx_url);
    opt_str(w, "exception", v.exception);
    w.Key("wallet");
    if (v.wallet) {
        const auto& r = *v.wallet;
        w.StartObject();
        str(w, "router", r.router);
        w.Key("intent");
        w.StartObject();
        str(w, "invoiceId", v.invoice_id);
        str(w, "merchant", r.merchant);
        str(w, "token", v.token_address);
        str(w, "amount", v.amount);
        w.Key("feeBps");
        w.Int(r.fee_bps);
        str(w, "deadline", std::to_string(v.deadline));
        w.EndObject();
        str(w, "signature", r.signature);
        w.Key("transactions");
        w.StartArray();
        for (const auto* tx : {&r.approve, &r.pay}) {
            w.StartObject();
            str(w, "step", tx == &r.approve ? "approve" : "pay");
            str(w, "to", tx->to);
            str(w, "data", tx->data);
            str(w, "value", "0x0");
            w.EndObject();
        }
        w.EndArray();
        w.EndObject();
    } else {
        w.Null();
    }
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string status_event_json(const CheckoutView& v) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    str(w, "invoiceId", v.invoice_id);
    str(w, "status", domain::charge::to_string(v.status));
    str(w, "amountConfirmed", v.amount_confirmed);
    str(w, "amountDue", v.amount_due);
    w.Key("confirmationsSeen");
    if (v.confirmations_seen) {
        w.Uint64(*v.confirmations_seen);
    } else {
        w.Null();
    }
    w.Key("confirmationsRequired");
    w.Uint(v.confirmations_required);
    opt_str(w, "txHash", v.tx_hash);
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string append_return_params(std::string_view url, std::string_view invoice_id,
                                 const std::optional<std::string>& reference) {
    std::string_view base = url;
    std::string_view fragment;
    if (auto hash = url.find('#'); hash != std::string_view::npos) {
        base = url.substr(0, hash);
        fragment = url.substr(hash);
    }
    std::string out(base);
    if (out.find('?') == std::string::npos) {
        out += '?';
    } else if (out.back() != '?' && out.back() != '&') {
        out += '&';
    }
    out += "invoiceId=";
    out += percent_encode(invoice_id);
    if (reference) {
        out += "&reference=";
        out += percent_encode(*reference);
    }
    out += fragment;
    return out;
}

}  // namespace duepay::api::checkout
