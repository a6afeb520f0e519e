#include "api/http/charge_json.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <array>

#include "domain/events/event_json.hpp"
#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/hex.hpp"
#include "domain/json.hpp"
#include "domain/money/token_amount.hpp"

namespace duepay::api {
namespace {

using domain::json::Writer;

using domain::json::opt_str;
using domain::json::str;

void raw_json(Writer& w, const char* key, const std::string& json) {
    w.Key(key);
    w.RawValue(json.data(), json.size(), rapidjson::kObjectType);
}

// The stored metadata (jsonb text, keys in jsonb's order) as the event writes it: keys sorted,
// string values only; {} when the charge has none.
std::string metadata_json(const std::optional<std::string>& stored) {
    domain::events::Metadata m;
    if (stored) {
        // The document's values in a buffer on the stack: a Document's default pool takes 64 KB
        // from the heap, whose free consolidated the heap on every item of a list page.
        std::array<char, 2048> pool;  // left uninitialised: the allocator writes before it reads
        rapidjson::MemoryPoolAllocator<> allocator(pool.data(), pool.size());
        rapidjson::Document doc(&allocator);
        const auto problem = domain::json::parse(doc, *stored);
        if (problem.refusal == domain::json::Refusal::none && doc.IsObject()) {
            for (auto it = doc.MemberBegin(); it != doc.MemberEnd(); ++it) {
                if (!it->value.IsString()) continue;
                m.emplace(std::string(it->name.GetString(), it->name.GetStringLength()),
                          std::string(it->value.GetString(), it->value.GetStringLength()));
            }
        }
    }
    return domain::events::encode_metadata(m);
}

// Signs the intent; nullopt when the invoice id is not 0x + 64 hex (never, from a reader).
std::optional<std::string> sign_intent(const ChargeView& row, const infra::config::ChainInfo& chain,
                                       const ports::Signer& signer) {
    auto id = domain::parse_invoice_id(row.invoice_id);
    if (!id) return std::nullopt;
    domain::evm::PaymentIntent intent{*id,
                                      row.merchant,
                                      row.token,
                                      row.amount,
                                      static_cast<std::uint16_t>(row.fee_bps),
                                      domain::uint256(row.deadline)};
    const auto digest =
        domain::evm::intent_digest(domain::evm::Eip712Domain{chain.chain_id, chain.router}, intent);
    return domain::to_hex(signer.sign_digest(digest).bytes);
}

// The EIP-55 text of an address (a keccak), kept for the last address a thread rendered in one
// field: the items of a list page nearly always share their token and their merchant, and a
// keccak an address was ~6 % of a page's CPU (bench/RESULTS.md, listing; ADR 0188, 0206).
struct ChecksumText {
    domain::Address address;
    std::string text;
    bool filled = false;

