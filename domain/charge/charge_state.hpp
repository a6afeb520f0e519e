// The charge as a decider's state (docs/style.md, A pure core): initial_state(), evolve(state,
// event), fold; the decisions that produce those events are decide (decide.hpp).
// Status is derived from the facts seen so far (payments keyed by (txHash, logIndex), the expiry
// fact, failure and refund), never from the order in which same-block facts arrive, so a replay
// or a re-emitted chain fact can never change the answer. The full transition table (status x
// event type) is in docs/events.md; tests/unit/domain/charge/evolve_test.cpp checks every cell.
#pragma once

#include <array>
#include <map>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <unordered_set>
#include <vector>

#include "domain/events/event.hpp"
#include "domain/types.hpp"

namespace duepay::domain::charge {

enum class Status { pending, confirming, paid, underpaid, expired, failed, refunded };
enum class Exception { none, overpaid, paid_late, partial, wrong_token };

inline constexpr std::array kAllStatuses{Status::pending,   Status::confirming, Status::paid,
                                         Status::underpaid, Status::expired,    Status::failed,
                                         Status::refunded};

// The status's text, as events, read models and the API write it; parse_status is its inverse
// (nullopt for any other text). The one pair every reader of stored or requested status uses.
std::string_view to_string(Status status);
std::optional<Status> parse_status(std::string_view text);
std::string_view to_string(Exception exception);

// A buyer may still pay: pending, confirming or underpaid (the hosted checkout offers its rails).
bool payable(Status status);
// No further status change can happen without ops: paid, expired, failed or refunded.
bool final_status(Status status);

// (txHash, logIndex): the identity of one token movement on chain.
struct PaymentKey {
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    // NOLINTNEXTLINE(modernize-use-nullptr): clang-tidy 14 misreads a defaulted <=>'s 0
    auto operator<=>(const PaymentKey&) const = default;
};

struct Unconfirmed {
    Bytes32 block_hash{};  // a reorg names the block; only that detection is withdrawn
    TokenAmount amount;
    bool operator==(const Unconfirmed&) const = default;
};

// One thing about a charge that needs a person (ADR 0230): its exception, an underpaid charge
// counting as partial, or one rejected refund (refund_id names it).
struct Issue {
    events::ResolvedException exception = events::ResolvedException::partial;
    std::string refund_id;  // refund_rejected: the refund; else empty
    bool operator==(const Issue&) const = default;
};

// A person's resolution of an issue (charge.exception_resolved): who, the note, when.
struct Resolution {
    Issue issue;
    events::Actor resolved_by;
    std::string note;
    std::string at;  // the event's occurredAt
    bool operator==(const Resolution&) const = default;
};

// A status change, or (resolution set, the status unchanged) a resolution.
struct TimelineEntry {
    Status status = Status::pending;
    std::string at;       // the event's occurredAt
    std::string tx_hash;  // 0x hex of the payment that caused it, or empty
    std::optional<Resolution> resolution;
    bool operator==(const TimelineEntry&) const = default;
};

// A refund the merchant asked to record (charge.refund_requested) and what became of it.
enum class RefundStatus { pending, succeeded, rejected };
std::string_view to_string(RefundStatus status);

struct RefundRecord {
    std::string refund_id;
    Bytes32 tx_hash{};
    std::string requested_at;  // the request's occurredAt ("" for a refund recorded unrequested)
    RefundStatus status = RefundStatus::pending;
    std::optional<events::RefundRejection> reason;  // rejected
    std::optional<Address> to;                      // succeeded
    TokenAmount amount;                             // succeeded (else 0)
    std::uint32_t log_index = 0;                    // succeeded: the Transfer log
    bool operator==(const RefundRecord&) const = default;
};

// What the latest fact about one payment made of it: detected below confirmation depth (seen),
// confirmed in the window, confirmed after expiry (late), in a token the charge does not accept
// (wrong_token), or its detection withdrawn with its block (reorged).
enum class PaymentState { seen, confirmed, late, wrong_token, reorged };
std::string_view to_string(PaymentState state);

// One token movement of the charge as its facts tell it (the dashboard's Payments table): the
// token and amount it was first seen with, its latest state and when that was.
struct PaymentRecord {
    PaymentKey key;
    Address token;
    TokenAmount amount;
    PaymentState state = PaymentState::seen;
    std::string at;  // the occurredAt of the fact that gave it its state
    bool operator==(const PaymentRecord&) const = default;
};

struct ChargeState {
    bool created = false;  // false: nothing but charge.created is applied
    InvoiceId invoice_id;
    Status status = Status::pending;
    Exception exception = Exception::none;

