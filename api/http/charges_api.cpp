#include "api/http/charges_api.hpp"

#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <ctime>
#include <memory>
#include <mutex>
#include <utility>

#include "api/http/account_api.hpp"
#include "api/http/charge_json.hpp"
#include "api/http/charge_list.hpp"
#include "api/http/envelope.hpp"
#include "api/http/events_api.hpp"
#include "api/http/refunds_api.hpp"
#include "api/http/request_fields.hpp"
#include "api/http/webhooks_api.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/money/rate.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"
#include "domain/url.hpp"
#include "infra/log/log.hpp"
#include "infra/postgres/idempotency_store.hpp"
#include "infra/postgres/pool.hpp"
#include "infra/random/random.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::api {

constexpr infra::log::Logger kLog{"api"};
namespace {

namespace ev = domain::events;

constexpr std::string_view kInvoices = "/v1/invoices";
constexpr std::string_view kCharges = "/v1/charges/";
constexpr std::string_view kChargeList = "/v1/charges";

ApiResponse unauthorized() { return error_response(401, "invalid_api_key", "invalid API key"); }
ApiResponse bad_request(std::string_view code, std::string_view message) {
    return error_response(400, code, message);
}

// What an admitted create holds until it answers (docs/limits.md): its Idempotency-Key claim and
// the quota unit it took. Settled once: complete() stores the 201 for replays; release() frees the
// key and, for a failure that created no charge, gives the quota unit back; unlock() keeps the key
// bound to the prepared charge for a retry (unknown append outcome, ADR 0091). Never throws (it
// runs on the event log's callback thread); a database error is logged, and the key's lock times
// out.
struct CreateGuard {
    IdempotencyKeys* keys = nullptr;
    CreationLimiter* limiter = nullptr;
    ProjectId project_id;
    std::optional<std::string> key;  // set once begin() gave us the key
    infra::random::Digest32 fingerprint{};
    std::optional<std::string> quota_month;  // set once the limiter allowed (metered plans)
    bool prepared = false;  // the key is bound to the charge being appended (never deleted now)
    bool resumed = false;   // this request resumed a key bound by an earlier attempt
    std::mutex mutex;
    bool settled = false;

    bool settle() {
        std::lock_guard lock(mutex);
        return !std::exchange(settled, true);
    }

    // Binds the key to the charge about to be appended (no-op without a key). Throws
    // DatabaseUnavailable; false if the key is no longer ours.
    bool prepare(const PreparedCreate& charge) {
        if (!key) return true;
        if (!keys->prepare(project_id, *key, fingerprint, charge)) return false;
        prepared = true;
        return true;
    }

    void release(bool refund_quota) noexcept {
        if (!settle()) return;
        try {
            // Only for failures after which no event of this key can be in the log.
            if (key) keys->abandon(project_id, *key, fingerprint);
        } catch (const std::exception& e) {
            kLog.warn() << "api: abandon of idempotency key failed: " << e.what();
        }
        try {
            if (refund_quota && quota_month) limiter->refund_quota(project_id, *quota_month);
        } catch (const std::exception& e) {
            kLog.warn() << "api: quota refund failed: " << e.what();
        }
    }

    // After an unknown outcome: the key stays bound to the prepared charge and is free for the
    // retry at once; the quota unit stays taken (the charge may exist).
    void unlock() noexcept {
        if (!settle() || !key) return;
        try {
            keys->unlock(project_id, *key, fingerprint);
        } catch (const std::exception& e) {
            kLog.warn() << "api: unlock of idempotency key failed: " << e.what();
        }
    }

    // Settles after an exception: a bound key is unlocked, anything else released with a refund.
    void fail_safe() noexcept {
        if (prepared) {
            unlock();
        } else {
            release(true);
        }
    }

