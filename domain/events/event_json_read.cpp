// The reading half of event_json.hpp: one field table per event type (detail/strict_reader.hpp),
// the checks that span fields, the envelope, and decode_event. RapidJSON parses in situ a
// private copy into stack buffers (no heap for typical events) through the bounded parse (depth
// and repeated names refused: domain/json_bounded.hpp), then read_fields makes one pass over each
// object's members with a bitmask for missing fields. Unknown fields
// are rejected (the schemas say additionalProperties: false).
#include <array>
#include <cstring>

#include "domain/events/detail/json_text.hpp"
#include "domain/events/detail/strict_reader.hpp"
#include "domain/events/event_json.hpp"
#include "domain/events/metadata.hpp"
#include "domain/json_bounded.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"

namespace duepay::domain::events {

namespace {

using namespace detail;
namespace json = domain::json;
using Reader = rapidjson::GenericReader<rapidjson::UTF8<>, rapidjson::UTF8<>, Allocator>;

// A refusal of the bounded parse in the words of the field readers ("data.logIndex: duplicate
// field"), so a quarantined event reads the same whichever check refused it.
std::string describe(const json::Problem& p) {
    if (p.refusal == json::Refusal::duplicate_member) return p.path + ": duplicate field";
    return json::describe_problem(p, "event", {});
}

// --- Words ------------------------------------------------------------------------------------

Rail as_rail(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (s == "wallet") return Rail::wallet;
    if (s == "transfer") return Rail::transfer;
    fail(at, R"(must be "wallet" or "transfer")");
}

PaymentMode as_payment_mode(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (s == "wallet") return PaymentMode::wallet;
    if (s == "transfer") return PaymentMode::transfer;
    if (s == "both") return PaymentMode::both;
    fail(at, R"(must be "wallet", "transfer" or "both")");
}

Mode as_mode(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (s == "test") return Mode::test;
    if (s == "live") return Mode::live;
    fail(at, R"(must be "test" or "live")");
}

RefundRejection as_refund_rejection(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    for (auto r : {RefundRejection::not_found, RefundRejection::transaction_failed,
                   RefundRejection::no_transfer, RefundRejection::wrong_token,
                   RefundRejection::wrong_sender, RefundRejection::exceeds_paid}) {
        if (s == to_string(r)) return r;
    }
    fail(at, "must be a refund rejection reason");
}

FailureReason as_failure_reason(const Value& v, const Path& at) {
    if (as_string(v, at) != "wrong_token") fail(at, "must be \"wrong_token\"");
    return FailureReason::wrong_token;
}

// --- The payment, alone or at the head of a type's fields -------------------------------------

Payment& payment_of(Payment& p) { return p; }
template <class T>
Payment& payment_of(T& d) {
    return d.payment;
}

template <auto Member, auto Read, class T>
void store_payment(T& into, const Value& v, const Path& at) {
    payment_of(into).*Member = Read(v, at);
}

template <class T>
constexpr std::array<Field<T>, 8> kPaymentFields = {{
    {"rail", store_payment<&Payment::rail, as_rail>},
    {"txHash", store_payment<&Payment::tx_hash, as_bytes32>},
    {"logIndex", store_payment<&Payment::log_index, as_u32>},
    {"blockNumber", store_payment<&Payment::block_number, as_u64>},
    {"blockHash", store_payment<&Payment::block_hash, as_bytes32>},
    {"from", store_payment<&Payment::from, as_address>},
    {"token", store_payment<&Payment::token, as_address>},
    {"amount", store_payment<&Payment::amount, as_amount>},
}};

Payment read_payment(const Value& v, const Path& at) {
    return read_as(v, at, kPaymentFields<Payment>);
}

Payment read_transfer_payment(const Value& v, const Path& at) {
    Payment p = read_payment(v, at);
    if (p.rail != Rail::transfer)
        fail(Path{at.str(), "rail"}, "must be \"transfer\" for a deposit");
    return p;
}

// charge.paid and charge.underpaid: the payment and the confirmed total, never below it.
template <class T>
T read_payment_with_total(const Value& v, const Path& at) {
    static constexpr auto kFields = concat(
        kPaymentFields<T>,
        std::array<Field<T>, 1>{{{"confirmedTotal", store<&T::confirmed_total, as_amount>}}});
    T d = read_as(v, at, kFields);
    if (d.confirmed_total.value < d.payment.amount.value)
        fail(Path{at.str(), "confirmedTotal"}, "must be at least data.amount");
    return d;
}

constexpr auto kFailedFields =
    concat(kPaymentFields<ChargeFailed>,
           std::array<Field<ChargeFailed>, 1>{
               {{"reason", store<&ChargeFailed::reason, as_failure_reason>}}});

// --- charge.created ---------------------------------------------------------------------------

// The fiat amount is read as text and parsed once the currency is known (it may come first).
struct FiatDraft {
    FiatQuote quote;
    std::string_view amount_text;
};

constexpr std::array<Field<FiatDraft>, 7> kFiatFields = {{
    {"currency",
     [](FiatDraft& d, const Value& v, const Path& at) {
         auto c = money::parse_fiat_currency(as_string(v, at));
         if (!c) fail(at, c.error().message);
         d.quote.amount.currency = *c;
     }},
    {"amount",
     [](FiatDraft& d, const Value& v, const Path& at) { d.amount_text = as_string(v, at); }},
    {"tokenAmount",
     [](FiatDraft& d, const Value& v, const Path& at) { d.quote.token_amount = as_amount(v, at); }},
    {"rate",
     [](FiatDraft& d, const Value& v, const Path& at) {
         auto r = money::parse_rate(as_string(v, at));
         if (!r) fail(at, r.error().message);
         d.quote.rate = *r;
     }},
    {"rateSource", [](FiatDraft& d, const Value& v,
                      const Path& at) { d.quote.rate_source = as_text(v, at, 64); }},
    {"bufferBps",
     [](FiatDraft& d, const Value& v, const Path& at) {
         d.quote.buffer_bps =
             static_cast<std::uint32_t>(as_u64_at_most(v, at, money::kMaxBufferBps));
     }},
    {"rateReadAt", [](FiatDraft& d, const Value& v,
                      const Path& at) { d.quote.rate_read_at = as_timestamp(v, at); }},
}};

FiatQuote read_fiat(const Value& v, const Path& at) {
    FiatDraft d = read_as(v, at, kFiatFields);
    auto a = money::parse_fiat_amount(d.quote.amount.currency, d.amount_text);
    if (!a) {
        const std::string parent = at.str();  // (a Path from inside read_fields would dangle here)
        fail(Path{parent, "amount"}, a.error().message);
    }
    d.quote.amount = *a;
    return d.quote;
}

// A non-empty object of metadata.hpp's rules (an empty one is written by omitting the field).
Metadata read_metadata(const Value& v, const Path& at) {
    if (!v.IsObject()) fail(at, "must be an object");
    if (v.MemberCount() == 0) fail(at, "must not be empty (omitted when there is none)");
    const std::string path = at.str();
    Metadata m;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view key(it->name.GetString(), it->name.GetStringLength());
        if (!is_metadata_key(key)) fail(at, "keys are 1-40 characters of A-Z a-z 0-9 _ . -");
        const Path value_at{path, key};
        const auto value = as_string(it->value, value_at);
        if (auto problem = metadata_value_problem(value)) fail(value_at, *problem);
        m.emplace(key, value);  // unique: the bounded parse refused repeated names
    }
    if (m.size() > kMaxMetadataEntries) fail(at, "holds at most 20 keys");
    return m;
}

using Created = ChargeCreated;

constexpr std::array<Field<Created>, 14> kCreatedFields = {{
    {"amount",
     [](Created& d, const Value& v, const Path& at) {
         d.amount = as_amount(v, at);
         if (d.amount.value == 0) fail(at, "amount must be greater than zero");
     }},
    {"token", store<&Created::token, as_address>},
    {"tokenSymbol",
     [](Created& d, const Value& v, const Path& at) { d.token_symbol = as_text(v, at, 32); }},
    {"tokenDecimals",
     [](Created& d, const Value& v, const Path& at) {
         d.token_decimals =
             static_cast<std::uint32_t>(as_u64_at_most(v, at, money::kMaxTokenDecimals));
     }},
    {"paymentMode", store<&Created::payment_mode, as_payment_mode>},
    {"merchant", store<&Created::merchant, as_address>},
    {"feeBps",
     [](Created& d, const Value& v, const Path& at) {
         d.fee_bps = static_cast<std::uint32_t>(as_u64_at_most(v, at, 10000));
     }},
    {"deadline", store<&Created::deadline, as_dec_u64>},
    {"graceSeconds", store<&Created::grace_seconds, as_u64>},
    {"depositAddress", store<&Created::deposit_address, or_null<as_address>>},
    {"reference",
     [](Created& d, const Value& v, const Path& at) {
         if (v.IsNull()) return;
         const auto s = as_utf8(v, at);
         if (utf8_code_points(s) > 255) fail(at, "must be at most 255 characters");
         d.reference = std::string(s);
     }},
    {"returnUrl",
     [](Created& d, const Value& v, const Path& at) {
         if (!v.IsNull()) d.return_url = std::string(as_text(v, at, 2048));
     }},
    {"fiat", store<&Created::fiat, or_null<read_fiat>>},
    // Absent when the charge has none.
    {"metadata", store<&Created::metadata, read_metadata>, /*optional=*/true},
}};

Created read_created(const Value& v, const Path& at) {
    Created d = read_as(v, at, kCreatedFields);
    const std::string path = at.str();
    if (d.payment_mode == PaymentMode::wallet && d.deposit_address)
        fail(Path{path, "depositAddress"}, "must be null when paymentMode is \"wallet\"");
    if (d.payment_mode != PaymentMode::wallet && !d.deposit_address)
        fail(Path{path, "depositAddress"},
             R"(must be set when paymentMode is "transfer" or "both")");
    if (d.fiat && d.fiat->token_amount != d.amount)
        fail(Path{path, "fiat.tokenAmount"}, "must equal data.amount");
    return d;
}

// --- The other types --------------------------------------------------------------------------

constexpr std::array<Field<PaymentReorged>, 4> kReorgedFields = {{
    {"txHash", store<&PaymentReorged::tx_hash, as_bytes32>},
    {"logIndex", store<&PaymentReorged::log_index, as_u32>},
    {"blockNumber", store<&PaymentReorged::block_number, as_u64>},
    {"blockHash", store<&PaymentReorged::block_hash, as_bytes32>},
}};

constexpr std::array<Field<ChargeExpired>, 4> kExpiredFields = {{
    {"deadline", store<&ChargeExpired::deadline, as_dec_u64>},
    {"graceSeconds", store<&ChargeExpired::grace_seconds, as_u64>},
    {"blockNumber", store<&ChargeExpired::block_number, as_u64>},
    {"blockTimestamp", store<&ChargeExpired::block_timestamp, as_u64>},
}};

constexpr std::array<Field<ChargeSettled>, 5> kSettledFields = {{
    {"txHash", store<&ChargeSettled::tx_hash, as_bytes32>},
    {"blockNumber", store<&ChargeSettled::block_number, as_u64>},
    {"depositAddress", store<&ChargeSettled::deposit_address, as_address>},
    {"token", store<&ChargeSettled::token, as_address>},
    {"amount", store<&ChargeSettled::amount, as_amount>},
}};

constexpr std::array<Field<ChargeRefunded>, 7> kRefundedFields = {{
    {"refundId", store<&ChargeRefunded::refund_id, as_refund_id>},
    {"txHash", store<&ChargeRefunded::tx_hash, as_bytes32>},
    {"logIndex", store<&ChargeRefunded::log_index, as_u32>},
    {"blockNumber", store<&ChargeRefunded::block_number, as_u64>},
    {"to", store<&ChargeRefunded::to, as_address>},
    {"token", store<&ChargeRefunded::token, as_address>},
    {"amount", store<&ChargeRefunded::amount, as_amount>},
}};

constexpr std::array<Field<RefundRequested>, 2> kRefundRequestedFields = {{
    {"refundId", store<&RefundRequested::refund_id, as_refund_id>},
    {"txHash", store<&RefundRequested::tx_hash, as_bytes32>},
}};

constexpr std::array<Field<RefundRejected>, 3> kRefundRejectedFields = {{
    {"refundId", store<&RefundRejected::refund_id, as_refund_id>},
    {"txHash", store<&RefundRejected::tx_hash, as_bytes32>},
    {"reason", store<&RefundRejected::reason, as_refund_rejection>},
}};

// charge.exception_resolved: the actor's id in the form of its kind, a session only for a wallet,
// a refund id only for a rejected refund, the note as normalize_resolution_note leaves it.
struct ResolvedDraft {
    ExceptionResolved d;
    std::string_view actor;
};

constexpr std::array<Field<ResolvedDraft>, 6> kResolvedFields = {{
    {"exception",
     [](ResolvedDraft& r, const Value& v, const Path& at) {
         auto e = parse_resolved_exception(as_string(v, at));
         if (!e) fail(at, "must be overpaid, paid_late, partial, wrong_token or refund_rejected");
         r.d.exception = *e;
     }},
    {"refundId",
     [](ResolvedDraft& r, const Value& v, const Path& at) {
         if (!v.IsNull()) r.d.refund_id = std::string(as_refund_id(v, at));
     }},
    {"actorKind",
     [](ResolvedDraft& r, const Value& v, const Path& at) {
         auto k = parse_actor_kind(as_string(v, at));
         if (!k) fail(at, R"(must be "wallet" or "key")");
         r.d.resolved_by.kind = *k;
     }},
    {"actor", [](ResolvedDraft& r, const Value& v, const Path& at) { r.actor = as_string(v, at); }},
    {"sessionId",
     [](ResolvedDraft& r, const Value& v, const Path& at) {
         if (v.IsNull()) return;
         const auto s = as_string(v, at);
         if (!is_session_id(s)) fail(at, "must be \"ses_\" followed by an id");
         r.d.resolved_by.session_id = std::string(s);
     }},
    {"note",
     [](ResolvedDraft& r, const Value& v, const Path& at) {
         const auto s = as_utf8(v, at);
         auto note = normalize_resolution_note(s);
         if (!note || *note != s)
             fail(at, note ? "must be trimmed, with LF line breaks" : note.error().message);
         r.d.note = std::move(note).value();
     }},
}};

ExceptionResolved read_resolved(const Value& v, const Path& at) {
    ResolvedDraft r = read_as(v, at, kResolvedFields);
    const std::string path = at.str();
    auto& by = r.d.resolved_by;
    if (by.kind == ActorKind::wallet) {
        Address a;
        if (!parse_lower_hex(r.actor, a.bytes))
            fail(Path{path, "actor"}, "must be a lower-case 0x address for a wallet");
        if (!by.session_id) fail(Path{path, "sessionId"}, "must be set for a wallet");
    } else {
        if (!is_key_id(r.actor)) fail(Path{path, "actor"}, "must be a key id (\"key_...\")");
        if (by.session_id) fail(Path{path, "sessionId"}, "must be null for a key");
    }
    by.id = std::string(r.actor);
    const bool refund = r.d.exception == ResolvedException::refund_rejected;
    if (refund != r.d.refund_id.has_value())
        fail(Path{path, "refundId"}, "must be set iff exception is \"refund_rejected\"");
    return r.d;
}

EventData read_data(std::string_view type, const Value& v, const Path& at) {
    if (type == ChargeCreated::kType) return read_created(v, at);
    if (type == PaymentDetected::kType) return PaymentDetected{read_payment(v, at)};
    if (type == DepositSeen::kType) return DepositSeen{read_transfer_payment(v, at)};
    if (type == LateDeposit::kType) return LateDeposit{read_transfer_payment(v, at)};
    if (type == ChargePaid::kType) return read_payment_with_total<ChargePaid>(v, at);
    if (type == ChargeUnderpaid::kType) return read_payment_with_total<ChargeUnderpaid>(v, at);
    if (type == PaymentReorged::kType) return read_as(v, at, kReorgedFields);
    if (type == ChargeExpired::kType) return read_as(v, at, kExpiredFields);
    if (type == ChargeSettled::kType) return read_as(v, at, kSettledFields);
    if (type == ChargeRefunded::kType) return read_as(v, at, kRefundedFields);
    if (type == RefundRequested::kType) return read_as(v, at, kRefundRequestedFields);
    if (type == RefundRejected::kType) return read_as(v, at, kRefundRejectedFields);
    if (type == ChargeFailed::kType) return read_as(v, at, kFailedFields);
    if (type == ExceptionResolved::kType) return read_resolved(v, at);
    fail(Path{"", "type"}, "unknown event type");
}

// --- The envelope -----------------------------------------------------------------------------

std::string_view known_type(std::string_view type, const Path& at) {
    for (auto t : kEventTypes) {
        if (t == type) return t;
    }
    fail(at, "unknown event type \"" + std::string(type.substr(0, 64)) + "\"");
}

// The envelope as read; its data is read once the type and the version are known.
struct EventDraft {
    Event event;
    std::string_view type;
    std::uint32_t version = 0;
    const Value* data = nullptr;
};

constexpr std::array<Field<EventDraft>, 9> kEnvelopeFields = {{
    {"id", [](EventDraft& d, const Value& v, const Path& at) { d.event.id = as_id(v, at); }},
    {"type", [](EventDraft& d, const Value& v,
                const Path& at) { d.type = known_type(as_string(v, at), at); }},
    {"schemaVersion",
     [](EventDraft& d, const Value& v, const Path&) {
         d.version = v.IsUint() ? v.GetUint() : 0;  // 0: never a version
     }},
    {"invoiceId", [](EventDraft& d, const Value& v,
                     const Path& at) { d.event.invoice_id = InvoiceId{as_bytes32(v, at)}; }},
    {"projectId",
     [](EventDraft& d, const Value& v, const Path& at) { d.event.project_id = as_id(v, at); }},
    {"mode", [](EventDraft& d, const Value& v, const Path& at) { d.event.mode = as_mode(v, at); }},
    {"chainId",
     [](EventDraft& d, const Value& v, const Path& at) {
         d.event.chain_id = ChainId{as_u64(v, at)};
         if (d.event.chain_id.value == 0) fail(at, "must be a positive integer");
     }},
    {"occurredAt", [](EventDraft& d, const Value& v,
                      const Path& at) { d.event.occurred_at = as_timestamp(v, at); }},
    {"data", [](EventDraft& d, const Value& v, const Path&) { d.data = &v; }},
}};

Event read_event(const Value& root, const SchemaVersions& versions) {
    EventDraft d = read_as(root, Path{"", ""}, kEnvelopeFields);
    Event& e = d.event;
    if (auto error = versions.check(d.type, d.version)) fail(Path{"", "schemaVersion"}, *error);
    e.schema_version = versions.current(d.type);
    if (d.version == e.schema_version) {
        e.data = read_data(d.type, *d.data, Path{"", "data"});
        return std::move(e);
    }
    // An older version: its data is upcast to the current form first (upcast.hpp, the one place
    // that knows old versions), then read like any current event.
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    d.data->Accept(writer);
    std::string text(buffer.GetString(), buffer.GetSize());
    if (auto error = versions.upcast(d.type, d.version, text)) {
        fail(Path{"", "schemaVersion"}, *error);
    }
    Document upcast;
    Reader reader;
    rapidjson::StringStream stream(text.c_str());
    const auto problem =
        json::parse_with<rapidjson::kParseIterativeFlag>(reader, stream, upcast, json::Limits{});
    if (problem.refusal != json::Refusal::none)
        fail(Path{"", "data"}, "the upcast data is not bounded JSON: " + describe(problem));
    e.data = read_data(d.type, upcast, Path{"", "data"});
    return std::move(e);
}

}  // namespace

