// POST|GET /v1/charges/:id/refunds over in-memory ports (api/http/refunds_api.hpp): the command
// folds the charge's history and appends charge.refund_requested only when decide says so. The
// chain side and the real stack: tests/integration/merchant/refunds.test.mjs.
#include "api/http/refunds_api.hpp"

#include <gtest/gtest.h>

#include "domain/charge/decide.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/random/key_material.hpp"
#include "tests/unit/api/surface.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::api {
namespace {

namespace ev = domain::events;
using ports::AppendStatus;

constexpr const char* kKey = "dp_test_0123456789abcdef0123456789abcdef0123456789abcdef";

// Every port the route uses, backed by one charge's history.
struct World final : KeyDirectory, ChargeReader, ChargeHistory, ports::EventLog {
    std::optional<KeyOwner> find(const KeyHash& hash) override {
        if (hash != infra::random::sha256(kKey)) return std::nullopt;
        KeyOwner o;
        o.key_id = "key_0123456789abcdef01234567";
        o.project_id = ProjectId{project};
        o.mode = Mode::test;
        o.key_hash = hash;
        return o;
    }
    std::optional<ChargeView> find(const std::string& id) override {
        if (history.empty() || id != invoice()) return std::nullopt;
        ChargeView row;
        row.invoice_id = id;
        row.project_id = ProjectId{history.front().project_id};
        row.mode = Mode::test;
        row.refunds_json = R"([{"refundId":"rf_x"}])";
        return row;
    }
    std::optional<ChargeStatus> find_status(const std::string&) override { return std::nullopt; }
    std::vector<std::string> events(const std::string&) override {
        std::vector<std::string> out;
        for (const auto& e : history) out.push_back(ev::encode_event(e));
        return out;
    }
    void append_async(ports::LogRecord record,
                      std::function<void(ports::AppendResult)> done) override {
        appended.push_back(record);
        ports::AppendResult r;
        r.status = outcome;
        done(r);
    }
    std::string invoice() const { return domain::to_hex(history.front().invoice_id); }

