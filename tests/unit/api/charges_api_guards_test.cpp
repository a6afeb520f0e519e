// The guards of a create through ChargesApi (docs/limits.md): Idempotency-Key replays, in-flight
// and reused keys, bound keys after an unknown outcome (ADR 0091), the rate limit and quota.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "api/http/idempotency_key.hpp"
#include "domain/events/event_json.hpp"
#include "infra/postgres/idempotency_store.hpp"
#include "infra/postgres/rate_limiter.hpp"
#include "tests/unit/api/charges_api_fixture.hpp"

namespace duepay::api::test {
namespace {

constexpr const char* kBody = R"({"chainId":80002,"amount":"5"})";

TEST_F(ChargesApiTest, AMalformedIdempotencyKeyIs400AndReachesNothing) {
    for (const std::string& bad :
         {std::string(), std::string("has space"), std::string(256, 'k'), std::string("k\x7f")}) {
        auto r = call("POST", "/v1/invoices", kBody, kTestKey, bad);
        EXPECT_EQ(r.status, 400) << "key of " << bad.size() << " chars";
        EXPECT_EQ(code_of(r), "invalid_idempotency_key");
    }
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, std::string(255, '~')).status, 201);
    EXPECT_EQ(idempotency_.begins, 1);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(log_.records.size(), 1u);
}

TEST_F(ChargesApiTest, AReplayIsTheStored201ByteForByteAndCostsNoToken) {
    auto first = call("POST", "/v1/invoices", kBody, kTestKey, "order-7");
    ASSERT_EQ(first.status, 201) << first.body;
    EXPECT_EQ(idempotency_.completes, 1);
    EXPECT_EQ(idempotency_.abandons, 0);
    const auto& stored = idempotency_.rows.at("prj_a/order-7").response;
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->status, 201);
    EXPECT_EQ(stored->body, first.body);

    auto again = call("POST", "/v1/invoices", kBody, kTestKey, "order-7");
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.headers, first.headers);
    EXPECT_EQ(log_.records.size(), 1u) << "a replay appends nothing";
    EXPECT_EQ(limiter_.takes, 1) << "a replay costs no rate token";
    // Without a key every request is a new charge and takes a token.
    EXPECT_EQ(call("POST", "/v1/invoices", kBody).status, 201);
    EXPECT_EQ(limiter_.takes, 2);
    EXPECT_EQ(log_.records.size(), 2u);
}

TEST_F(ChargesApiTest, AKeyInFlightIs409AndAKeyReusedWithAnotherBodyIs422) {
    const auto fp = api::request_fingerprint("POST", "/v1/invoices", kBody);
    idempotency_.rows["prj_a/busy"] = {fp, std::nullopt, std::nullopt, true};
    auto busy = call("POST", "/v1/invoices", kBody, kTestKey, "busy");
    EXPECT_EQ(busy.status, 409);
    EXPECT_EQ(code_of(busy), "idempotency_key_in_use");

    ASSERT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "k1").status, 201);
    auto reused = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"6"})", kTestKey, "k1");
    EXPECT_EQ(reused.status, 422);
    EXPECT_EQ(code_of(reused), "idempotency_key_reused");
    EXPECT_EQ(log_.records.size(), 1u);
    EXPECT_EQ(limiter_.takes, 1) << "neither 409 nor 422 costs a token";
    EXPECT_EQ(idempotency_.rows.count("prj_a/busy"), 1u)
        << "the other request's claim is left alone";
}

TEST_F(ChargesApiTest, TheLimiterGetsTheProjectAndItsPlanAfterTheIdempotencyCheck) {
    ASSERT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "p1").status, 201);
    EXPECT_EQ(limiter_.projects, std::vector<std::string>{"prj_a"});
    EXPECT_EQ(limiter_.plans, std::vector<std::string>{"pro"});
    // Validation failures come first and cost nothing.
    EXPECT_EQ(call("POST", "/v1/invoices", R"({"chainId":80002})", kTestKey, "p2").status, 400);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(idempotency_.begins, 1);
}