    void complete(const ApiResponse& response) noexcept {
        if (!settle() || !key) return;
        StoredResponse stored;
        stored.status = response.status;
        stored.headers.assign(response.headers.begin(), response.headers.end());
        stored.body = response.body;
        try {
            if (!keys->complete(project_id, *key, fingerprint, stored)) {
                kLog.warn() << "api: idempotency key of " << project_id.value
                            << " was no longer ours at completion";
            }
        } catch (const std::exception& e) {
            kLog.warn() << "api: storing the idempotent response failed: " << e.what();
        }
    }
};

ApiResponse replayed(const StoredResponse& stored) {
    ApiResponse r;
    r.status = stored.status;
    r.body = stored.body;
    for (const auto& [name, value] : stored.headers) r.headers[name] = value;
    return r;
}

// A JSON string's full bytes (RapidJSON strings may hold NUL: never read them through the char*).
std::string_view str(const rapidjson::Value& v) { return {v.GetString(), v.GetStringLength()}; }

// The path of the first string in `v` (a member name or a value) that is not storable text
// (domain/text.hpp: strict UTF-8 without NUL), e.g. "fiat.amount"; nullopt when all are. The
// offending bytes are never echoed: a bad member name is reported by its parent's path.
std::optional<std::string> find_unstorable_string(const rapidjson::Value& v,
                                                  const std::string& path) {
    if (v.IsString()) {
        if (domain::is_storable_text(str(v))) return std::nullopt;
        return path.empty() ? std::string("body") : path;
    }
    if (v.IsObject()) {
        for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
            const auto name = str(it->name);
            if (!domain::is_storable_text(name)) {
                return path.empty() ? std::string("a member name") : "a member name in " + path;
            }
            const std::string child =
                path.empty() ? std::string(name) : path + "." + std::string(name);
            if (auto bad = find_unstorable_string(it->value, child)) return bad;
        }
    } else if (v.IsArray()) {
        for (rapidjson::SizeType i = 0; i < v.Size(); ++i) {
            if (auto bad = find_unstorable_string(v[i], path + "[" + std::to_string(i) + "]"))
                return bad;
        }
    }
    return std::nullopt;
}

// Everything a create needs, validated.
struct CreateInput {
    const infra::config::ChainInfo* chain = nullptr;
    const infra::config::TokenInfo* token = nullptr;
    domain::TokenAmount amount;
    std::optional<domain::money::FiatAmount> fiat;  // priced in fiat: amount is set at create time
    ev::PaymentMode payment_mode = ev::PaymentMode::both;
    std::optional<std::string> reference;
    std::optional<std::string> return_url;
    std::uint32_t expires_in = 3600;
    ev::Metadata metadata;
};

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
        if (!m.emplace(key, str(it->value)).second) {
            return bad_request("invalid_metadata",
                               "metadata." + std::string(key) + " is given twice");
        }
    }
    if (auto bad = ev::check_metadata(m)) return bad_request(bad->code, bad->message);
    return m;
}

// Parses and validates the body of POST /v1/invoices in spec order: chain and key mode first
// (nothing is signed before that), then the account, then the price and options.
std::variant<CreateInput, ApiResponse> parse_create(const std::string& body, const KeyOwner& owner,
                                                    const infra::config::ChainRegistry& chains) {
    rapidjson::Document doc;
    doc.Parse(body.data(), body.size());
    if (doc.HasParseError() || !doc.IsObject()) {
        return bad_request("invalid_json", "request body must be a JSON object");
    }
    // One rule for every string of the body, the event and the read store (ADR 0043).
    if (auto bad = find_unstorable_string(doc, "")) {
        return bad_request("invalid_string", *bad + " must be valid UTF-8 without NUL characters");
    }
    // No silent drops (issue 16 item 7): a member we do not know is refused, not ignored.
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
        const bool known = fiat.IsObject() && fiat.HasMember("currency") &&
                           fiat["currency"].IsString() &&
                           (str(fiat["currency"]) == "THB" || str(fiat["currency"]) == "USD");
        if (!known) return bad_request("invalid_fiat_currency", "fiat.currency must be THB or USD");
        const auto currency = domain::money::parse_fiat_currency(str(fiat["currency"]));
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
        const std::string_view mode = m.IsString() ? str(m) : std::string_view();
        if (mode == "wallet") {
            in.payment_mode = ev::PaymentMode::wallet;
        } else if (mode == "transfer") {
            in.payment_mode = ev::PaymentMode::transfer;
        } else if (mode == "both") {
            in.payment_mode = ev::PaymentMode::both;
        } else {
            return bad_request("invalid_payment_mode",
                               "paymentMode must be wallet, transfer or both");
        }
    }
    if (!in.chain->transfer_rail) {
        if (in.payment_mode == ev::PaymentMode::transfer) {
            return bad_request("transfer_rail_unavailable",
                               "this chain has no transfer rail; use wallet");
        }
        in.payment_mode = ev::PaymentMode::wallet;  // spec 4.1: both falls back to wallet
    }
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
        if (!e.IsUint64() || e.GetUint64() < 1 || e.GetUint64() > 86400) {
            return bad_request("invalid_expires_in",
                               "expiresInSeconds must be an integer from 1 to 86400");
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

}  // namespace

