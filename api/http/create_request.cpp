#include "api/http/create_request.hpp"

#include <rapidjson/document.h>

#include <utility>

#include "api/http/envelope.hpp"
#include "api/http/request_fields.hpp"
#include "domain/charge/create_rules.hpp"
#include "domain/events/metadata.hpp"
#include "domain/evm/address.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"
#include "domain/url.hpp"

namespace duepay::api {
namespace {

namespace ev = domain::events;

// A JSON string's full bytes (RapidJSON strings may hold NUL: never read them through the char*).
std::string_view str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

// `metadata` of a create: an object of string values under the rules of
// domain/events/metadata.hpp; null or {} means none. Anything else is invalid_metadata.
std::variant<ev::Metadata, ApiResponse> parse_metadata(const rapidjson::Value& v) {
    ev::Metadata m;
    if (v.IsNull()) return m;
    if (!v.IsObject())
        return bad_request("invalid_metadata", "metadata must be an object of string values");
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const auto key = str(it->name);
        if (!ev::is_metadata_key(key)) {
            return bad_request("invalid_metadata",
                               "metadata keys are 1-40 characters of A-Z a-z 0-9 _ . -");
        }
        if (!it->value.IsString()) {
            return bad_request("invalid_metadata",
                               "metadata." + std::string(key) + " must be a string");
        }
        m.emplace(key, str(it->value));  // unique: the parse refused a repeated name
    }
    if (auto bad = ev::check_metadata(m)) return bad_request(bad->code, bad->message);
    return m;
}

}  // namespace

