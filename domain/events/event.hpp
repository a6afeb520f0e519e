// The charge event model (docs/design.md): one envelope, fourteen data types. Events are the
// source of truth on the Kafka topic; their JSON form is in event_json.hpp and their JSON Schemas
// in schemas/events/<type>.v1.json. What each type means for status: docs/events.md.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "domain/events/metadata.hpp"
#include "domain/money/fiat.hpp"
#include "domain/money/rate.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::events {

enum class Mode { test, live };
enum class PaymentMode { wallet, transfer, both };
enum class Rail { wallet, transfer };
enum class FailureReason { wrong_token };
// Why chainwatch refused a merchant's refund transaction (docs/refunds.md).
enum class RefundRejection {
    not_found,           // no receipt within the bound after the request
    transaction_failed,  // the transaction reverted
    no_transfer,         // no ERC-20 Transfer of the charge's token from the payout address...
    wrong_token,         // ...but one of another token from it
    wrong_sender,        // ...but one of the charge's token from another address
    exceeds_paid         // the refunded total would pass what the charge received
};

// What a person resolved (charge.exception_resolved, ADR 0230): the charge's exception (an
// underpaid charge counts as partial) or one rejected refund.
enum class ResolvedException { overpaid, paid_late, partial, wrong_token, refund_rejected };
// Who made a change, named as the account audit names it (account_audit.actor_kind): a wallet
// signed in to the dashboard (with its session) or an API key.
enum class ActorKind { wallet, key };

std::string_view to_string(Mode mode);
std::string_view to_string(PaymentMode mode);
std::string_view to_string(Rail rail);
std::string_view to_string(FailureReason reason);
std::string_view to_string(RefundRejection reason);
std::string_view to_string(ResolvedException exception);
std::string_view to_string(ActorKind kind);
// The inverses of the two above; nullopt for any other text.
std::optional<ResolvedException> parse_resolved_exception(std::string_view text);
std::optional<ActorKind> parse_actor_kind(std::string_view text);

// How a fiat price was turned into the token amount (charge.created data.fiat).
struct FiatQuote {
    money::FiatAmount amount;  // currency + minor units; JSON "currency" and "amount" ("350.00")
    TokenAmount token_amount;  // the converted amount; equals ChargeCreated::amount
    money::Rational rate;      // fiat per ONE whole token, exact ("35.12" or "10001/285")
    std::string rate_source;   // e.g. "chainlink:80002"
    std::uint32_t buffer_bps = 0;  // 0..10000, in the merchant's favour
    std::string rate_read_at;      // RFC 3339 UTC with milliseconds
    bool operator==(const FiatQuote&) const = default;
};

// A token movement seen on chain, on either rail. (tx_hash, log_index) names it.
struct Payment {
    Rail rail = Rail::transfer;
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    std::uint64_t block_number = 0;
    Bytes32 block_hash{};
    Address from;
    Address token;
    TokenAmount amount;
    bool operator==(const Payment&) const = default;
};

// The merchant asked for a charge (api). Starts the stream; status pending.
struct ChargeCreated {
    static constexpr std::string_view kType = "charge.created";
    TokenAmount amount;  // due, smallest unit, > 0
    Address token;
    std::string token_symbol;
    std::uint32_t token_decimals = 0;  // 0..77
    PaymentMode payment_mode = PaymentMode::both;
    Address merchant;                        // the verified payout wallet
    std::uint32_t fee_bps = 0;               // 0..10000
    std::uint64_t deadline = 0;              // unix seconds (chain time); JSON decimal string
    std::uint64_t grace_seconds = 0;         // transfer rail: watched this long after the deadline
    std::optional<Address> deposit_address;  // set iff payment_mode is transfer or both
    std::optional<std::string> reference;    // at most 255 characters
    std::optional<std::string> return_url;
    std::optional<FiatQuote> fiat;
    Metadata metadata;  // the merchant's own data (metadata.hpp); JSON: omitted when empty
    bool operator==(const ChargeCreated&) const = default;
};

// An unconfirmed payment (either rail) below the chain's confirmation depth.
struct PaymentDetected {
    static constexpr std::string_view kType = "charge.payment_detected";
    Payment payment;
    bool operator==(const PaymentDetected&) const = default;
};

