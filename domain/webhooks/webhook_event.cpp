#include "domain/webhooks/webhook_event.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <optional>
#include <type_traits>

#include "domain/charge/resolution_json.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"

namespace duepay::domain::webhooks {
namespace {

namespace ev = domain::events;
using Writer = rapidjson::Writer<rapidjson::StringBuffer>;

void key_string(Writer& w, const char* key, std::string_view value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void key_optional(Writer& w, const char* key, const std::optional<std::string>& value) {
    w.Key(key);
    if (value) {
        w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    } else {
        w.Null();
    }
}

// The transaction behind a charge event, when it has one.
std::optional<std::string> tx_hash_of(const ev::EventData& data) {
    return std::visit(
        [](const auto& d) -> std::optional<std::string> {
            using T = std::decay_t<decltype(d)>;
            if constexpr (requires { d.payment; }) {
                return to_hex(d.payment.tx_hash);
            } else if constexpr (std::is_same_v<T, ev::ChargeRefunded>) {
                return to_hex(d.tx_hash);
            } else {
                return std::nullopt;
            }
        },
        data);
}

std::string render(const std::string& id, std::string_view type, const charge::ChargeState& after,
                   const ev::Event& event, const ev::Event& created_event) {
    const auto& created = std::get<ev::ChargeCreated>(created_event.data);
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    key_string(w, "id", id);
    key_string(w, "type", type);
    key_string(w, "createdAt", event.occurred_at);
    key_string(w, "mode", ev::to_string(event.mode));
    w.Key("data");
    w.StartObject();
    key_string(w, "invoiceId", to_hex(event.invoice_id));
    key_optional(w, "reference", created.reference);
    const auto metadata = ev::encode_metadata(created.metadata);  // {} when none
    w.Key("metadata");
    w.RawValue(metadata.data(), metadata.size(), rapidjson::kObjectType);
    w.Key("chainId");
    w.Uint64(event.chain_id.value);
    key_string(w, "status", charge::to_string(after.status));
    w.Key("exception");
    if (after.exception == charge::Exception::none) {
        w.Null();
    } else {
        const auto text = charge::to_string(after.exception);
        w.String(text.data(), static_cast<rapidjson::SizeType>(text.size()));
    }
    key_string(w, "amount", money::to_string(created.amount));
    key_string(w, "amountConfirmed", money::to_string(after.amount_confirmed));
    key_string(w, "token", evm::to_checksum(created.token));
    key_string(w, "tokenSymbol", created.token_symbol);
    w.Key("tokenDecimals");
    w.Uint(created.token_decimals);
    key_string(w, "paymentMode", ev::to_string(created.payment_mode));
    key_optional(w, "txHash", tx_hash_of(event.data));
    key_string(w, "occurredAt", event.occurred_at);
    if (type == "invoice.paid") key_string(w, "paidAt", event.occurred_at);
    if (type == "invoice.late_payment")
        key_string(w, "amountLate", money::to_string(after.amount_late));
    if (const auto* refund = std::get_if<ev::ChargeRefunded>(&event.data)) {
        key_string(w, "amountRefunded", money::to_string(after.amount_refunded));
        w.Key("refund");
        w.StartObject();
        key_string(w, "refundId", refund->refund_id);
        key_string(w, "txHash", to_hex(refund->tx_hash));
        key_string(w, "amount", money::to_string(refund->amount));
        key_string(w, "to", evm::to_checksum(refund->to));
        w.EndObject();
    }
    if (type == "invoice.exception_resolved" && !after.resolutions.empty()) {
        const auto resolution = charge::resolution_json(after.resolutions.back());
        w.Key("resolution");
        w.RawValue(resolution.data(), resolution.size(), rapidjson::kObjectType);
    }
    w.Key("fiat");
    if (created.fiat) {
        const auto fiat = ev::encode_fiat_quote(*created.fiat);
        w.RawValue(fiat.data(), fiat.size(), rapidjson::kObjectType);
    } else {
        w.Null();
    }
    w.EndObject();
    w.EndObject();
    return {buffer.GetString(), buffer.GetSize()};
}

}  // namespace

bool is_webhook_event_type(std::string_view type) {
    for (auto t : kWebhookEventTypes) {
        if (t == type) return true;
    }
    return false;
}

std::string webhook_event_id(std::string_view charge_event_id, std::string_view type) {
    std::string material = "duepay.webhook|";
    material.append(charge_event_id).append("|").append(type);
    const auto digest = evm::keccak256(std::string_view(material));
    return "evt_" + to_hex(std::span<const std::uint8_t>(digest.data(), 24)).substr(2);
}

std::vector<WebhookEvent> webhook_events_for(const charge::ChargeState& before,
                                             const charge::ChargeState& after,
                                             const ev::Event& event, const ev::Event& created) {
    std::vector<WebhookEvent> out;
    if (!after.created || !std::holds_alternative<ev::ChargeCreated>(created.data)) return out;
    auto emit = [&](std::string type) {
        auto id = webhook_event_id(event.id, type);
        auto body = render(id, type, after, event, created);
        out.push_back(WebhookEvent{std::move(id), std::move(type), std::move(body)});
    };
    if (before.created && after.status != before.status &&
        after.status != charge::Status::pending) {
        emit("invoice." + std::string(charge::to_string(after.status)));
    } else if (std::holds_alternative<ev::ChargeRefunded>(event.data) &&
               after.amount_refunded.value > before.amount_refunded.value) {
        emit("invoice.refunded");  // a partial refund: the status stays (paid, underpaid, ...)
    }
    if (std::holds_alternative<ev::ExceptionResolved>(event.data) &&
        after.resolutions.size() > before.resolutions.size()) {
        emit("invoice.exception_resolved");  // the status stays
    }
    if (std::holds_alternative<ev::LateDeposit>(event.data) &&
        after.amount_late.value > before.amount_late.value) {
        emit("invoice.late_payment");
    }
    return out;
}

WebhookEvent test_event(std::string id, std::string_view created_at, ev::Mode mode,
                        std::string_view endpoint_id) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    w.StartObject();
    key_string(w, "id", id);
    key_string(w, "type", kTestEventType);
    key_string(w, "createdAt", created_at);
    key_string(w, "mode", ev::to_string(mode));
    w.Key("data");
    w.StartObject();
    key_string(w, "endpointId", endpoint_id);
    w.EndObject();
    w.EndObject();
    return WebhookEvent{
        std::move(id), std::string(kTestEventType), {buffer.GetString(), buffer.GetSize()}};
}

}  // namespace duepay::domain::webhooks
