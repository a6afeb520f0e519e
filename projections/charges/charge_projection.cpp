#include "projections/charges/charge_projection.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <stdexcept>

#include "domain/charge/resolution_json.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/money/fiat.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/reports/settlement.hpp"
#include "domain/text.hpp"
#include "projections/charges/settlement_projection.hpp"

namespace duepay::projections::charges {

namespace ev = domain::events;
namespace ch = domain::charge;

std::string timeline_json(const std::vector<ch::TimelineEntry>& timeline) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    w.StartArray();
    for (const auto& entry : timeline) {
        w.StartObject();
        w.Key("status");
        const auto status = ch::to_string(entry.status);
        w.String(status.data(), static_cast<rapidjson::SizeType>(status.size()));
        w.Key("at");
        w.String(entry.at.c_str());
        w.Key("txHash");
        if (entry.tx_hash.empty()) {
            w.Null();
        } else {
            w.String(entry.tx_hash.c_str());
        }
        if (entry.resolution) {  // a resolution, the status unchanged (ADR 0230)
            const auto resolution = ch::resolution_json(*entry.resolution);
            w.Key("resolution");
            w.RawValue(resolution.data(), resolution.size(), rapidjson::kObjectType);
        }
        w.EndObject();
    }
    w.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize());
}

namespace {

// The refunds as the API shows them (docs/refunds.md): amounts as decimal strings, addresses
// EIP-55, `to` and `amount` null until chainwatch recorded the refund, `reason` once rejected.
std::string refunds_json(const std::vector<ch::RefundRecord>& refunds) {
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> w(buffer);
    auto str = [&](const char* key, std::optional<std::string_view> value) {
        w.Key(key);
        if (value) {
            w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
        } else {
            w.Null();
        }
    };
    w.StartArray();
    for (const auto& r : refunds) {
        const bool done = r.status == ch::RefundStatus::succeeded;
        const auto amount = domain::money::to_string(r.amount);
        const auto to = r.to ? domain::evm::to_checksum(*r.to) : std::string();
        w.StartObject();
        str("refundId", r.refund_id);
        str("status", ch::to_string(r.status));
        str("txHash", domain::to_hex(r.tx_hash));
        str("amount", done ? std::optional<std::string_view>(amount) : std::nullopt);
        str("to", done && r.to ? std::optional<std::string_view>(to) : std::nullopt);
        str("reason", r.reason ? std::optional(ev::to_string(*r.reason)) : std::nullopt);
        w.EndObject();
    }
    w.EndArray();
    return std::string(buffer.GetString(), buffer.GetSize());
}

}  // namespace

infra::postgres::ChargeRow created_columns(const ev::Event& created_event) {
    const auto* created = std::get_if<ev::ChargeCreated>(&created_event.data);
    if (created == nullptr)
        throw std::invalid_argument("to_row: the first event is not charge.created");
    infra::postgres::ChargeRow row;
    row.invoice_id = domain::to_hex(created_event.invoice_id);
    row.project_id = created_event.project_id;
    row.mode = std::string(ev::to_string(created_event.mode));
    row.chain_id = created_event.chain_id.value;
    row.amount = domain::money::to_string(created->amount);
    row.token = domain::evm::to_checksum(created->token);
    row.token_symbol = created->token_symbol;
    row.token_decimals = static_cast<int>(created->token_decimals);
    row.payment_mode = std::string(ev::to_string(created->payment_mode));
    row.merchant = domain::evm::to_checksum(created->merchant);
    row.fee_bps = static_cast<int>(created->fee_bps);
    row.deadline = static_cast<std::int64_t>(created->deadline);
    if (created->deposit_address)
        row.deposit_address = domain::evm::to_checksum(*created->deposit_address);
    row.reference = created->reference;
    row.return_url = created->return_url;
    if (created->fiat) row.fiat_json = ev::encode_fiat_quote(*created->fiat);
    if (!created->metadata.empty()) row.metadata_json = ev::encode_metadata(created->metadata);
    row.created_at = created_event.occurred_at;
    return row;
}

void set_state_columns(infra::postgres::ChargeRow& row, const ch::ChargeState& state,
                       const LastEvent& last, int event_count) {
    row.status = std::string(ch::to_string(state.status));
    row.amount_confirmed = domain::money::to_string(state.amount_confirmed);
    row.exception.reset();
    if (state.exception != ch::Exception::none)
        row.exception = std::string(ch::to_string(state.exception));
    row.timeline_json = timeline_json(state.timeline);
    row.event_count = event_count;
    row.last_event_id = last.id;
    row.updated_at = last.occurred_at;
    row.amount_refunded = domain::money::to_string(state.amount_refunded);
    row.refunds_json = refunds_json(state.refunds);
    row.open_exception.reset();
    if (const auto open = ch::open_issue(state))
        row.open_exception = std::string(ev::to_string(open->exception));
    row.amount_late = domain::money::to_string(state.amount_late);
    row.exception_resolution_json.reset();
    row.exception_resolved_at.reset();
    if (!state.resolutions.empty()) {
        row.exception_resolution_json = ch::resolution_json(state.resolutions.back());
        row.exception_resolved_at = state.resolutions.back().at;
    }
}