    const std::string& of(const domain::Address& a) {
        if (!filled || !(address == a)) {
            address = a;
            text = domain::evm::to_checksum(a);
            filled = true;
        }
        return text;
    }
};

// Writes the charge object: the terms, then (full) the read-model fields.
void write_charge_json(domain::json::Writer& w, const ChargeView& row,
                       const infra::config::ChainInfo* chain, const ports::Signer* signer,
                       const std::string& checkout_url, bool full, const Branding* branding) {
    thread_local ChecksumText token_text;
    thread_local ChecksumText merchant_text;
    const bool wallet = row.payment_mode != PaymentMode::transfer;
    const bool transfer = row.payment_mode != PaymentMode::wallet;
    const std::string deadline = std::to_string(row.deadline);
    const std::string amount = domain::money::to_string(row.amount);
    const std::string& token = token_text.of(row.token);
    w.StartObject();
    str(w, "invoiceId", row.invoice_id);
    w.Key("chainId");
    w.Uint64(row.chain_id.value);
    str(w, "mode", domain::events::to_string(row.payment_mode));
    str(w, "checkoutUrl", checkout_url + "/c/" + row.invoice_id);
    if (transfer && row.deposit_address)
        str(w, "depositAddress", domain::evm::to_checksum(*row.deposit_address));
    str(w, "token", token);
    str(w, "amount", amount);
    w.Key("feeBps");
    w.Int(row.fee_bps);
    str(w, "deadline", deadline);
    if (wallet && signer != nullptr && chain != nullptr) {
        if (auto signature = sign_intent(row, *chain, *signer)) {
            w.Key("intent");
            w.StartObject();
            str(w, "invoiceId", row.invoice_id);
            str(w, "merchant", merchant_text.of(row.merchant));
            str(w, "token", token);
            str(w, "amount", amount);
            w.Key("feeBps");
            w.Int(row.fee_bps);
            str(w, "deadline", deadline);
            w.EndObject();
            str(w, "signature", *signature);
        }
    }
    if (row.fiat_json) raw_json(w, "fiat", *row.fiat_json);
    opt_str(w, "reference", row.reference);
    raw_json(w, "metadata", metadata_json(row.metadata_json));
    if (full) {
        str(w, "status", domain::charge::to_string(row.status));
        // Token metadata: the read model's symbol/decimals, the name from the chain registry.
        const infra::config::TokenInfo* listed = nullptr;
        if (chain != nullptr) {
            for (const auto& t : chain->tokens) {
                if (t.address == row.token) listed = &t;
            }
        }
        w.Key("tokenInfo");
        w.StartObject();
        str(w, "address", token);
        if (row.token_symbol) {
            str(w, "symbol", *row.token_symbol);
        } else {
            opt_str(w, "symbol",
                    listed ? std::optional<std::string>(listed->symbol) : std::nullopt);
        }
        w.Key("decimals");
        if (row.token_decimals) {
            w.Int(*row.token_decimals);
        } else if (listed != nullptr) {
            w.Int(listed->decimals);
        } else {
            w.Null();
        }
        opt_str(w, "name", listed ? std::optional<std::string>(listed->name) : std::nullopt);
        w.EndObject();
        w.Key("branding");
        if (branding != nullptr) {
            w.StartObject();
            str(w, "projectName", branding->project_name);
            opt_str(w, "logoUrl", branding->logo_url);
            opt_str(w, "accentColor", branding->accent_color);
            w.EndObject();
        } else {
            w.Null();
        }
        str(w, "merchant", merchant_text.of(row.merchant));
        str(w, "amountConfirmed", domain::money::to_string(row.amount_confirmed));
        str(w, "amountRefunded", domain::money::to_string(row.amount_refunded));
        w.Key("refunds");  // docs/refunds.md
        w.RawValue(row.refunds_json.data(), row.refunds_json.size(), rapidjson::kArrayType);
        opt_str(w, "exception", row.exception);
        w.Key("exceptionResolution");  // ADR 0230: the latest resolution, or null
        if (row.exception_resolution_json) {
            w.RawValue(row.exception_resolution_json->data(), row.exception_resolution_json->size(),
                       rapidjson::kObjectType);
        } else {
            w.Null();
        }
        opt_str(w, "returnUrl", row.return_url);
        w.Key("timeline");
        w.RawValue(row.timeline_json.data(), row.timeline_json.size(), rapidjson::kArrayType);
        str(w, "createdAt", row.created_at);
        str(w, "updatedAt", row.updated_at);
    }
    w.EndObject();
}

}  // namespace

ChargeView view_of_created(const domain::events::Event& event) {
    namespace ev = domain::events;
    const auto& created = std::get<ev::ChargeCreated>(event.data);
    ChargeView v;
    v.invoice_id = domain::to_hex(event.invoice_id);
    v.project_id = ProjectId{event.project_id};
    v.mode = event.mode;
    v.chain_id = event.chain_id;
    v.amount = created.amount;
    v.token = created.token;
    v.token_symbol = created.token_symbol;
    v.token_decimals = static_cast<int>(created.token_decimals);
    v.payment_mode = created.payment_mode;
    v.merchant = created.merchant;
    v.fee_bps = static_cast<int>(created.fee_bps);
    v.deadline = static_cast<std::int64_t>(created.deadline);
    v.deposit_address = created.deposit_address;
    v.reference = created.reference;
    v.return_url = created.return_url;
    if (created.fiat) v.fiat_json = ev::encode_fiat_quote(*created.fiat);  // as projected
    if (!created.metadata.empty()) v.metadata_json = ev::encode_metadata(created.metadata);
    v.created_at = event.occurred_at;
    v.updated_at = event.occurred_at;
    return v;
}

std::string created_json(const ChargeView& charge, const infra::config::ChainInfo* chain,
                         const ports::Signer* signer, const std::string& checkout_url) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    write_charge_json(w, charge, chain, signer, checkout_url, false, nullptr);
    return std::string(buffer.GetString(), buffer.GetSize());
}

std::string charge_read_json(const ChargeView& charge, const infra::config::ChainInfo* chain,
                             const ports::Signer* signer, const std::string& checkout_url,
                             const Branding* branding) {
    rapidjson::StringBuffer buffer;
    Writer w(buffer);
    write_charge_json(w, charge, chain, signer, checkout_url, true, branding);
    return std::string(buffer.GetString(), buffer.GetSize());
}

void write_listed_charge_json(domain::json::Writer& w, const ChargeView& charge,
                              const infra::config::ChainInfo* chain,
                              const std::string& checkout_url, const Branding* branding) {
    write_charge_json(w, charge, chain, nullptr, checkout_url, true, branding);
}

}  // namespace duepay::api