std::string new_uuid() {
    auto b = infra::random::random_bytes<16>();
    b[6] = static_cast<std::uint8_t>((b[6] & 0x0f) | 0x40);
    b[8] = static_cast<std::uint8_t>((b[8] & 0x3f) | 0x80);
    const std::string hex = domain::to_hex(b).substr(2);
    return hex.substr(0, 8) + "-" + hex.substr(8, 4) + "-" + hex.substr(12, 4) + "-" +
           hex.substr(16, 4) + "-" + hex.substr(20);
}

ChargesApi::ChargesApi(ApiDeps deps) : deps_(std::move(deps)), auth_(*deps_.keys) {}

void ChargesApi::handle(const ApiRequest& request, Responder respond) {
    try {
        const std::string_view path = request.path;
        const bool is_invoices = path == kInvoices;
        const bool is_list = path == kChargeList && deps_.lister != nullptr;
        std::string charge_id;
        bool status_only = false;
        bool is_charge = false;
        if (path.starts_with(kCharges) && path.size() > kCharges.size()) {
            std::string_view rest = path.substr(kCharges.size());
            constexpr std::string_view kStatus = "/status";
            if (rest.ends_with(kStatus)) {
                rest.remove_suffix(kStatus.size());
                status_only = true;
            }
            if (!rest.empty() && rest.find('/') == std::string_view::npos) {
                is_charge = true;
                charge_id = std::string(rest);
            }
        }
        if (path == "/healthz") {
            if (request.method != "GET") {
                auto r = error_response(405, "method_not_allowed", "method not allowed");
                r.headers["allow"] = "GET";
                return respond(std::move(r));
            }
            return respond(success_response(200, R"({"status":"ok"})"));
        }
        if (deps_.webhooks != nullptr && WebhooksApi::owns(request.path)) {
            return respond(deps_.webhooks->handle(request));
        }
        if (deps_.account != nullptr && AccountApi::owns(request.path)) {
            return respond(deps_.account->handle(request));
        }
        if (deps_.events != nullptr && EventsApi::owns(request.path)) {
            return respond(deps_.events->handle(request));
        }
        if (deps_.refunds != nullptr && RefundsApi::owns(request.path)) {
            return deps_.refunds->handle(request, respond);
        }
        if (!is_invoices && !is_charge && !is_list)
            return respond(error_response(404, "route_not_found", "no such route"));
        const char* allowed = is_invoices ? "POST" : "GET";
        if (request.method != allowed) {
            auto r = error_response(405, "method_not_allowed", "method not allowed");
            r.headers["allow"] = allowed;
            return respond(std::move(r));
        }
        auto owner = auth_.authenticate(request);
        if (!owner) return respond(unauthorized());
        // The list has its parameters; the create and the reads take none (issue 16 item 7).
        if (!is_list) {
            if (auto unknown = reject_unknown_params(request, {}))
                return respond(std::move(*unknown));
        }
        // A copy: if create throws before answering, the handlers below still have the responder.
        if (is_invoices) return create(request, *owner, respond);
        if (is_list) return respond(list(request, *owner));
        return respond(read(charge_id, *owner, status_only));
    } catch (const infra::postgres::DatabaseUnavailable& e) {
        kLog.warn().with("request_id", request.request_id)
            << "api: database unavailable: " << e.what();
        respond(error_response(503, "database_unavailable",
                               "the database is unavailable; retry later", deps_.retry_after_ms));
    } catch (const std::exception& e) {
        kLog.error().with("request_id", request.request_id) << "api: internal error: " << e.what();
        respond(error_response(500, "internal_error", "internal server error"));
    }
}

ApiResponse ChargesApi::read(const std::string& raw_id, const KeyOwner& owner, bool status_only) {
    auto id = domain::parse_invoice_id(raw_id);
    if (!id || raw_id.size() != 66) {
        return bad_request("invalid_invoice_id", "invoiceId must be 0x followed by 64 hex digits");
    }
    const std::string invoice_id = domain::to_hex(*id);
    if (status_only) {
        auto status = deps_.charges->find_status(invoice_id);
        // Scoped like creates: the key's project AND mode; the other mode's charge does not exist.
        if (!status || status->project_id != owner.project_id || status->mode != owner.mode) {
            return error_response(404, "charge_not_found", "charge not found");
        }
        return success_response(
            200, R"({"invoiceId":")" + invoice_id + R"(","status":")" + status->status + "\"}");
    }
    auto charge = deps_.charges->find(invoice_id);
    if (!charge || charge->project_id != owner.project_id || charge->mode != owner.mode) {
        return error_response(404, "charge_not_found", "charge not found");
    }
    const auto branding = branding_of(owner);
    return success_response(200, charge_read_json(*charge, deps_.chains->find(charge->chain_id),
                                                  deps_.signer, deps_.checkout_url, &branding));
}