TEST_F(ChargesApiTest, RateLimitedIs429WithTheSpecMessageAndRetryAfterAndFreesTheKey) {
    limiter_.decision = {LimitOutcome::rate_limited, 1999, "2026-11-01", 30, ""};
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "rl");
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(code_of(r), "rate_limited");
    auto d = json(r);
    EXPECT_EQ(std::string(d["error"].GetString()), "too many requests — slow down");
    EXPECT_EQ(d["meta"]["retryAfterMs"].GetInt64(), 1999);
    EXPECT_EQ(r.headers["retry-after"], "2") << "the header too, in whole seconds rounded up";
    EXPECT_TRUE(log_.records.empty());
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_TRUE(idempotency_.rows.empty()) << "a refused request leaves the key free for the retry";
    EXPECT_TRUE(limiter_.refunds.empty()) << "a refusal took nothing";
    limiter_.decision = {LimitOutcome::allowed, 0, "2026-11-01", 31, ""};
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "rl").status, 201);
}

TEST_F(ChargesApiTest, QuotaExceededIs429MonthlyQuotaExceededWithRetryAfterToNextMonth) {
    limiter_.decision = {LimitOutcome::quota_exceeded, 86'400'000, "2026-11-01", 8000, ""};
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "q");
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(code_of(r), "monthly_quota_exceeded");
    EXPECT_EQ(json(r)["meta"]["retryAfterMs"].GetInt64(), 86'400'000);
    EXPECT_EQ(r.headers["retry-after"], "86400");
    EXPECT_TRUE(log_.records.empty());
    EXPECT_TRUE(idempotency_.rows.empty());
    EXPECT_TRUE(limiter_.refunds.empty());
}

TEST_F(ChargesApiTest, NotPersistedFreesTheKeyAndRefundsTheQuotaSoTheRetrySucceeds) {
    log_.outcome = ports::AppendStatus::not_persisted;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "np");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "event_log_unavailable");
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_EQ(idempotency_.completes, 0);
    EXPECT_EQ(limiter_.refunds, std::vector<std::string>{"prj_a@2026-11-01"});
    log_.outcome = ports::AppendStatus::persisted;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "np");
    EXPECT_EQ(retry.status, 201) << retry.body;
    EXPECT_EQ(limiter_.refunds.size(), 1u);
}

// ADR 0091: an unknown outcome must not let the retry create a second charge.
TEST_F(ChargesApiTest, PossiblyPersistedKeepsTheKeyBoundAndTheRetryAppendsTheSameEvent) {
    use_counting_ids();
    log_.outcome = ports::AppendStatus::possibly_persisted;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    EXPECT_EQ(code_of(r), "event_log_outcome_unknown");
    EXPECT_EQ(idempotency_.abandons, 0);
    EXPECT_EQ(idempotency_.unlocks, 1);
    ASSERT_EQ(idempotency_.rows.size(), 1u);
    ASSERT_TRUE(idempotency_.rows.begin()->second.prepared);
    EXPECT_TRUE(limiter_.refunds.empty());
    ASSERT_EQ(log_.records.size(), 1u);
    const auto first = log_.records[0];
    EXPECT_EQ(idempotency_.rows.begin()->second.prepared->invoice_id, first.key);
    EXPECT_EQ(idempotency_.rows.begin()->second.prepared->event, first.value);

    // The charge is not in the read model: the retry appends the same bytes (same invoice id,
    // same event id), takes no new token and answers the 201 of that charge.
    log_.outcome = ports::AppendStatus::persisted;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    ASSERT_EQ(retry.status, 201) << retry.body;
    ASSERT_EQ(log_.records.size(), 2u);
    EXPECT_EQ(log_.records[1].key, first.key);
    EXPECT_EQ(log_.records[1].value, first.value);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(std::string(json(retry)["data"]["invoiceId"].GetString()), first.key);
    // Completed: a third call is a byte-for-byte replay and appends nothing.
    auto replay = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    EXPECT_EQ(replay.body, retry.body);
    EXPECT_EQ(log_.records.size(), 2u);
}

TEST_F(ChargesApiTest, AResumedRetryThatFindsTheChargeAnswersItsStored201AndAppendsNothing) {
    use_counting_ids();
    log_.outcome = ports::AppendStatus::possibly_persisted;
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "found").status, 503);
    const auto prepared = idempotency_.rows.begin()->second.prepared.value();
    // The broker did persist it and the projector has it.
    ChargeView row;
    row.invoice_id = prepared.invoice_id;
    row.project_id = ProjectId{"prj_a"};
    row.mode = Mode::test;
    row.status = Status::pending;
    reader_.rows[prepared.invoice_id] = row;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "found");
    ASSERT_EQ(retry.status, 201) << retry.body;
    EXPECT_NE(retry.body.find(prepared.body), std::string::npos);  // the envelope around it
    EXPECT_EQ(std::string(json(retry)["data"]["invoiceId"].GetString()), prepared.invoice_id);
    EXPECT_EQ(log_.records.size(), 1u);
    EXPECT_EQ(idempotency_.completes, 1);
}

