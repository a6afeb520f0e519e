// The writing half of event_json.hpp: each event type's data in its canonical field order,
// through detail::CanonicalWriter (detail/canonical_writer.hpp).
#include <variant>

#include "domain/events/detail/canonical_writer.hpp"
#include "domain/events/event_json.hpp"

namespace duepay::domain::events {

namespace {

using detail::CanonicalWriter;

void encode_payment_fields(CanonicalWriter& e, const Payment& p) {
    e.key("rail"), e.word(to_string(p.rail));
    e.key("txHash"), e.hex(p.tx_hash);
    e.key("logIndex"), e.u64(p.log_index);
    e.key("blockNumber"), e.u64(p.block_number);
    e.key("blockHash"), e.hex(p.block_hash);
    e.key("from"), e.address(p.from);
    e.key("token"), e.address(p.token);
    e.key("amount"), e.amount(p.amount);
}

void encode_fiat(CanonicalWriter& e, const FiatQuote& f) {
    e.begin();
    e.key("currency"), e.word(money::to_string(f.amount.currency));
    e.key("amount"), e.word(money::to_string(f.amount));
    e.key("tokenAmount"), e.amount(f.token_amount);
    e.key("rate"), e.word(money::to_string(f.rate));
    e.key("rateSource"), e.str(f.rate_source);
    e.key("bufferBps"), e.u64(f.buffer_bps);
    e.key("rateReadAt"), e.str(f.rate_read_at);
    e.end();
}
void encode_metadata_object(CanonicalWriter& e, const Metadata& m) {
    e.begin();
    for (const auto& [key, value] : m) {
        e.key(key);
        e.str(value);
    }
    e.end();
}

void encode_data(CanonicalWriter& e, const ChargeCreated& d) {
    e.key("amount"), e.amount(d.amount);
    e.key("token"), e.address(d.token);
    e.key("tokenSymbol"), e.str(d.token_symbol);
    e.key("tokenDecimals"), e.u64(d.token_decimals);
    e.key("paymentMode"), e.word(to_string(d.payment_mode));
    e.key("merchant"), e.address(d.merchant);
    e.key("feeBps"), e.u64(d.fee_bps);
    e.key("deadline"), e.dec_u64(d.deadline);
    e.key("graceSeconds"), e.u64(d.grace_seconds);
    e.key("depositAddress");
    d.deposit_address ? e.address(*d.deposit_address) : e.null();
    e.key("reference");
    d.reference ? e.str(*d.reference) : e.null();
    e.key("returnUrl");
    d.return_url ? e.str(*d.return_url) : e.null();
    e.key("fiat");
    d.fiat ? encode_fiat(e, *d.fiat) : e.null();
    if (d.metadata.empty()) return;  // optional: events without it stay as they were
    e.key("metadata");
    encode_metadata_object(e, d.metadata);
}
void encode_data(CanonicalWriter& e, const PaymentDetected& d) {
    encode_payment_fields(e, d.payment);
}
void encode_data(CanonicalWriter& e, const DepositSeen& d) { encode_payment_fields(e, d.payment); }
void encode_data(CanonicalWriter& e, const LateDeposit& d) { encode_payment_fields(e, d.payment); }
void encode_data(CanonicalWriter& e, const PaymentReorged& d) {
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("logIndex"), e.u64(d.log_index);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("blockHash"), e.hex(d.block_hash);
}
// charge.paid and charge.underpaid: the payment and the confirmed total.
template <class T>
void encode_payment_with_total(CanonicalWriter& e, const T& d) {
    encode_payment_fields(e, d.payment);
    e.key("confirmedTotal"), e.amount(d.confirmed_total);
}
void encode_data(CanonicalWriter& e, const ChargePaid& d) { encode_payment_with_total(e, d); }
void encode_data(CanonicalWriter& e, const ChargeUnderpaid& d) { encode_payment_with_total(e, d); }
void encode_data(CanonicalWriter& e, const ChargeExpired& d) {
    e.key("deadline"), e.dec_u64(d.deadline);
    e.key("graceSeconds"), e.u64(d.grace_seconds);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("blockTimestamp"), e.u64(d.block_timestamp);
}
void encode_data(CanonicalWriter& e, const ChargeSettled& d) {
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("depositAddress"), e.address(d.deposit_address);
    e.key("token"), e.address(d.token);
    e.key("amount"), e.amount(d.amount);
}
void encode_data(CanonicalWriter& e, const RefundRequested& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
}
void encode_data(CanonicalWriter& e, const RefundRejected& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("reason"), e.word(to_string(d.reason));
}
void encode_data(CanonicalWriter& e, const ExceptionResolved& d) {
    e.key("exception"), e.word(to_string(d.exception));
    e.key("refundId");
    d.refund_id ? e.word(*d.refund_id) : e.null();
    e.key("actorKind"), e.word(to_string(d.resolved_by.kind));
    e.key("actor"), e.str(d.resolved_by.id);
    e.key("sessionId");
    d.resolved_by.session_id ? e.str(*d.resolved_by.session_id) : e.null();
    e.key("note"), e.str(d.note);
}
void encode_data(CanonicalWriter& e, const ChargeRefunded& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("logIndex"), e.u64(d.log_index);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("to"), e.address(d.to);
    e.key("token"), e.address(d.token);
    e.key("amount"), e.amount(d.amount);
}
void encode_data(CanonicalWriter& e, const ChargeFailed& d) {
    encode_payment_fields(e, d.payment);
    e.key("reason"), e.word(to_string(d.reason));
}

void write_event(std::string& out, const Event& event) {
    CanonicalWriter e(out);
    e.begin();
    e.key("id"), e.str(event.id);
    e.key("type"), e.word(event_type(event));
    e.key("schemaVersion"), e.u64(event.schema_version);
    e.key("invoiceId"), e.hex(event.invoice_id.bytes);
    e.key("projectId"), e.str(event.project_id);
    e.key("mode"), e.word(to_string(event.mode));
    e.key("chainId"), e.u64(event.chain_id.value);
    e.key("occurredAt"), e.str(event.occurred_at);
    e.key("data");
    e.begin();
    std::visit([&](const auto& d) { encode_data(e, d); }, event.data);
    e.end();
    e.end();
}

}  // namespace

void encode_event(const Event& event, std::string& out) {
    out.clear();
    write_event(out, event);
}

std::string encode_event(const Event& event) {
    std::string out;
    out.reserve(1024);
    write_event(out, event);
    return out;
}

std::string encode_fiat_quote(const FiatQuote& quote) {
    std::string out;
    CanonicalWriter e(out);
    encode_fiat(e, quote);
    return out;
}

std::string encode_metadata(const Metadata& metadata) {
    std::string out;
    CanonicalWriter e(out);
    encode_metadata_object(e, metadata);
    return out;
}

}  // namespace duepay::domain::events