ApiResponse ChargesApi::list(const ApiRequest& request, const KeyOwner& owner) {
    auto parsed = parse_list_query(request, owner);
    if (auto* error = std::get_if<ApiResponse>(&parsed)) return std::move(*error);
    auto query = std::get<ChargeListQuery>(std::move(parsed));
    const std::size_t page = query.limit;
    query.limit = page + 1;  // one more row says whether there is a next page
    auto rows = deps_.lister->list(query);
    const bool more = rows.size() > page;
    if (more) rows.resize(page);
    // Each item is the full read (2.5) without the freshly signed intent: no signer. The page is
    // written into one buffer.
    const auto branding = branding_of(owner);
    rapidjson::StringBuffer buffer;
    buffer.Reserve(1024 * (rows.size() + 1));  // an item is about 1 KB
    domain::json::Writer w(buffer);
    w.StartObject();
    w.Key("items");
    w.StartArray();
    for (const auto& listed : rows) {
        const auto& charge = listed.charge;
        write_listed_charge_json(w, charge, deps_.chains->find(charge.chain_id), deps_.checkout_url,
                                 &branding);
    }
    w.EndArray();
    w.Key("hasMore");
    w.Bool(more);
    w.Key("nextCursor");
    if (more) {
        const auto cursor =
            encode_list_cursor({rows.back().created_us, rows.back().charge.invoice_id});
        w.String(cursor.data(), static_cast<rapidjson::SizeType>(cursor.size()));
    } else {
        w.Null();
    }
    w.EndObject();
    return success_response(200, std::string_view(buffer.GetString(), buffer.GetSize()));
}

