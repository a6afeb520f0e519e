// The charge's decisions (docs/style.md, A pure core): decide(state, command) -> the events that
// record what happened, or a rejection; evolve (charge_state.hpp) folds those events back into the
// state. Every rule of a charge's life that is not a fold lives here: how a charge is created (its
// deadline, grace and CREATE2 deposit address), which payment is inside the window, what a
// confirmed payment leads to (paid, underpaid, late, wrong token), when chain time expires a
// charge, which detection a reorg withdraws. Callers (the api's create, chainwatch) gather facts
// and apply the events; they decide nothing. Pure: chain time and "now" come in the command.
//
// A command that changes nothing (a payment already decided, a block before the limit) returns
// no events; a command that cannot apply to the state (a second Create, a fact about a charge not
// created yet, a refund of nothing) is a rejection with a stable code.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/charge/create_rules.hpp"
#include "domain/events/event.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::charge {

// A merchant's charge, priced and admitted by the api.
struct Create {
    InvoiceId invoice_id;
    TokenAmount amount;
    Address token;
    std::string token_symbol;
    std::uint32_t token_decimals = 0;
    events::PaymentMode payment_mode = events::PaymentMode::both;
    Address merchant;
    std::uint32_t fee_bps = 0;
    std::uint64_t now_seconds = 0;    // unix seconds
    std::uint64_t expires_in = 0;     // seconds from now to the deadline
    std::uint64_t grace_seconds = 0;  // the chain's transfer grace (unused for wallet-only)
    Address deposit_factory;          // the chain's CREATE2 factory and forwarder init code
    Bytes32 forwarder_init_code_hash{};
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::optional<events::FiatQuote> fiat;
    events::Metadata metadata;  // checked here too: invalid_metadata (events/metadata.hpp)
};

// A token movement to this charge seen on chain (a router InvoicePaid or an ERC-20 Transfer to its
// deposit address), `depth` blocks deep (1: in the head block) of `confirmations` required.
struct ObservePayment {
    events::Payment payment;
    std::uint64_t block_timestamp = 0;  // chain time of payment.block_number
    std::uint64_t depth = 0;
    std::uint64_t confirmations = 1;
};

// The block a payment was detected in left the canonical chain.
struct ObserveReorg {
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    std::uint64_t block_number = 0;
    Bytes32 block_hash{};  // the orphaned block
};

// A block reached confirmation depth: every block before it is processed. Chain time decides
// expiry.
struct ObserveBlock {
    std::uint64_t number = 0;
    std::uint64_t timestamp = 0;
};

// The factory swept the deposit address (its Settled log reached confirmation depth).
struct ObserveSettlement {
    events::ChargeSettled settled;
};

// The merchant asks to record a refund they sent (api). `refund_id` is refund_id(invoice, tx).
struct RequestRefund {
    std::string refund_id;
    Bytes32 tx_hash{};
};

// One ERC-20 Transfer log of a transaction receipt.
struct TokenTransfer {
    std::uint32_t log_index = 0;
    Address token;
    Address from;
    Address to;
    TokenAmount amount;
};

// What chainwatch found for a pending refund: the receipt (nullopt: none yet) of its transaction.
struct RefundReceipt {
    bool success = false;
    std::uint64_t block_number = 0;
    std::vector<TokenTransfer> transfers;  // in log order
};
struct ObserveRefund {
    std::string refund_id;
    std::optional<RefundReceipt> receipt;
    std::uint64_t depth = 0;  // of the receipt's block (1: the head), when there is one
    std::uint64_t confirmations = 1;
    std::int64_t now_ms = 0;              // wall clock of the observer
    std::int64_t not_found_after_ms = 0;  // the bound on a missing receipt, from the request
    std::vector<std::uint32_t> claimed;   // log indexes of this tx recorded for other charges
};

// A person marks the charge's open issue as dealt with (api, dashboard; ADR 0230). The note as
// typed: decide normalizes it (events::normalize_resolution_note).
struct ResolveException {
    events::Actor actor;
    std::string note;
};

using Command = std::variant<Create, ObservePayment, ObserveReorg, ObserveBlock, ObserveSettlement,
                             RequestRefund, ObserveRefund, ResolveException>;

// The refund id of a charge's refund transaction: "rf_" + the first 12 bytes (hex) of
// keccak-256("duepay.refund|<invoiceId hex>|<txHash hex>"). Asking twice names the same refund.
std::string refund_id(const InvoiceId& invoice, const Bytes32& tx_hash);

// The event id of the resolution of `issue`: "xr_" + the first 12 bytes (hex) of
// keccak-256("duepay.resolve|<invoiceId hex>|<exception>|<refundId>"). One issue has one
// resolution, so a retried resolve appends a duplicate that every consumer drops.
std::string resolution_event_id(const InvoiceId& invoice, const Issue& issue);

// The events `command` leads to given `state` (in order: apply each before the next decision),
// or a rejection: charge_exists, charge_not_created, invalid_amount, invalid_expires_in (outside
// create_rules.hpp's bounds), invalid_metadata, charge_not_refundable (a refund request of a charge
// that holds nothing of its token to give back); for ResolveException invalid_note, invalid_actor
// (an id not of its kind's form), nothing_to_resolve (the charge has no exception and no rejected
// refund) and exception_already_resolved (it has, and each is resolved). A resolve resolves
// open_issue(state): the charge's exception before a rejected refund.
Result<std::vector<events::EventData>> decide(const ChargeState& state, const Command& command);

// The words of the charge_not_refundable rejection, which the refund route answers as they are
// (docs/refunds.md).
inline constexpr std::string_view kNotRefundableMessage =
    "the charge holds none of its token to refund: nothing of it confirmed or late (pending, "
    "confirming, expired without deposits, only a wrong-token deposit), or refunded in full";

// The words of the two resolve rejections, which the resolve routes answer as they are.
inline constexpr std::string_view kNothingToResolveMessage =
    "the charge has nothing to resolve: no exception (overpaid, paid late, partial, wrong token) "
    "and no rejected refund";
inline constexpr std::string_view kAlreadyResolvedMessage =
    "the charge's exceptions are resolved already";

// Chain time after which a charge no longer takes a transfer-rail deposit into its window:
// deadline + grace (the router enforces the deadline on the wallet rail itself).
std::uint64_t transfer_limit(const ChargeState& state);

// Chain time after which an unpaid charge expires: the transfer limit when it has a deposit
// address, else the deadline.
std::uint64_t expiry_limit(const ChargeState& state);

// Nothing can happen to the charge any more that a chain watcher must see: chain time is
// `retain_seconds` past its expiry limit (the window for late deposits that are still recorded),
// its status is final (paid, expired, failed or refunded), no payment is unconfirmed, no refund
// waits for a verdict, and its deposit address, if it received a transfer, has been swept
// (charge.settled). A deposit after that is not recorded as a charge event (docs/chainwatch.md).
bool done(const ChargeState& state, std::uint64_t chain_time, std::uint64_t retain_seconds);

}  // namespace duepay::domain::charge
