#include "domain/charge/decide.hpp"

#include <algorithm>
#include <type_traits>

#include "domain/evm/create2.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::charge {

namespace {

using namespace duepay::domain::events;
using Events = std::vector<EventData>;

Error not_created() {
    return make_error("charge_not_created", "no charge.created has been applied to this state");
}

// A payment counts toward the charge: the wallet rail always (the router enforces the deadline),
// a transfer while the charge is not expired and its block is not past the transfer limit.
bool in_window(const ChargeState& s, const Payment& p, std::uint64_t block_timestamp) {
    if (p.rail == Rail::wallet) return true;
    return !s.expired && block_timestamp <= transfer_limit(s);
}

Result<Events> create(const ChargeState& s, const Create& c) {
    if (s.created) return make_error("charge_exists", "the charge was created already");
    if (c.amount.value == 0) return make_error("invalid_amount", "the amount must be above zero");
    if (!expires_in_allowed(c.expires_in)) {
        return make_error("invalid_expires_in",
                          "a charge expires " + std::to_string(kMinExpiresInSeconds) + " to " +
                              std::to_string(kMaxExpiresInSeconds) + " seconds after its creation");
    }
    if (auto bad = check_metadata(c.metadata)) return *bad;
    ChargeCreated d;
    d.amount = c.amount;
    d.token = c.token;
    d.token_symbol = c.token_symbol;
    d.token_decimals = c.token_decimals;
    d.payment_mode = c.payment_mode;
    d.merchant = c.merchant;
    d.fee_bps = c.fee_bps;
    d.deadline = c.now_seconds + c.expires_in;
    d.grace_seconds = c.payment_mode == PaymentMode::wallet ? 0 : c.grace_seconds;
    if (c.payment_mode != PaymentMode::wallet) {
        const auto salt =
            evm::deposit_salt(c.invoice_id, c.merchant, static_cast<std::uint16_t>(c.fee_bps));
        d.deposit_address =
            evm::create2_address(c.deposit_factory, salt, c.forwarder_init_code_hash);
    }
    d.reference = c.reference;
    d.return_url = c.return_url;
    d.fiat = c.fiat;
    d.metadata = c.metadata;
    return Events{std::move(d)};
}

// Below confirmation depth: a detection, for payments of the charge's token inside its window.
Events detect(const ChargeState& s, const ObservePayment& o) {
    const auto& p = o.payment;
    if (p.token != s.token || !in_window(s, p, o.block_timestamp)) return {};
    const auto it = s.unconfirmed.find(PaymentKey{p.tx_hash, p.log_index});
    if (it != s.unconfirmed.end() && it->second.block_hash == p.block_hash) return {};
    return {PaymentDetected{p}};
}

// At confirmation depth: the decision (docs/events.md). A deposit in the window is recorded, then
// leads to paid or underpaid (nothing more when the charge was paid already: an extra deposit
// is recorded and shows as overpaid).
Events confirm(const ChargeState& s, const ObservePayment& o) {
    const auto& p = o.payment;
    if (p.token != s.token) return {ChargeFailed{FailureReason::wrong_token, p}};
    const TokenAmount total{saturating_add(s.amount_confirmed.value, p.amount.value)};
    if (p.rail == Rail::wallet) return {ChargePaid{p, total}};
    if (!in_window(s, p, o.block_timestamp)) return {LateDeposit{p}};
    Events out{DepositSeen{p}};
    if (s.amount_confirmed.value >= s.amount_due.value) return out;
    if (total.value >= s.amount_due.value) {
        out.emplace_back(ChargePaid{p, total});
    } else {
        out.emplace_back(ChargeUnderpaid{p, total});
    }
    return out;
}

Result<Events> observe(const ChargeState& s, const ObservePayment& o) {
    if (decided(s, PaymentKey{o.payment.tx_hash, o.payment.log_index})) return Events{};
    return o.depth < o.confirmations ? detect(s, o) : confirm(s, o);
}

Result<Events> observe(const ChargeState& s, const ObserveReorg& r) {
    const auto it = s.unconfirmed.find(PaymentKey{r.tx_hash, r.log_index});
    if (it == s.unconfirmed.end() || it->second.block_hash != r.block_hash) return Events{};
    return Events{PaymentReorged{r.tx_hash, r.log_index, r.block_number, r.block_hash}};
}

Result<Events> observe(const ChargeState& s, const ObserveBlock& b) {
    if (s.expired || s.amount_confirmed.value >= s.amount_due.value) return Events{};
    if (b.timestamp <= expiry_limit(s)) return Events{};
    const std::uint64_t grace = s.deposit_address ? s.grace_seconds : 0;
    return Events{ChargeExpired{s.deadline, grace, b.number, b.timestamp}};
}

Result<Events> observe(const ChargeState&, const ObserveSettlement& o) { return Events{o.settled}; }

Result<Events> observe(const ChargeState& s, const RequestRefund& r) {
    if (find_refund(s, r.refund_id) != nullptr) return Events{};  // asked before: same refund
    if (refundable(s).value == 0) {
        return make_error("charge_not_refundable", std::string(kNotRefundableMessage));
    }
    return Events{RefundRequested{r.refund_id, r.tx_hash}};
}

// The actor in the form the event carries (event_json_read refuses any other).
bool valid_actor(const Actor& a) {
    if (a.kind == ActorKind::key) return is_key_id(a.id) && !a.session_id;
    const bool lower_address = a.id.size() == 42 && a.id.starts_with("0x") &&
                               std::all_of(a.id.begin() + 2, a.id.end(), [](char c) {
                                   return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                               });
    return lower_address && a.session_id && is_session_id(*a.session_id);
}

Result<Events> observe(const ChargeState& s, const ResolveException& r) {
    auto note = normalize_resolution_note(r.note);
    if (!note) return note.error();
    if (!valid_actor(r.actor)) {
        return make_error("invalid_actor",
                          "the actor must be a wallet (lower-case address, with its session) or an "
                          "API key id");
    }
    const auto open = open_issue(s);
    if (!open) {
        if (issues(s).empty())
            return make_error("nothing_to_resolve", std::string(kNothingToResolveMessage));
        return make_error("exception_already_resolved", std::string(kAlreadyResolvedMessage));
    }
    ExceptionResolved d;
    d.exception = open->exception;
    if (!open->refund_id.empty()) d.refund_id = open->refund_id;
    d.resolved_by = r.actor;
    d.note = std::move(note).value();
    return Events{std::move(d)};
}

// Which Transfer of the receipt refunds this charge: the first of the charge's token from its
// merchant (payout) address that no other charge recorded; else why none does.
std::variant<const TokenTransfer*, RefundRejection> pick_transfer(const ChargeState& s,
                                                                  const ObserveRefund& o) {
    bool other_token = false;
    bool other_sender = false;
    for (const auto& t : o.receipt->transfers) {
        const bool claimed =
            std::find(o.claimed.begin(), o.claimed.end(), t.log_index) != o.claimed.end();
        if (t.from == s.merchant && t.token == s.token && t.amount.value > 0 && !claimed) return &t;
        if (t.from == s.merchant && t.token != s.token) other_token = true;
        if (t.from != s.merchant && t.token == s.token) other_sender = true;
    }
    if (other_token) return RefundRejection::wrong_token;
    if (other_sender) return RefundRejection::wrong_sender;
    return RefundRejection::no_transfer;
}

Result<Events> observe(const ChargeState& s, const ObserveRefund& o) {
    const auto* r = find_refund(s, o.refund_id);
    if (r == nullptr || r->status != RefundStatus::pending) return Events{};
    auto reject = [&](RefundRejection why) {
        return Events{RefundRejected{r->refund_id, r->tx_hash, why}};
    };
    if (!o.receipt) {
        const auto asked = events::parse_rfc3339_millis(r->requested_at).value_or(0);
        if (o.now_ms - asked > o.not_found_after_ms) return reject(RefundRejection::not_found);
        return Events{};
    }
    if (o.depth < o.confirmations) return Events{};  // reorgs: nothing is decided below depth
    if (!o.receipt->success) return reject(RefundRejection::transaction_failed);
    const auto picked = pick_transfer(s, o);
    if (const auto* why = std::get_if<RefundRejection>(&picked)) return reject(*why);
    const auto& t = *std::get<const TokenTransfer*>(picked);
    if (t.amount.value > refundable(s).value) return reject(RefundRejection::exceeds_paid);
    return Events{ChargeRefunded{r->refund_id, r->tx_hash, t.log_index, o.receipt->block_number,
                                 t.to, t.token, t.amount}};
}

}  // namespace