namespace {

// Appends a prepared charge.created and answers: 201 once durable (after a bounded wait for the
// projection), 503 otherwise. Settles `guard`.
void append_and_answer(const ApiDeps& deps, infra::kafka::LogRecord record,
                       std::shared_ptr<std::string> body, const std::shared_ptr<CreateGuard>& guard,
                       Responder respond) {
    auto* waiter = deps.waiter;
    const auto timeout = deps.projection_timeout;
    const auto retry_after = deps.retry_after_ms;
    const std::string invoice_id = record.key;
    deps.log->append_async(
        std::move(record), [=, respond = std::move(respond)](infra::kafka::AppendResult result) {
            if (result.status == infra::kafka::AppendStatus::not_persisted) {
                // Nothing of this attempt is in the log. A first attempt frees the key and the
                // quota unit; a resumed one keeps the key bound (the earlier attempt's outcome is
                // unknown).
                if (guard->resumed) {
                    guard->unlock();
                    respond(error_response(
                        503, "event_log_unavailable",
                        "the event log is unavailable; retry later with the same Idempotency-Key",
                        retry_after));
                    return;
                }
                guard->release(true);
                respond(error_response(
                    503, "event_log_unavailable",
                    "the event log is unavailable; the charge was not created, retry later",
                    retry_after));
                return;
            }
            if (result.status == infra::kafka::AppendStatus::possibly_persisted) {
                kLog.warn().with("invoice_id", invoice_id)
                    << "api: append of " << invoice_id << " possibly persisted: " << result.error;
                guard->unlock();  // the charge may exist: the key stays bound, the quota unit taken
                respond(error_response(
                    503, "event_log_outcome_unknown",
                    "the event log did not confirm the charge; retry with the same Idempotency-Key",
                    retry_after));
                return;
            }
            // Durable in the log: the charge exists. Wait (bounded) for the read model so the
            // buyer's first read finds it; answer 201 either way
            // (docs/adr/0041-projector-and-read-your-writes.md).
            waiter->wait(invoice_id, timeout, [respond, body, invoice_id, guard](bool projected) {
                if (!projected)
                    kLog.warn().with("invoice_id", invoice_id)
                        << "api: projection of " << invoice_id << " not seen in time";
                auto answer = success_response(201, *body);
                guard->complete(answer);  // stored before the answer: a replay right after finds it
                respond(std::move(answer));
            });
        });
}

// Prices, signs and appends an admitted create (past idempotency and the limiter); answers once.
void create_admitted(const ApiDeps& deps, CreateInput& in, const KeyOwner& owner,
                     const std::shared_ptr<CreateGuard>& guard, Responder respond) {
    // A clean failure from here on created no charge: free the key, give the quota unit back.
    auto fail = [&](ApiResponse response) {
        guard->release(true);
        respond(std::move(response));
    };
    const auto now_ms = deps.now_ms();
    std::optional<ev::FiatQuote> fiat_quote;
    if (in.fiat) {  // docs/pricing.md: live rate, buffer in the merchant's favour, round up
        if (deps.rates == nullptr) {
            return fail(error_response(501, "fiat_pricing_unavailable",
                                       "fiat pricing is not configured; use amount"));
        }
        infra::rates::Quote quote;
        try {
            quote = deps.rates->quote(in.fiat->currency, in.token->symbol, in.chain->chain_id);
        } catch (const infra::rates::RateUnavailable& e) {
            kLog.warn() << "api: rate unavailable: " << e.what();
            return fail(
                error_response(503, "rate_unavailable",
                               "no current exchange rate for this token; retry later or use amount",
                               deps.retry_after_ms));
        }
        auto amount = domain::money::fiat_to_token_amount(*in.fiat, quote.fiat_per_token,
                                                          static_cast<unsigned>(in.token->decimals),
                                                          deps.fiat_buffer_bps);
        if (!amount) return fail(bad_request(amount.error().code, amount.error().message));
        in.amount = *amount;
        ev::FiatQuote q;
        q.amount = *in.fiat;
        q.token_amount = *amount;
        q.rate = quote.fiat_per_token;
        q.rate_source = quote.source;
        q.buffer_bps = deps.fiat_buffer_bps;
        q.rate_read_at = ev::format_rfc3339_millis_utc(
            std::chrono::duration_cast<std::chrono::milliseconds>(quote.read_at.time_since_epoch())
                .count());
        fiat_quote = std::move(q);
    }
    const auto merchant = domain::evm::parse_address(*owner.payout_address);
    if (!merchant)
        throw std::runtime_error("stored payout address is malformed: " + *owner.payout_address);

    ev::Event event;
    event.id = deps.new_event_id();
    event.invoice_id = deps.new_invoice_id();
    event.project_id = owner.project_id.value;
    event.mode = owner.mode;
    event.chain_id = in.chain->chain_id;
    event.occurred_at = ev::format_rfc3339_millis_utc(now_ms);
    domain::charge::Create command;  // the deadline, grace and deposit address are decided there
    command.invoice_id = event.invoice_id;
    command.amount = in.amount;
    command.token = in.token->address;
    command.token_symbol = in.token->symbol;
    command.token_decimals = static_cast<std::uint32_t>(in.token->decimals);
    command.payment_mode = in.payment_mode;
    command.merchant = *merchant;
    command.fee_bps = in.chain->fee_bps;
    command.now_seconds = static_cast<std::uint64_t>(now_ms / 1000);
    command.expires_in = in.expires_in;
    command.grace_seconds = in.chain->grace_seconds;
    command.deposit_factory = in.chain->deposit_factory;
    command.forwarder_init_code_hash = in.chain->forwarder_init_code_hash;
    command.reference = in.reference;
    command.return_url = in.return_url;
    command.fiat = fiat_quote;
    command.metadata = in.metadata;
    auto decided = domain::charge::decide(domain::charge::initial_state(), command);
    if (!decided) return fail(bad_request(decided.error().code, decided.error().message));
    auto created = std::get<ev::ChargeCreated>(std::move(decided).value().front());

    event.data = std::move(created);

    // Nothing is appended that a consumer cannot apply: the bytes must decode to this very event
    // and map to a storable row (ADR 0043). Validation above should make this unreachable.
    auto encoded = projections::charges::encode_checked_created(event);
    if (!encoded) {
        kLog.error() << "api: create refused by the admission check: " << encoded.error().message;
        return fail(error_response(422, encoded.error().code, encoded.error().message));
    }
    // The 201 body is rendered now, from the values the projection will store.
    auto body = std::make_shared<std::string>(
        created_json(view_of_created(event), in.chain, deps.signer, deps.checkout_url));
    infra::kafka::LogRecord record{domain::to_hex(event.invoice_id), std::move(encoded).value()};
    // Bind the Idempotency-Key to this charge before it can reach the log (ADR 0091): a retry
    // after an unknown outcome or a crash re-appends these bytes instead of a second charge.
    if (!guard->prepare({record.key, record.value, *body})) {
        return fail(
            error_response(409, "idempotency_key_in_use",
                           "a request with this Idempotency-Key is in progress; retry later"));
    }
    append_and_answer(deps, std::move(record), std::move(body), guard, std::move(respond));
}

// A request that resumed a key bound to an earlier attempt's charge: if the charge is in the read
// model it exists, and the stored 201 is the answer; otherwise the same event (same event id) is
// appended again, and the projector keeps one of any duplicates.
void resume_create(const ApiDeps& deps, const KeyOwner& owner, const PreparedCreate& prepared,
                   const std::shared_ptr<CreateGuard>& guard, Responder respond) {
    const auto status = deps.charges->find_status(prepared.invoice_id);
    if (status && status->project_id == owner.project_id) {
        auto answer = success_response(201, prepared.body);
        guard->complete(answer);
        return respond(std::move(answer));
    }
    append_and_answer(deps, infra::kafka::LogRecord{prepared.invoice_id, prepared.event},
                      std::make_shared<std::string>(prepared.body), guard, std::move(respond));
}

}  // namespace