TEST_F(ChargesApiTest, ABoundKeyStaysBoundThroughAFailedResumeAndRefusesAnotherBody) {
    use_counting_ids();
    log_.outcome = ports::AppendStatus::possibly_persisted;
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "bound").status, 503);
    const auto first = log_.records[0];
    // A resumed attempt that the log refuses outright: still bound (the first may be durable).
    log_.outcome = ports::AppendStatus::not_persisted;
    auto again = call("POST", "/v1/invoices", kBody, kTestKey, "bound");
    EXPECT_EQ(code_of(again), "event_log_unavailable");
    EXPECT_EQ(idempotency_.abandons, 0);
    EXPECT_TRUE(limiter_.refunds.empty());
    EXPECT_EQ(idempotency_.rows.size(), 1u);
    // Another body with the key: 422, never a second charge.
    auto other =
        call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"6"})", kTestKey, "bound");
    EXPECT_EQ(code_of(other), "idempotency_key_reused");
    log_.outcome = ports::AppendStatus::persisted;
    auto ok = call("POST", "/v1/invoices", kBody, kTestKey, "bound");
    ASSERT_EQ(ok.status, 201) << ok.body;
    for (const auto& record : log_.records) EXPECT_EQ(record.value, first.value);
}

// ADR 0219: a key taken over while its first attempt was still running (that attempt's holder
// looked dead) and bound by the new owner first: the first attempt answers 409, appends nothing,
// refunds its quota unit and leaves the new owner's bound row in place.
TEST_F(ChargesApiTest, AKeyTakenOverAndBoundByAnotherAttemptIsLeftToIt) {
    const PreparedCreate other{"0x" + std::string(64, 'b'), "other event", "other body"};
    idempotency_.taken_over_before_prepare = other;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "taken");
    EXPECT_EQ(r.status, 409) << r.body;
    EXPECT_EQ(code_of(r), "idempotency_key_in_use");
    EXPECT_TRUE(log_.records.empty());
    EXPECT_EQ(idempotency_.abandons, 0) << "the new owner's row must not be deleted";
    ASSERT_EQ(idempotency_.rows.size(), 1u);
    EXPECT_EQ(idempotency_.rows.begin()->second.prepared, other);
    EXPECT_EQ(limiter_.refunds, std::vector<std::string>{"prj_a@2026-11-01"});
}

TEST_F(ChargesApiTest, AFailureBeforeTheAppendRefundsTheQuota) {
    // No rate source configured: a fiat price is refused after the limiter allowed it.
    auto r =
        call("POST", "/v1/invoices",
             R"({"chainId":80002,"fiat":{"currency":"USD","amount":"1.00"}})", kTestKey, "fiat");
    EXPECT_EQ(r.status, 501);
    EXPECT_EQ(limiter_.refunds, std::vector<std::string>{"prj_a@2026-11-01"});
    EXPECT_TRUE(idempotency_.rows.empty());
}

TEST_F(ChargesApiTest, ADatabaseFailureInTheLimiterIs503AndFreesTheKey) {
    limiter_.fail = true;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "db");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "database_unavailable");
    EXPECT_FALSE(r.headers["retry-after"].empty()) << "a 503 tells when to retry, in a header too";
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_TRUE(idempotency_.rows.empty());
    EXPECT_TRUE(limiter_.refunds.empty()) << "nothing was taken";
}

TEST(CreationLimits, UnmeteredHasNoLimitAndTheOtherPlansKeepTheirs) {
    const auto limits = infra::postgres::creation_limits_for_plan("unmetered");
    EXPECT_TRUE(limits.unmetered);
    EXPECT_FALSE(limits.monthly_quota.has_value());
    EXPECT_FALSE(infra::postgres::creation_limits_for_plan("free").unmetered);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("free").per_minute, 30);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("free").monthly_quota, 8000);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("gold").per_minute, 30)
        << "unknown plans get free limits";
}

// GET /v1/charges through the route: the query reaches the lister scoped to the key, one extra

}  // namespace
}  // namespace duepay::api::test