Result<Event> decode_event(std::string_view json) { return decode_event(json, schema_versions()); }

Result<Event> decode_event(std::string_view json, const SchemaVersions& versions) {
    // In-situ parsing of a private copy: strings stay in the copy instead of being copied into the
    // DOM. Typical events fit these stack buffers, so parsing allocates nothing on the heap.
    if (std::memchr(json.data(), '\0', json.size()) != nullptr)
        return make_error("malformed_event", "malformed event: not valid JSON (NUL byte in input)");
    // The buffers are left uninitialised: each is written before it is read.
    alignas(16) std::array<char, 4096> input_buffer;
    std::string large_input;
    char* text = input_buffer.data();
    if (json.size() >= input_buffer.size()) {
        large_input.assign(json);
        text = large_input.data();
    } else {
        std::memcpy(input_buffer.data(), json.data(), json.size());
        input_buffer[json.size()] = '\0';
    }
    std::array<char, 8192> value_buffer;
    std::array<char, 1024> stack_buffer;
    Allocator value_allocator(value_buffer.data(), value_buffer.size());
    Allocator stack_allocator(stack_buffer.data(), stack_buffer.size());
    Document doc(&value_allocator, stack_buffer.size(), &stack_allocator);
    // Bounded like every JSON we read (domain/json_bounded.hpp): depth, repeated names.
    std::array<char, 512> reader_buffer;
    Allocator reader_allocator(reader_buffer.data(), reader_buffer.size());
    Reader reader(&reader_allocator, 256);
    rapidjson::InsituStringStream stream(text);
    const auto problem =
        json::parse_with<rapidjson::kParseInsituFlag | rapidjson::kParseIterativeFlag>(
            reader, stream, doc, json::Limits{});
    if (problem.refusal == json::Refusal::syntax) {
        return make_error("malformed_event",
                          std::string("malformed event: not valid JSON (") +
                              rapidjson::GetParseError_En(
                                  static_cast<rapidjson::ParseErrorCode>(problem.syntax_code)) +
                              " at offset " + std::to_string(problem.offset) + ")");
    }
    if (problem.refusal != json::Refusal::none)
        return make_error("malformed_event", "malformed event: " + describe(problem));
    try {
        return read_event(doc, versions);
    } catch (const DecodeError& err) {
        return make_error("malformed_event", "malformed event: " + err.message);
    }
}

}  // namespace duepay::domain::events