    std::string project = ev::examples::envelope("c", ev::examples::created_data()).project_id;
    std::vector<ev::Event> history{ev::examples::envelope("c", ev::examples::created_data())};
    std::vector<ports::LogRecord> appended;
    AppendStatus outcome = AppendStatus::persisted;
};

class RefundsApiTest : public ::testing::Test {
  protected:
    ApiResponse call(const std::string& method, const std::string& body,
                     std::string id = std::string(), const std::string& route = "/refunds",
                     std::optional<std::string> idempotency_key = std::nullopt) {
        RefundsApi api(RefundsApiDeps{&world, &world, &world, nullptr,
                                      [] { return std::int64_t{1'795'737'600'000}; }, 1000});
        test::Surface surface(static_cast<KeyDirectory&>(world), api);
        ApiRequest r;
        r.method = method;
        r.path = "/v1/charges/" + (id.empty() ? world.invoice() : id) + route;
        r.headers["x-api-key"] = kKey;
        if (idempotency_key) r.headers["idempotency-key"] = *idempotency_key;
        r.body = body;
        std::optional<ApiResponse> got;
        surface.handle(r, [&](ApiResponse a) { got = std::move(a); });
        EXPECT_TRUE(got.has_value());
        return got.value_or(ApiResponse{});
    }
    ApiResponse resolve(const std::string& body, std::string id = std::string()) {
        return call("POST", body, std::move(id), "/resolve");
    }
    // 40 of the 10073743 due, confirmed on the transfer rail: underpaid.
    void underpay() {
        const auto p = ev::examples::payment(ev::Rail::transfer, 6, "40");
        world.history.push_back(ev::examples::envelope("d", ev::DepositSeen{p}));
        world.history.push_back(
            ev::examples::envelope("u", ev::ChargeUnderpaid{p, domain::TokenAmount{40}}));
    }
    void pay() {
        const auto p = ev::examples::payment(ev::Rail::wallet, 5, "10073743");
        world.history.push_back(
            ev::examples::envelope("p", ev::ChargePaid{p, domain::TokenAmount{10073743}}));
    }
    static std::string code(const ApiResponse& r) {
        const auto at = r.body.find(R"("code":")");
        return at == std::string::npos ? ""
                                       : r.body.substr(at + 8, r.body.find('"', at + 8) - at - 8);
    }
    World world;
    const std::string tx = "0x" + std::string(64, 'a');
};

TEST_F(RefundsApiTest, RoutesOnlyTheRefundsOfACharge) {
    const auto refused = call("DELETE", "");
    EXPECT_EQ(refused.status, 405);
    EXPECT_EQ(refused.headers.at("allow"), "GET, POST");
    EXPECT_EQ(code(call("GET", "", "0x12")), "invalid_invoice_id");
    EXPECT_EQ(code(call("GET", "", "0xab/cd")), "route_not_found");
}

TEST_F(RefundsApiTest, APaidChargeGetsARequestWithTheDerivedId) {
    pay();
    const auto r = call("POST", R"({"txHash":")" + tx + R"("})");
    ASSERT_EQ(r.status, 202) << r.body;
    ASSERT_EQ(world.appended.size(), 1u);
    const auto e = ev::decode_event(world.appended[0].value);
    ASSERT_TRUE(e.ok());
    const auto expected_id = domain::charge::refund_id(world.history.front().invoice_id,
                                                       *domain::from_hex_fixed<32>(tx));
    EXPECT_EQ(e->id, expected_id);
    EXPECT_EQ(world.appended[0].key, world.invoice());
    const auto& asked = std::get<ev::RefundRequested>(e->data);
    EXPECT_EQ(asked.refund_id, expected_id);
    EXPECT_EQ(e->occurred_at, "2026-11-27T00:00:00.000Z");
    EXPECT_EQ(r.body.find(R"("refundId":")" + expected_id + R"(","status":"pending","txHash":")" +
                          tx + "\""),
              r.body.find("\"refundId\""));
    // Asked again once it is in the history: the same refund, nothing appended.
    world.history.push_back(*e);
    const auto again = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(again.status, 202);
    EXPECT_NE(again.body.find(expected_id), std::string::npos);
    EXPECT_EQ(world.appended.size(), 1u);
}

TEST_F(RefundsApiTest, RefusalsAppendNothing) {
    const auto refused = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(code(refused), "charge_not_refundable");
    // decide's words, not the route's own.
    EXPECT_NE(refused.body.find(std::string(domain::charge::kNotRefundableMessage)),
              std::string::npos)
        << refused.body;
    pay();
    for (const std::string& body :
         {std::string(R"({"txHash":"0x12"})"), std::string(R"({"txHash":7})"), std::string("{}"),
          R"({"txHash":")" + tx.substr(2) + R"(00"})",
          R"({"txHash":"0X)" + std::string(64, 'a') + R"("})"}) {
        EXPECT_EQ(code(call("POST", body)), "invalid_tx_hash") << body;
    }
    EXPECT_EQ(code(call("POST", "[1]")), "invalid_json");
    const auto typo = call("POST", R"({"txHash":")" + tx + R"(","reason":"x"})");
    EXPECT_EQ(code(typo), "unknown_field");
    EXPECT_NE(typo.body.find("unknown field reason"), std::string::npos) << typo.body;
    EXPECT_EQ(code(call("POST", R"({"txHash":")" + tx + R"("})", "0x" + std::string(64, 'f'))),
              "charge_not_found");
    world.project = "prj_other";  // the key's project differs from the charge's
    EXPECT_EQ(code(call("GET", "")), "charge_not_found");
    EXPECT_TRUE(world.appended.empty());
}