    // The terms of charge.created that decide (decide.hpp) judges chain facts by.
    Address token;
    Address merchant;  // the payout address the funds went to; refunds must come from it
    std::uint64_t deadline = 0;
    std::uint64_t grace_seconds = 0;
    std::optional<Address> deposit_address;

    TokenAmount amount_due;
    TokenAmount amount_confirmed;    // confirmed in-window payments of the charged token
    TokenAmount amount_unconfirmed;  // detected, below confirmation depth
    TokenAmount amount_late;         // confirmed deposits after expiry
    TokenAmount amount_wrong_token;  // deposits in a token the charge does not accept (any token)
    TokenAmount amount_refunded;
    TokenAmount amount_settled;

    bool expired = false;  // the expiry fact was seen (status may still be paid)
    bool failed = false;
    bool refunded = false;  // the refunded total reached what was received (sticky: final)
    bool settled = false;
    bool deposit_received = false;  // a transfer reached the deposit address (seen, late, wrong)

    std::map<PaymentKey, Unconfirmed> unconfirmed;
    std::map<PaymentKey, TokenAmount> confirmed;
    std::map<PaymentKey, TokenAmount> late;
    std::map<PaymentKey, TokenAmount> wrong_token;
    std::vector<PaymentRecord> payments;  // each payment once, in the order first seen

    std::vector<RefundRecord> refunds;    // in request order
    std::vector<Resolution> resolutions;  // in log order, one per issue at most

    std::unordered_set<std::string> seen_event_ids;
    std::vector<TimelineEntry> timeline;

    bool operator==(const ChargeState&) const = default;
};

ChargeState initial_state();

// Applies one event in place. Ignored (state untouched): a duplicate id, anything before
// charge.created, an event for another invoiceId, a second charge.created.
void apply(ChargeState& state, const events::Event& event);

// The pure form: a new state, the input untouched.
ChargeState evolve(const ChargeState& state, const events::Event& event);

ChargeState fold(std::span<const events::Event> events);

// The state as of the instant `at` ("YYYY-MM-DDTHH:MM:SS.mmmZ", the form events carry): the fold,
// in log order, of the events that occurred at or before it (point-in-time history, the same
// apply as fold).
ChargeState fold_as_of(std::span<const events::Event> events, std::string_view at);

// Confirmed, late or wrong-token funds sit with the charge (a refund has something to return).
bool holds_funds(const ChargeState& state);

// What the charge received in its token and can still give back: confirmed + late - refunded
// (0 when refunds reached it).
TokenAmount refundable(const ChargeState& state);

// The refund with this id, or nullptr.
const RefundRecord* find_refund(const ChargeState& state, std::string_view refund_id);

// A requested refund waits for chainwatch's verdict.
bool refund_pending(const ChargeState& state);

// The issues of the charge as it stands (ADR 0230), resolved or not: its exception first (an
// underpaid charge counts as partial), then each rejected refund in request order.
std::vector<Issue> issues(const ChargeState& state);

// The resolution of `issue`, or nullptr.
const Resolution* resolution_of(const ChargeState& state, const Issue& issue);

// The first issue without a resolution (what the exceptions list shows, and what a resolve
// resolves); nullopt when every issue is resolved or there is none.
std::optional<Issue> open_issue(const ChargeState& state);

// The payment (txHash, logIndex) reached a final decision: confirmed, late or wrong token. Decide
// ignores a fact about it and evolve keeps it out of the unconfirmed payments.
bool decided(const ChargeState& state, const PaymentKey& key);

// a + b, saturating at 2^256-1 instead of wrapping (only reachable with absurd inputs). Every sum
// of token amounts in the charge uses it, so decide and evolve add the same way.
uint256 saturating_add(const uint256& a, const uint256& b);

}  // namespace duepay::domain::charge
