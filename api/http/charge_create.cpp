// POST /v1/invoices past parsing (create_request.hpp): idempotency, then rate limit and quota,
// then price, decide, sign and append (docs/design.md, docs/limits.md); the guard
// (create_guard.hpp) settles the key and the quota unit on every outcome.
#include <chrono>
#include <memory>
#include <stdexcept>
#include <utility>

#include "api/http/charge_json.hpp"
#include "api/http/charges_api.hpp"
#include "api/http/create_guard.hpp"
#include "api/http/create_request.hpp"
#include "api/http/envelope.hpp"
#include "api/http/idempotency_key.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "domain/money/rate.hpp"
#include "infra/log/log.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::api {
namespace {

constexpr infra::log::Logger kLog{"api"};
namespace ev = domain::events;

}  // namespace

namespace {

// Appends a prepared charge.created and answers: 201 once durable (after a bounded wait for the
// projection), 503 otherwise. Settles `guard`.
void append_and_answer(const ApiDeps& deps, ports::LogRecord record,
                       const std::shared_ptr<std::string>& body,
                       const std::shared_ptr<CreateGuard>& guard, Responder respond) {
    auto* waiter = deps.waiter;
    const auto timeout = deps.projection_timeout;
    const auto retry_after = deps.retry_after_ms;
    const std::string invoice_id = record.key;
    deps.log->append_async(
        std::move(record), [=, respond = std::move(respond)](const ports::AppendResult& result) {
            if (result.status == ports::AppendStatus::not_persisted) {
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
            if (result.status == ports::AppendStatus::possibly_persisted) {
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
        ports::Quote quote;
        try {
            quote = deps.rates->quote(in.fiat->currency, in.token->symbol, in.chain->chain_id);
        } catch (const ports::RateUnavailable& e) {
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
    ports::LogRecord record{domain::to_hex(event.invoice_id), std::move(encoded).value()};
    // Bind the Idempotency-Key to this charge before it can reach the log (ADR 0091): a retry
    // after an unknown outcome or a crash re-appends these bytes instead of a second charge.
    if (!guard->prepare({record.key, record.value, *body})) {
        return fail(
            error_response(409, "idempotency_key_in_use",
                           "a request with this Idempotency-Key is in progress; retry later"));
    }
    append_and_answer(deps, std::move(record), body, guard, std::move(respond));
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
    append_and_answer(deps, ports::LogRecord{prepared.invoice_id, prepared.event},
                      std::make_shared<std::string>(prepared.body), guard, std::move(respond));
}

}  // namespace

void ChargesApi::create(const ApiRequest& request, const KeyOwner& owner, Responder respond) {
    auto parsed = parse_create(request.body, owner, *deps_.chains);
    if (auto* error = std::get_if<ApiResponse>(&parsed)) return respond(std::move(*error));
    auto& in = std::get<CreateInput>(parsed);

    // Idempotency, then rate limit + quota, then price and append (docs/design.md, The create
    // path; docs/limits.md).
    auto guard = std::make_shared<CreateGuard>();
    guard->keys = deps_.idempotency;
    guard->limiter = deps_.limiter;
    guard->project_id = owner.project_id;
    if (auto header = request.header("idempotency-key")) {
        auto key = parse_idempotency_key(*header);
        if (!key) return respond(bad_request("invalid_idempotency_key", key.error().message));
        if (deps_.idempotency != nullptr) {
            const auto fingerprint =
                request_fingerprint(request.method, request.path, request.body);
            auto begun = deps_.idempotency->begin(owner.project_id, *key, fingerprint);
            switch (begun.outcome) {
                case BeginOutcome::replay:
                    return respond(replayed(begun.response.value()));
                case BeginOutcome::in_flight:
                case BeginOutcome::mismatch:
                    return respond(idempotency_refusal(begun.outcome));
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