TEST_F(RefundsApiTest, AnEventLogFailureIsA503AndTheListComesFromTheReadModel) {
    pay();
    world.outcome = AppendStatus::not_persisted;
    const auto r = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code(r), "event_log_unavailable");
    const auto list = call("GET", "");
    EXPECT_EQ(list.status, 200);
    EXPECT_NE(list.body.find(R"("data":{"items":[{"refundId":"rf_x"}]})"), std::string::npos)
        << list.body;
}

TEST_F(RefundsApiTest, ResolveAppendsTheResolutionNamedByTheKey) {
    underpay();
    const auto r = resolve(R"({"note":"  Buyer pays the rest by bank.\r\nTicket 7  "})");
    ASSERT_EQ(r.status, 200) << r.body;
    ASSERT_EQ(world.appended.size(), 1u);
    const auto e = ev::decode_event(world.appended[0].value);
    ASSERT_TRUE(e.ok()) << e.error().message;
    const auto& d = std::get<ev::ExceptionResolved>(e->data);
    EXPECT_EQ(d.exception, ev::ResolvedException::partial);
    EXPECT_EQ(d.resolved_by, (ev::Actor{ev::ActorKind::key, "key_0123456789abcdef01234567", {}}));
    EXPECT_EQ(d.note, "Buyer pays the rest by bank.\nTicket 7");
    EXPECT_EQ(e->id, domain::charge::resolution_event_id(world.history.front().invoice_id,
                                                         {ev::ResolvedException::partial, ""}));
    EXPECT_EQ(e->occurred_at, "2026-11-27T00:00:00.000Z");
    EXPECT_NE(
        r.body.find(
            R"("data":{"exception":"partial","refundId":null,"note":"Buyer pays the rest by bank.\nTicket 7","resolvedBy":{"kind":"key","id":"key_0123456789abcdef01234567"},"resolvedAt":"2026-11-27T00:00:00.000Z"})"),
        std::string::npos)
        << r.body;
    // Once in the history: already resolved, nothing more appended.
    world.history.push_back(*e);
    const auto again = resolve(R"({"note":"again"})");
    EXPECT_EQ(again.status, 409);
    EXPECT_EQ(code(again), "exception_already_resolved");
    EXPECT_EQ(world.appended.size(), 1u);
}

TEST_F(RefundsApiTest, ResolveRefusalsAppendNothing) {
    // A pending charge: nothing to resolve, in decide's words.
    const auto nothing = resolve(R"({"note":"n"})");
    EXPECT_EQ(nothing.status, 409);
    EXPECT_EQ(code(nothing), "nothing_to_resolve");
    EXPECT_NE(nothing.body.find(std::string(domain::charge::kNothingToResolveMessage)),
              std::string::npos);
    underpay();
    for (const std::string& body :
         {std::string("{}"), std::string(R"({"note":""})"), std::string(R"({"note":"  \n "})"),
          std::string(R"({"note":7})"), std::string(R"({"note":null})"),
          R"({"note":")" + std::string(501, 'x') + R"("})",
          std::string(R"({"note":"bell\u0007"})")}) {
        const auto r = resolve(body);
        EXPECT_EQ(r.status, 400) << body;
        EXPECT_EQ(code(r), "invalid_note") << body << " " << r.body;
    }
    const auto typo = resolve(R"({"note":"n","notes":"x"})");
    EXPECT_EQ(code(typo), "unknown_field");
    EXPECT_EQ(code(resolve("[1]")), "invalid_json");
    EXPECT_EQ(code(resolve(R"({"note":"n"})", "0x" + std::string(64, 'f'))), "charge_not_found");
    EXPECT_EQ(code(resolve(R"({"note":"n"})", "0x12")), "invalid_invoice_id");
    world.project = "prj_other";  // the key's project differs from the charge's
    EXPECT_EQ(code(resolve(R"({"note":"n"})")), "charge_not_found");
    EXPECT_TRUE(world.appended.empty());
    // 500 characters is the bound.
    world.project = world.history.front().project_id;
    EXPECT_EQ(resolve(R"({"note":")" + std::string(500, 'x') + R"("})").status, 200);
}