std::variant<CreateInput, ApiResponse> parse_create(const std::string& body, const KeyOwner& owner,
                                                    const infra::config::ChainRegistry& chains) {
    rapidjson::Document doc;
    // One rule for every string of the body, the event and the read store (ADR 0043); depth and
    // repeated names bounded before anything reads the document (ADR 0202).
    if (auto refused = parse_object_body(body, doc, kStorableBody)) {
        return std::move(*refused);
    }
    // No silent drops (ADR 0162): a member we do not know is refused, not ignored.
    if (auto unknown = reject_unknown_members(
            doc, {"chainId", "amount", "fiat", "token", "paymentMode", "reference", "returnUrl",
                  "expiresInSeconds", "merchant", "metadata"})) {
        return std::move(*unknown);
    }
    if (doc.HasMember("fiat") && doc["fiat"].IsObject()) {
        if (auto unknown = reject_unknown_members(doc["fiat"], {"currency", "amount"}, "fiat"))
            return std::move(*unknown);
    }
    CreateInput in;
    if (!doc.HasMember("chainId") || !doc["chainId"].IsUint64()) {
        return bad_request("invalid_chain_id",
                           "chainId is required and must be a positive integer");
    }
    in.chain = chains.find(domain::ChainId{doc["chainId"].GetUint64()});
    if (in.chain == nullptr)
        return bad_request("unsupported_chain", "chainId is not a supported chain");
    const bool test_key = owner.mode == Mode::test;
    if (test_key != in.chain->testnet) {
        return bad_request("key_mode_mismatch",
                           test_key ? "a test key can only create charges on a testnet"
                                    : "a live key can only create charges on a mainnet");
    }
    if (!owner.payout_address) {
        return error_response(409, "payout_wallet_not_set",
                              "set and verify a payout wallet before creating charges");
    }
    if (doc.HasMember("merchant")) {
        if (!doc["merchant"].IsString())
            return bad_request("invalid_address", "merchant must be an address string");
        auto merchant = domain::evm::parse_address(str(doc["merchant"]));
        if (!merchant)
            return bad_request(merchant.error().code, "merchant: " + merchant.error().message);
        auto payout = domain::evm::parse_address(*owner.payout_address);
        if (!payout || !(*merchant == *payout)) {
            return error_response(403, "merchant_mismatch",
                                  "merchant differs from the verified payout address");
        }
    }
    const bool has_amount = doc.HasMember("amount") && !doc["amount"].IsNull();
    const bool has_fiat = doc.HasMember("fiat") && !doc["fiat"].IsNull();
    if (has_amount == has_fiat) {
        return bad_request("amount_or_fiat_required", "provide exactly one of amount or fiat");
    }
    if (has_fiat) {
        const auto& fiat = doc["fiat"];
        // The currencies are domain/money/fiat's; its message, our route's code.
        const auto currency =
            fiat.IsObject() && fiat.HasMember("currency") && fiat["currency"].IsString()
                ? domain::money::parse_fiat_currency(str(fiat["currency"]))
                : domain::money::parse_fiat_currency("");
        if (!currency)
            return bad_request("invalid_fiat_currency",
                               "fiat.currency: " + currency.error().message);
        if (!fiat.HasMember("amount") || !fiat["amount"].IsString()) {
            return bad_request("invalid_fiat_amount",
                               "fiat.amount must be a decimal string such as \"350.00\"");
        }
        auto amount = domain::money::parse_fiat_amount(*currency, str(fiat["amount"]));
        if (!amount)
            return bad_request(amount.error().code, "fiat.amount: " + amount.error().message);
        in.fiat = *amount;
    } else {
        if (!doc["amount"].IsString()) {
            return bad_request(
                "invalid_amount",
                "amount must be a decimal-integer string in the token smallest unit");
        }
        auto amount = domain::money::parse_charge_amount(str(doc["amount"]));
        if (!amount) return bad_request(amount.error().code, amount.error().message);
        in.amount = *amount;
    }

    std::string symbol = in.chain->default_token;
    if (doc.HasMember("token")) {
        if (!doc["token"].IsString())
            return bad_request("unsupported_token", "token must be a token symbol");
        symbol = std::string(str(doc["token"]));
    }
    in.token = in.chain->token_by_symbol(symbol);
    if (in.token == nullptr)
        return bad_request("unsupported_token", "token is not supported on this chain");

    if (doc.HasMember("paymentMode")) {
        const auto& m = doc["paymentMode"];
        const auto mode = m.IsString() ? domain::charge::parse_payment_mode(str(m))
                                       : std::optional<ev::PaymentMode>();
        if (!mode) {
            return bad_request("invalid_payment_mode",
                               "paymentMode must be wallet, transfer or both");
        }
        in.payment_mode = *mode;
    }
    // The chain's rails decide the mode (domain/charge/create_rules: both falls back to wallet).
    auto mode = domain::charge::payment_mode_on_chain(in.payment_mode, in.chain->transfer_rail);
    if (!mode) return bad_request(mode.error().code, mode.error().message);
    in.payment_mode = *mode;
    if (doc.HasMember("reference") && !doc["reference"].IsNull()) {
        const auto& r = doc["reference"];
        // Characters are code points (the string is valid UTF-8 by now), not bytes.
        if (!r.IsString() || domain::utf8_code_points(str(r)) > 255) {
            return bad_request("invalid_reference",
                               "reference must be a string of at most 255 characters");
        }
        in.reference = std::string(str(r));
    }
    if (doc.HasMember("returnUrl") && !doc["returnUrl"].IsNull()) {
        const auto& u = doc["returnUrl"];
        if (!u.IsString())
            return bad_request("invalid_return_url", "returnUrl must be an https URL string");
        // Parsed, not prefix-matched (domain/url.hpp): no userinfo, live keys https only.
        auto url = domain::check_return_url(str(u), !test_key);
        if (!url) return bad_request(url.error().code, url.error().message);
        in.return_url = std::move(url).value();
    }
    in.expires_in = static_cast<std::uint32_t>(owner.payment_window_seconds);
    if (doc.HasMember("expiresInSeconds")) {
        const auto& e = doc["expiresInSeconds"];
        if (!e.IsUint64() || !domain::charge::expires_in_allowed(e.GetUint64())) {
            return bad_request("invalid_expires_in",
                               std::string("expiresInSeconds must be an integer from ")
                                   .append(std::to_string(domain::charge::kMinExpiresInSeconds))
                                   .append(" to ")
                                   .append(std::to_string(domain::charge::kMaxExpiresInSeconds)));
        }
        in.expires_in = static_cast<std::uint32_t>(e.GetUint64());
    }
    if (doc.HasMember("metadata")) {
        auto metadata = parse_metadata(doc["metadata"]);
        if (auto* error = std::get_if<ApiResponse>(&metadata)) return std::move(*error);
        in.metadata = std::move(std::get<ev::Metadata>(metadata));
    }
    return in;
}

}  // namespace duepay::api