// A transfer-rail deposit that reached confirmation depth; deposits add up.
struct DepositSeen {
    static constexpr std::string_view kType = "charge.deposit_seen";
    Payment payment;  // rail is always transfer
    bool operator==(const DepositSeen&) const = default;
};

// A detected, still unconfirmed payment whose block left the canonical chain.
struct PaymentReorged {
    static constexpr std::string_view kType = "charge.payment_reorged";
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;
    std::uint64_t block_number = 0;
    Bytes32 block_hash{};  // the block the payment was detected in (now orphaned)
    bool operator==(const PaymentReorged&) const = default;
};

// Decision: confirmed payments reach the amount. Carries the confirmed payment that completed it
// (the router payment on the wallet rail; the last deposit on the transfer rail).
struct ChargePaid {
    static constexpr std::string_view kType = "charge.paid";
    Payment payment;
    TokenAmount confirmed_total;  // sum of confirmed payments including this one
    bool operator==(const ChargePaid&) const = default;
};

// Decision: transfer rail, confirmed deposits sum below the amount (before expiry).
struct ChargeUnderpaid {
    static constexpr std::string_view kType = "charge.underpaid";
    Payment payment;  // the deposit just confirmed
    TokenAmount confirmed_total;
    bool operator==(const ChargeUnderpaid&) const = default;
};

// Chain time passed the deadline (wallet) or deadline + grace (transfer) and every block up to
// it has been processed, without full payment.
struct ChargeExpired {
    static constexpr std::string_view kType = "charge.expired";
    std::uint64_t deadline = 0;  // JSON decimal string, as in charge.created
    std::uint64_t grace_seconds = 0;
    std::uint64_t block_number = 0;     // first block whose timestamp passed the limit
    std::uint64_t block_timestamp = 0;  // its timestamp, unix seconds
    bool operator==(const ChargeExpired&) const = default;
};

// A confirmed deposit that arrived after expiry: recorded, recoverable, status stays expired.
struct LateDeposit {
    static constexpr std::string_view kType = "charge.late_deposit";
    Payment payment;  // rail is always transfer
    bool operator==(const LateDeposit&) const = default;
};

// The deposit address was swept to the merchant (Forwarder settle). No status change.
struct ChargeSettled {
    static constexpr std::string_view kType = "charge.settled";
    Bytes32 tx_hash{};
    std::uint64_t block_number = 0;
    Address deposit_address;
    Address token;
    TokenAmount amount;
    bool operator==(const ChargeSettled&) const = default;
};

// The merchant asked to record a refund they sent on chain (api, POST /v1/charges/:id/refunds).
// The event id is the refund id, derived from (invoiceId, txHash): asking twice is a duplicate.
struct RefundRequested {
    static constexpr std::string_view kType = "charge.refund_requested";
    std::string refund_id;  // "rf_" + 24 hex
    Bytes32 tx_hash{};
    bool operator==(const RefundRequested&) const = default;
};

// Chainwatch verified a refund at confirmation depth: an ERC-20 Transfer of the charge's token
// from its merchant (payout) address. Refunds add up.
struct ChargeRefunded {
    static constexpr std::string_view kType = "charge.refunded";
    std::string refund_id;
    Bytes32 tx_hash{};
    std::uint32_t log_index = 0;  // the Transfer log
    std::uint64_t block_number = 0;
    Address to;
    Address token;
    TokenAmount amount;
    bool operator==(const ChargeRefunded&) const = default;
};

// Chainwatch refused a requested refund (nothing is recorded against the charge's funds).
struct RefundRejected {
    static constexpr std::string_view kType = "charge.refund_rejected";
    std::string refund_id;
    Bytes32 tx_hash{};
    RefundRejection reason = RefundRejection::not_found;
    bool operator==(const RefundRejected&) const = default;
};

// The actor of a command (account_audit's actor_kind, actor, session_id).
struct Actor {
    ActorKind kind = ActorKind::key;
    std::string id;  // wallet: the address, lower-case 0x hex; key: the key id ("key_...")
    std::optional<std::string> session_id;  // wallet: its dashboard session ("ses_..."); key: none
    bool operator==(const Actor&) const = default;
};