// A command's REST answers, byte for byte: a refusal is the error envelope of its code and words
// (decide's, or the command's own), a 503 also with meta.retryAfterMs and Retry-After.
TEST_F(RefundsApiTest, CommandAnswersAreTheEnvelopeByteForByte) {
    // The error envelope written out: message, code, then whatever else meta holds.
    const auto envelope = [](const std::string& message, const std::string& code,
                             const std::string& more_meta = "") {
        return R"({"success":false,"data":null,"error":")" + message + R"(","meta":{"code":")" +
               code + "\"" + more_meta + "}}";
    };
    const auto missing = resolve(R"({"note":"n"})", "0x" + std::string(64, 'f'));
    EXPECT_EQ(missing.status, 404);
    EXPECT_EQ(missing.body, envelope("charge not found", "charge_not_found"));
    const auto nothing = resolve(R"({"note":"n"})");
    EXPECT_EQ(nothing.status, 409);
    EXPECT_EQ(nothing.body, envelope("the charge has nothing to resolve: no exception (overpaid, "
                                     "paid late, partial, wrong token) and no rejected refund",
                                     "nothing_to_resolve"));
    const auto not_refundable = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(not_refundable.status, 409);
    EXPECT_EQ(not_refundable.body,
              envelope("the charge holds none of its token to refund: nothing of it confirmed or "
                       "late (pending, confirming, expired without deposits, only a wrong-token "
                       "deposit), or refunded in full",
                       "charge_not_refundable"));
    EXPECT_EQ(not_refundable.headers.count("retry-after"), 0U);
    underpay();
    world.outcome = AppendStatus::possibly_persisted;
    const auto unknown = resolve(R"({"note":"n"})");
    EXPECT_EQ(unknown.status, 503);
    EXPECT_EQ(unknown.body, envelope("the event log did not confirm the command; retry (a "
                                     "resolution that landed answers 409 "
                                     "exception_already_resolved)",
                                     "event_log_outcome_unknown", R"(,"retryAfterMs":1000)"));
    ASSERT_EQ(unknown.headers.count("retry-after"), 1U);
    EXPECT_EQ(unknown.headers.at("retry-after"), "1");
    world.outcome = AppendStatus::not_persisted;
    const auto unavailable = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(unavailable.status, 503);
    EXPECT_EQ(unavailable.body, envelope("the event log did not take the command; retry (the same "
                                         "txHash names the same refund)",
                                         "event_log_unavailable", R"(,"retryAfterMs":1000)"));
    world.outcome = AppendStatus::persisted;
    const auto accepted = call("POST", R"({"txHash":")" + tx + R"("})");
    EXPECT_EQ(accepted.status, 202);
    const auto id = domain::charge::refund_id(world.history.front().invoice_id,
                                              *domain::from_hex_fixed<32>(tx));
    EXPECT_EQ(accepted.body, R"({"success":true,"data":{"refundId":")" + id +
                                 R"(","status":"pending","txHash":")" + tx + R"("},"error":null})");
}

TEST_F(RefundsApiTest, ResolveIsA503WhenTheEventLogDoesNotTakeIt) {
    underpay();
    world.outcome = AppendStatus::possibly_persisted;
    const auto r = resolve(R"({"note":"n"})");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code(r), "event_log_outcome_unknown");
    world.outcome = AppendStatus::not_persisted;
    EXPECT_EQ(code(resolve(R"({"note":"n"})")), "event_log_unavailable");
    EXPECT_EQ(code(call("POST", R"({"note":"n"})", {}, "/resolve", std::string("bad key\x01"))),
              "invalid_idempotency_key");
}

}  // namespace
}  // namespace duepay::api