infra::postgres::ChargeRow to_row(const ch::ChargeState& state, const ev::Event& created_event,
                                  const LastEvent& last, int event_count) {
    auto row = created_columns(created_event);
    set_state_columns(row, state, last, event_count);
    return row;
}

std::optional<infra::postgres::ChargeRow> project_charge(std::span<const ev::Event> events) {
    auto projected = project_charge_and_settlements(events);
    if (!projected) return std::nullopt;
    return std::move(projected->row);
}

std::optional<ProjectedCharge> project_charge_and_settlements(std::span<const ev::Event> events) {
    const ev::Event* created = nullptr;
    for (const auto& event : events) {
        if (std::holds_alternative<ev::ChargeCreated>(event.data)) {
            created = &event;
            break;
        }
    }
    if (created == nullptr) return std::nullopt;
    auto state = ch::initial_state();
    std::vector<domain::reports::SettlementEntry> entries;
    for (const auto& event : events) domain::reports::apply_collecting(state, event, entries);
    ProjectedCharge out;
    out.row = to_row(state, *created, {events.back().id, events.back().occurred_at},
                     static_cast<int>(events.size()));
    const auto terms = domain::reports::terms_of(std::get<ev::ChargeCreated>(created->data));
    out.settlements.reserve(entries.size());
    for (const auto& entry : entries)
        out.settlements.push_back(settlement_row(out.row, terms, entry));
    return out;
}

std::optional<ProjectedCharge> project_charge(std::span<const ev::Event> events,
                                              const std::function<bool(const ev::Event&)>& fresh,
                                              domain::reports::StatsRows& stats) {
    const auto created = std::find_if(events.begin(), events.end(), [](const ev::Event& e) {
        return std::holds_alternative<ev::ChargeCreated>(e.data);
    });
    if (created == events.end()) return std::nullopt;
    const auto terms = *domain::reports::terms_of(*created);
    const auto price_terms = domain::reports::terms_of(std::get<ev::ChargeCreated>(created->data));
    auto state = ch::initial_state();
    std::vector<domain::reports::SettlementEntry> entries;
    for (const auto& event : events) {
        const bool counted = fresh(event);
        if (!counted && !domain::reports::may_add_rows(event)) {
            ch::apply(state, event);
            continue;
        }
        const ch::ChargeState before = state;
        ch::apply(state, event);
        if (counted) stats.add(terms, domain::reports::stats_delta(terms, before, event, state));
        auto added = domain::reports::entries_of(before, event, state);
        entries.insert(entries.end(), std::make_move_iterator(added.begin()),
                       std::make_move_iterator(added.end()));
    }
    ProjectedCharge out;
    out.row = to_row(state, *created, {events.back().id, events.back().occurred_at},
                     static_cast<int>(events.size()));
    out.settlements.reserve(entries.size());
    for (const auto& entry : entries)
        out.settlements.push_back(settlement_row(out.row, price_terms, entry));
    return out;
}

bool row_is_storable(const infra::postgres::ChargeRow& row) {
    // chain_id is a Postgres bigint; the event allows any positive 64-bit id.
    if (row.chain_id > static_cast<std::uint64_t>(std::numeric_limits<std::int64_t>::max()))
        return false;
    const auto ok = [](const std::optional<std::string>& s) {
        return !s || domain::is_storable_text(*s);
    };
    for (const std::string* s :
         {&row.invoice_id, &row.project_id, &row.mode, &row.status, &row.amount, &row.token,
          &row.payment_mode, &row.merchant, &row.amount_confirmed, &row.timeline_json,
          &row.last_event_id, &row.created_at, &row.updated_at, &row.amount_refunded,
          &row.refunds_json, &row.amount_late}) {
        if (!domain::is_storable_text(*s)) return false;
    }
    return ok(row.token_symbol) && ok(row.deposit_address) && ok(row.reference) &&
           ok(row.return_url) && ok(row.fiat_json) && ok(row.exception) && ok(row.metadata_json) &&
           ok(row.open_exception) && ok(row.exception_resolution_json);
}

domain::Result<std::string> encode_checked_created(const ev::Event& created) {
    if (!std::holds_alternative<ev::ChargeCreated>(created.data)) {
        return domain::make_error("unprocessable_charge", "not a charge.created event");
    }
    std::string bytes = ev::encode_event(created);
    auto decoded = ev::decode_event(bytes);
    if (!decoded)
        return domain::make_error("unprocessable_charge",
                                  "the charge does not encode: " + decoded.error().message);
    if (!(*decoded == created)) {
        return domain::make_error("unprocessable_charge",
                                  "the charge does not survive encoding unchanged");
    }
    const std::span<const ev::Event> events(&decoded.value(), 1);
    const auto row = project_charge(events);
    if (!row || !row_is_storable(*row)) {
        return domain::make_error("unprocessable_charge",
                                  "the charge cannot be stored in the read model");
    }
    return bytes;
}

}  // namespace duepay::projections::charges
