// The hosted checkout's view of a charge (docs/design.md, docs/checkout.md): what a buyer needs and
// nothing else (no project id, no key data, no fee recipient). One CheckoutView feeds both the
// public JSON (GET /v1/checkout/:id) and the server-rendered page (GET /c/:id), so the two can
// never disagree. Pure: no I/O, no clock (the caller passes `now`), no QR drawing (the caller
// passes the SVG), so every rule here is unit-tested without a server.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/checkout/checkout_messages.hpp"
#include "api/http/charge_json.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/money/fiat.hpp"
#include "domain/ports/signer.hpp"
#include "infra/config/chain_registry.hpp"

namespace duepay::api::checkout {

// One transaction the wallet sends: eth_sendTransaction {to, data} (value 0).
struct WalletTx {
    std::string to;    // EIP-55
    std::string data;  // 0x calldata
};

struct WalletRail {
    std::string router;     // EIP-55
    std::string merchant;   // EIP-55 (the intent's payout wallet)
    int fee_bps = 0;        // the intent's fee
    std::string signature;  // 0x + 130 hex, signed now
    WalletTx approve;       // token.approve(router, amount)
    WalletTx pay;           // router.pay(intent, signature)
};

struct CheckoutView {
    std::string invoice_id;
    Status status = Status::pending;
    std::string payment_mode;  // wallet | transfer | both
    std::uint64_t chain_id = 0;
    std::string chain_name;
    bool testnet = true;
    std::string explorer_url;    // may be empty
    std::string public_rpc_url;  // for wallet_addEthereumChain; may be empty
    std::string token_address;   // EIP-55
    std::string token_symbol;
    std::string token_name;
    int token_decimals = 0;
    std::string amount;          // smallest unit
    std::string amount_display;  // whole tokens, exact ("1.25")
    std::string amount_confirmed;
    std::string amount_due;  // amount - confirmed, floored at 0
    std::string amount_due_display;
    std::optional<std::string> fiat_json;  // the charge's fiat object, as stored
    std::optional<domain::money::FiatCurrency> fiat_currency;
    std::optional<std::string> fiat_amount;      // decimal text
    std::optional<std::string> deposit_address;  // transfer rail only
    std::optional<std::string> payment_uri;      // EIP-681 of amount_due to the deposit address
    std::int64_t deadline = 0;                   // unix seconds
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::optional<std::string> redirect_url;  // return_url + invoiceId (+ reference)
    Branding branding;
    std::uint32_t confirmations_required = 1;
    std::optional<std::uint64_t> confirmations_seen;  // while confirming, when known
    std::optional<std::string> tx_hash;               // the latest payment's transaction
    std::optional<std::string> tx_url;                // explorer link of tx_hash
    std::optional<std::string> exception;
    std::optional<WalletRail> wallet;  // wallet and both, while payable, with a signer
};

// Builds the view. `signer` null or a status that cannot be paid any more: no wallet rail. Which
// statuses can still be paid, and which are final, is the domain's (domain::charge::payable,
// final_status).
// `confirmations_seen` comes from the chain (the caller's port), nullopt when unknown.
CheckoutView build_view(const ChargeView& row, const infra::config::ChainInfo* chain,
                        const Branding& branding, const ports::Signer* signer,
                        std::optional<std::uint64_t> confirmations_seen = std::nullopt);

// The public JSON object (the envelope's `data`), documented in docs/checkout.md.
std::string checkout_json(const CheckoutView& view);

// The SSE `data` of one status change: {invoiceId, status, amountConfirmed, amountDue, ...}.
std::string status_event_json(const CheckoutView& view);

// `url` with invoiceId and reference appended as query parameters (percent-encoded), keeping
// the URL's own parameters and putting them before any #fragment.
std::string append_return_params(std::string_view url, std::string_view invoice_id,
                                 const std::optional<std::string>& reference);

}  // namespace duepay::api::checkout