void ChargesApi::create(const ApiRequest& request, const KeyOwner& owner, Responder respond) {
    auto parsed = parse_create(request.body, owner, *deps_.chains);
    if (auto* error = std::get_if<ApiResponse>(&parsed)) return respond(std::move(*error));
    auto& in = std::get<CreateInput>(parsed);

    // DESIGN 4: idempotency, then rate limit + quota, then price and append (docs/limits.md).
    auto guard = std::make_shared<CreateGuard>();
    guard->keys = deps_.idempotency;
    guard->limiter = deps_.limiter;
    guard->project_id = owner.project_id;
    if (auto header = request.header("idempotency-key")) {
        auto key = infra::postgres::parse_idempotency_key(*header);
        if (!key) return respond(bad_request("invalid_idempotency_key", key.error().message));
        if (deps_.idempotency != nullptr) {
            const auto fingerprint =
                infra::postgres::request_fingerprint(request.method, request.path, request.body);
            auto begun = deps_.idempotency->begin(owner.project_id, *key, fingerprint);
            switch (begun.outcome) {
                case BeginOutcome::replay:
                    return respond(replayed(begun.response.value()));
                case BeginOutcome::in_flight:
                    return respond(error_response(
                        409, "idempotency_key_in_use",
                        "a request with this Idempotency-Key is in progress; retry later"));
                case BeginOutcome::mismatch:
                    return respond(
                        error_response(422, "idempotency_key_reused",
                                       "this Idempotency-Key was used with a different request"));
                case BeginOutcome::created:
                    guard->key = *key;
                    guard->fingerprint = fingerprint;
                    break;
                case BeginOutcome::resume:
                    // An earlier attempt prepared a charge and its outcome is unknown: no new
                    // charge, no new token or quota unit; find it or append the same event again.
                    guard->key = *key;
                    guard->fingerprint = fingerprint;
                    guard->prepared = true;
                    guard->resumed = true;
                    try {
                        resume_create(deps_, owner, begun.prepared.value(), guard, respond);
                    } catch (...) {
                        guard->unlock();
                        throw;
                    }
                    return;
            }
        }
    }
    try {
        if (deps_.limiter != nullptr) {
            const auto decision = deps_.limiter->take(owner.project_id, owner.plan);
            if (decision.outcome == LimitOutcome::rate_limited) {
                guard->release(false);
                return respond(error_response(429, "rate_limited", "too many requests — slow down",
                                              decision.retry_after_ms));
            }
            if (decision.outcome == LimitOutcome::quota_exceeded) {
                guard->release(false);
                return respond(
                    error_response(429, "monthly_quota_exceeded",
                                   "the plan's monthly charge quota is used up; retry next month",
                                   decision.retry_after_ms));
            }
            if (!decision.month.empty()) guard->quota_month = decision.month;
        }
        create_admitted(deps_, in, owner, guard, std::move(respond));
    } catch (...) {
        guard->fail_safe();
        throw;
    }
}

}  // namespace duepay::api
