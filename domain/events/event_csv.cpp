#include "domain/events/event_csv.hpp"

#include <array>
#include <optional>
#include <string_view>

#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"

namespace duepay::domain::events {
namespace {

constexpr auto kColumns = std::to_array<std::string_view>(
    {"partition", "offset",      "id",          "type",       "schemaVersion", "invoiceId",
     "projectId", "mode",        "chainId",     "occurredAt", "token",         "amount",
     "txHash",    "logIndex",    "blockNumber", "rail",       "from",          "confirmedTotal",
     "reference", "paymentMode", "metadata",    "exception",  "actorKind",     "actor",
     "note"});

// The type-specific cells, all optional.
struct Cells {
    std::optional<std::string> token, amount, tx_hash, log_index, block_number, rail, from,
        confirmed_total, reference, payment_mode, metadata, exception, actor_kind, actor, note;
};

void put_payment(Cells& c, const Payment& p) {
    c.token = to_hex(p.token.bytes);
    c.amount = money::to_string(p.amount);
    c.tx_hash = to_hex(p.tx_hash);
    c.log_index = std::to_string(p.log_index);
    c.block_number = std::to_string(p.block_number);
    c.rail = std::string(to_string(p.rail));
    c.from = to_hex(p.from.bytes);
}

Cells cells_of(const EventData& data) {
    Cells c;
    std::visit(
        [&](const auto& d) {
            using T = std::decay_t<decltype(d)>;
            if constexpr (std::is_same_v<T, ChargeCreated>) {
                c.token = to_hex(d.token.bytes);
                c.amount = money::to_string(d.amount);
                c.reference = d.reference;
                c.payment_mode = std::string(to_string(d.payment_mode));
                if (!d.metadata.empty()) c.metadata = encode_metadata(d.metadata);
            } else if constexpr (std::is_same_v<T, ChargePaid> ||
                                 std::is_same_v<T, ChargeUnderpaid>) {
                put_payment(c, d.payment);
                c.confirmed_total = money::to_string(d.confirmed_total);
            } else if constexpr (requires { d.payment; }) {  // detected, deposit, late, failed
                put_payment(c, d.payment);
            } else if constexpr (std::is_same_v<T, PaymentReorged>) {
                c.tx_hash = to_hex(d.tx_hash);
                c.log_index = std::to_string(d.log_index);
                c.block_number = std::to_string(d.block_number);
            } else if constexpr (std::is_same_v<T, ChargeExpired>) {
                c.block_number = std::to_string(d.block_number);
            } else if constexpr (std::is_same_v<T, ChargeSettled>) {
                c.token = to_hex(d.token.bytes);
                c.amount = money::to_string(d.amount);
                c.tx_hash = to_hex(d.tx_hash);
                c.block_number = std::to_string(d.block_number);
            } else if constexpr (std::is_same_v<T, ChargeRefunded>) {
                c.token = to_hex(d.token.bytes);
                c.amount = money::to_string(d.amount);
                c.tx_hash = to_hex(d.tx_hash);
            } else if constexpr (std::is_same_v<T, ExceptionResolved>) {
                c.exception = std::string(to_string(d.exception));
                c.actor_kind = std::string(to_string(d.resolved_by.kind));
                c.actor = d.resolved_by.id;
                c.note = d.note;
            }
        },
        data);
    return c;
}

void cell(std::string& out, std::string_view value) {
    if (value.find_first_of(",\"\r\n") == std::string_view::npos) {
        out += value;
        return;
    }
    out += '"';
    for (char ch : value) {
        if (ch == '"') out += '"';
        out += ch;
    }
    out += '"';
}

void cell(std::string& out, const std::optional<std::string>& value) {
    if (value) cell(out, std::string_view(*value));
}

}  // namespace

std::string csv_header() {
    std::string out;
    for (const auto column : kColumns) {
        if (!out.empty()) out += ',';
        out += column;
    }
    return out + '\n';
}

void append_csv_row(std::string& out, const Event& event, std::int32_t partition,
                    std::int64_t offset) {
    const auto c = cells_of(event.data);
    out += std::to_string(partition);
    out += ',';
    out += std::to_string(offset);
    out += ',';
    cell(out, std::string_view(event.id));
    out += ',';
    out += event_type(event);
    out += ',';
    out += std::to_string(event.schema_version);
    out += ',';
    out += to_hex(event.invoice_id);
    out += ',';
    cell(out, std::string_view(event.project_id));
    out += ',';
    out += to_string(event.mode);
    out += ',';
    out += std::to_string(event.chain_id.value);
    out += ',';
    out += event.occurred_at;
    for (const auto* v : {&c.token, &c.amount, &c.tx_hash, &c.log_index, &c.block_number, &c.rail,
                          &c.from, &c.confirmed_total, &c.reference, &c.payment_mode, &c.metadata,
                          &c.exception, &c.actor_kind, &c.actor, &c.note}) {
        out += ',';
        cell(out, *v);
    }
    out += '\n';
}

}  // namespace duepay::domain::events