std::string refund_id(const InvoiceId& invoice, const Bytes32& tx_hash) {
    const std::string material = "duepay.refund|" + to_hex(invoice) + "|" + to_hex(tx_hash);
    const auto digest = evm::keccak256(std::string_view(material));
    return "rf_" + to_hex(std::span<const std::uint8_t>(digest.data(), 12)).substr(2);
}

std::string resolution_event_id(const InvoiceId& invoice, const Issue& issue) {
    const std::string material = "duepay.resolve|" + to_hex(invoice) + "|" +
                                 std::string(to_string(issue.exception)) + "|" + issue.refund_id;
    const auto digest = evm::keccak256(std::string_view(material));
    return "xr_" + to_hex(std::span<const std::uint8_t>(digest.data(), 12)).substr(2);
}

std::optional<PaymentMode> parse_payment_mode(std::string_view text) {
    for (const auto mode : {PaymentMode::wallet, PaymentMode::transfer, PaymentMode::both}) {
        if (to_string(mode) == text) return mode;
    }
    return std::nullopt;
}

Result<PaymentMode> payment_mode_on_chain(PaymentMode requested, bool transfer_rail) {
    if (transfer_rail) return requested;
    if (requested == PaymentMode::transfer) {
        return make_error("transfer_rail_unavailable",
                          "this chain has no transfer rail; use wallet");
    }
    return PaymentMode::wallet;  // docs/product.md: both falls back to wallet
}

std::uint64_t transfer_limit(const ChargeState& s) { return s.deadline + s.grace_seconds; }

std::uint64_t expiry_limit(const ChargeState& s) {
    return s.deposit_address ? transfer_limit(s) : s.deadline;
}

bool done(const ChargeState& s, std::uint64_t chain_time, std::uint64_t retain_seconds) {
    if (!s.created || chain_time <= expiry_limit(s) + retain_seconds) return false;
    if (!s.unconfirmed.empty()) return false;
    if (!final_status(s.status)) return false;
    if (refund_pending(s)) return false;  // chainwatch still owes a verdict
    return !s.deposit_address || !s.deposit_received || s.settled;
}

Result<std::vector<EventData>> decide(const ChargeState& state, const Command& command) {
    return std::visit(
        [&](const auto& c) -> Result<Events> {
            using T = std::decay_t<decltype(c)>;
            if constexpr (std::is_same_v<T, Create>) {
                return create(state, c);
            } else {
                if (!state.created) return not_created();
                return observe(state, c);
            }
        },
        command);
}

}  // namespace duepay::domain::charge