// A resolution note's bounds (ADR 0230): at most this many characters (code points) once trimmed.
inline constexpr std::size_t kMaxResolutionNoteChars = 500;

// A note as a person typed it -> the note as events carry it: CRLF and lone CR become LF, ASCII
// whitespace (space, tab, line breaks) trimmed at both ends; then it must be storable UTF-8, not
// empty, at most kMaxResolutionNoteChars code points, with no control character but tab and line
// feed. Error code invalid_note. The reader refuses a stored note this would change.
Result<std::string> normalize_resolution_note(std::string_view raw);

// An API key id ("key_" + more of the event id charset, at most 128 bytes) and a dashboard
// session id ("ses_" + the same).
bool is_key_id(std::string_view text);
bool is_session_id(std::string_view text);

// A person marked one of the charge's exceptions as dealt with (api: POST
// /v1/charges/:id/resolve, or the dashboard's exceptions page). The status never changes.
struct ExceptionResolved {
    static constexpr std::string_view kType = "charge.exception_resolved";
    ResolvedException exception = ResolvedException::partial;
    std::optional<std::string> refund_id;  // set iff exception is refund_rejected
    Actor resolved_by;
    std::string note;  // normalize_resolution_note's form
    bool operator==(const ExceptionResolved&) const = default;
};

// The charge can never complete as asked; the offending payment is recorded (recoverable).
struct ChargeFailed {
    static constexpr std::string_view kType = "charge.failed";
    FailureReason reason = FailureReason::wrong_token;
    Payment payment;  // wrong_token: the deposit, payment.token is the token actually sent
    bool operator==(const ChargeFailed&) const = default;
};

using EventData =
    std::variant<ChargeCreated, PaymentDetected, DepositSeen, PaymentReorged, ChargePaid,
                 ChargeUnderpaid, ChargeExpired, LateDeposit, ChargeSettled, ChargeRefunded,
                 ChargeFailed, RefundRequested, RefundRejected, ExceptionResolved>;

inline constexpr std::uint32_t kSchemaVersion = 1;

// The envelope. `type` is not stored: it is the variant alternative (event_type()).
struct Event {
    std::string id;  // commands: a random UUID-like id; chain facts: chain_fact_id()
    std::uint32_t schema_version = kSchemaVersion;
    InvoiceId invoice_id;
    std::string project_id;
    Mode mode = Mode::test;
    ChainId chain_id;
    std::string occurred_at;  // RFC 3339 UTC with milliseconds, "2026-11-21T22:00:00.000Z"
    EventData data;
    bool operator==(const Event&) const = default;
};

std::string_view event_type(const EventData& data);
inline std::string_view event_type(const Event& event) { return event_type(event.data); }

// All fourteen type names, in variant order.
inline constexpr std::array kEventTypes{
    ChargeCreated::kType,  PaymentDetected::kType,  DepositSeen::kType,   PaymentReorged::kType,
    ChargePaid::kType,     ChargeUnderpaid::kType,  ChargeExpired::kType, LateDeposit::kType,
    ChargeSettled::kType,  ChargeRefunded::kType,   ChargeFailed::kType,  RefundRequested::kType,
    RefundRejected::kType, ExceptionResolved::kType};

// "YYYY-MM-DDTHH:MM:SS.mmmZ" with in-range fields (the only timestamp form events carry).
bool is_rfc3339_millis_utc(std::string_view text);

// The one formatter of that form: unix milliseconds (1970 to 9999) -> "YYYY-MM-DDTHH:MM:SS.mmmZ".
// Pure (civil calendar arithmetic); callers bring the clock.
std::string format_rfc3339_millis_utc(std::int64_t unix_ms);

// An RFC 3339 date-time as a user types it ("2026-11-21T22:00:00Z", "2026-11-22T05:00:00.25+07:00",
// 't'/'z' in lower case too) or a bare date ("2026-11-21", midnight UTC) -> unix milliseconds
// (fraction digits past the third are truncated); nullopt when it is not one, or before 1970.
std::optional<std::int64_t> parse_rfc3339_millis(std::string_view text);

}  // namespace duepay::domain::events
