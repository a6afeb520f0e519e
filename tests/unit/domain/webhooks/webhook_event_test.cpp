// Given charge events, then the webhook events (types, stable ids, bodies) of domain/webhooks;
// every body validates against its JSON Schema in schemas/webhooks/.
#include "domain/webhooks/webhook_event.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>

#include <fstream>
#include <set>
#include <sstream>

#include "domain/charge/charge_state.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace {

namespace ev = duepay::domain::events;
namespace ch = duepay::domain::charge;
namespace dw = duepay::domain::webhooks;
namespace ex = ev::examples;

// Applies the events in order; returns every webhook event they cause.
std::vector<dw::WebhookEvent> run(const std::vector<ev::Event>& events) {
    std::vector<dw::WebhookEvent> out;
    auto state = ch::initial_state();
    for (const auto& e : events) {
        auto before = state;
        ch::apply(state, e);
        for (auto& w : dw::webhook_events_for(before, state, e, events.front()))
            out.push_back(std::move(w));
    }
    return out;
}

std::vector<std::string> types(const std::vector<dw::WebhookEvent>& events) {
    std::vector<std::string> out;
    for (const auto& e : events) out.push_back(e.type);
    return out;
}

ev::Event created() {
    auto d = ex::created_data();
    d.reference = "order-42";
    d.metadata = {{"order_id", "A-42"}, {"customer", "cus_9"}};
    return ex::envelope("c1", d);
}

ev::Event detected(std::uint64_t block, const char* amount) {
    return ex::envelope("d" + std::to_string(block),
                        ev::PaymentDetected{ex::payment(ev::Rail::wallet, block, amount)});
}

ev::Event paid(std::uint64_t block, const char* amount) {
    ev::ChargePaid p{ex::payment(ev::Rail::wallet, block, amount),
                     duepay::domain::TokenAmount{duepay::domain::uint256(amount)}};
    return ex::envelope("p" + std::to_string(block), p);
}

TEST(WebhookEvents, DetectedThenPaidGiveConfirmingThenPaid) {
    const auto out = run({created(), detected(5, "10073743"), paid(5, "10073743")});
    EXPECT_EQ(types(out), (std::vector<std::string>{"invoice.confirming", "invoice.paid"}));
}

TEST(WebhookEvents, CreatedAloneAndDuplicatesGiveNothing) {
    EXPECT_TRUE(run({created()}).empty());
    const auto out = run({created(), paid(5, "10073743"), paid(5, "10073743")});
    EXPECT_EQ(types(out), (std::vector<std::string>{"invoice.paid"}));
}

TEST(WebhookEvents, PaidBodyCarriesTheContractFields) {
    const auto out = run({created(), paid(5, "10073743")});
    ASSERT_EQ(out.size(), 1u);
    rapidjson::Document doc;
    doc.Parse(out[0].body.c_str());
    ASSERT_FALSE(doc.HasParseError());
    EXPECT_EQ(std::string(doc["id"].GetString()), out[0].id);
    EXPECT_EQ(std::string(doc["type"].GetString()), "invoice.paid");
    EXPECT_EQ(std::string(doc["mode"].GetString()), "test");
    EXPECT_EQ(std::string(doc["createdAt"].GetString()), "2026-11-21T22:00:00.123Z");
    const auto& data = doc["data"];
    EXPECT_EQ(std::string(data["reference"].GetString()), "order-42");
    ASSERT_TRUE(data["metadata"].IsObject());
    EXPECT_EQ(data["metadata"].MemberCount(), 2u);
    EXPECT_EQ(std::string(data["metadata"]["order_id"].GetString()), "A-42");
    EXPECT_EQ(std::string(data["metadata"]["customer"].GetString()), "cus_9");
    EXPECT_EQ(std::string(data["status"].GetString()), "paid");
    EXPECT_EQ(std::string(data["amount"].GetString()), "10073743");
    EXPECT_EQ(std::string(data["amountConfirmed"].GetString()), "10073743");
    EXPECT_EQ(std::string(data["paymentMode"].GetString()), "both");
    EXPECT_EQ(data["chainId"].GetUint64(), 80002u);
    EXPECT_EQ(std::string(data["paidAt"].GetString()), "2026-11-21T22:00:00.123Z");
    EXPECT_EQ(std::string(data["txHash"].GetString()).size(), 66u);
    EXPECT_TRUE(data["exception"].IsNull());
    EXPECT_TRUE(data["fiat"].IsObject());  // the example is priced in fiat
    EXPECT_EQ(std::string(data["fiat"]["currency"].GetString()), "THB");
}

TEST(WebhookEvents, IdIsStablePerChargeEventAndType) {
    EXPECT_EQ(dw::webhook_event_id("p5", "invoice.paid"),
              dw::webhook_event_id("p5", "invoice.paid"));
    EXPECT_NE(dw::webhook_event_id("p5", "invoice.paid"),
              dw::webhook_event_id("p6", "invoice.paid"));
    EXPECT_NE(dw::webhook_event_id("p5", "invoice.paid"),
              dw::webhook_event_id("p5", "invoice.failed"));
    const auto id = dw::webhook_event_id("p5", "invoice.paid");
    EXPECT_EQ(id.size(), 52u);
    EXPECT_EQ(id.substr(0, 4), "evt_");
    // A re-fold of the same events gives byte-identical bodies (what a retry or a replay sends).
    EXPECT_EQ(run({created(), paid(5, "10073743")})[0].body,
              run({created(), paid(5, "10073743")})[0].body);
}

TEST(WebhookEvents, ExpiryAndLateDepositGiveExpiredThenLatePayment) {
    ev::ChargeExpired expired{1795305600, 3600, 99, 1795309201};
    ev::LateDeposit late{ex::payment(ev::Rail::transfer, 120, "500")};
    const auto out = run({created(), ex::envelope("x", expired), ex::envelope("l", late)});
    EXPECT_EQ(types(out), (std::vector<std::string>{"invoice.expired", "invoice.late_payment"}));
    rapidjson::Document doc;
    doc.Parse(out[1].body.c_str());
    EXPECT_EQ(std::string(doc["data"]["amountLate"].GetString()), "500");
    EXPECT_EQ(std::string(doc["data"]["status"].GetString()), "expired");
}

TEST(WebhookEvents, ReorgBackToPendingSaysNothing) {
    ev::PaymentReorged reorg;
    const auto d = detected(5, "10073743");
    const auto& p = std::get<ev::PaymentDetected>(d.data).payment;
    reorg.tx_hash = p.tx_hash;
    reorg.log_index = p.log_index;
    reorg.block_number = p.block_number;
    reorg.block_hash = p.block_hash;
    const auto out = run({created(), d, ex::envelope("r", reorg)});
    EXPECT_EQ(types(out), (std::vector<std::string>{"invoice.confirming"}));
}

TEST(WebhookEvents, KnownTypes) {
    EXPECT_TRUE(dw::is_webhook_event_type("invoice.paid"));
    EXPECT_TRUE(dw::is_webhook_event_type("webhook.test"));
    EXPECT_FALSE(dw::is_webhook_event_type("invoice.pending"));
    EXPECT_FALSE(dw::is_webhook_event_type("charge.paid"));
}

TEST(WebhookEvents, TestEventBody) {
    const auto e = dw::test_event("evt_1", "2026-11-23T10:00:00.000Z", ev::Mode::live, "we_1");
    EXPECT_EQ(
        e.body,
        R"({"id":"evt_1","type":"webhook.test","createdAt":"2026-11-23T10:00:00.000Z","mode":"live",)"
        R"("data":{"endpointId":"we_1"}})");
}

}  // namespace

// --- every body validates against schemas/webhooks/<type>.json (RapidJSON, draft-04) ---

namespace {

std::string validate(const std::string& type, const std::string& json) {
    std::ifstream in(std::string(DUEPAY_WEBHOOK_SCHEMA_DIR) + "/" + type + ".json");
    std::stringstream text;
    text << in.rdbuf();
    rapidjson::Document schema_doc;
    schema_doc.Parse(text.str().c_str());
    if (schema_doc.HasParseError()) return "schema unreadable for " + type;
    rapidjson::SchemaDocument schema(schema_doc);
    rapidjson::SchemaValidator validator(schema);
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    if (doc.Accept(validator)) return "";
    rapidjson::StringBuffer where;
    validator.GetInvalidDocumentPointer().StringifyUriFragment(where);
    return std::string("invalid at ") + where.GetString() + " (" +
           validator.GetInvalidSchemaKeyword() + ")";
}

// A dashboard user resolved the charge's partial payment.
ev::Event resolution(const std::string& id) {
    return ex::envelope(
        id, ev::ExceptionResolved{ev::ResolvedException::partial, std::nullopt,
                                  ev::Actor{ev::ActorKind::wallet, "0x" + std::string(40, 'a'),
                                            "ses_0123456789abcdef01234567"},
                                  "buyer pays the rest by bank"});
}

ev::Event deposit(std::uint64_t block, const char* amount) {
    return ex::envelope("s" + std::to_string(block),
                        ev::DepositSeen{ex::payment(ev::Rail::transfer, block, amount)});
}

TEST(WebhookSchemas, EveryTypeIsProducedAndValidates) {
    std::vector<dw::WebhookEvent> all;
    auto add = [&](const std::vector<ev::Event>& events) {
        for (auto& e : run(events)) all.push_back(std::move(e));
    };
    auto plain = created();  // without fiat, reference, metadata: null, null and {}
    std::get<ev::ChargeCreated>(plain.data).metadata.clear();
    std::get<ev::ChargeCreated>(plain.data).fiat.reset();
    std::get<ev::ChargeCreated>(plain.data).reference.reset();
    add({created(), detected(5, "10073743"), paid(5, "10073743")});
    add({plain, paid(5, "10073743"),
         ex::envelope("rf", ev::ChargeRefunded{"rf_" + std::string(24, '9'), ex::hash(9), 0, 6,
                                               ex::addr(0x22), ex::addr(0x33),
                                               duepay::domain::TokenAmount{10073743}})});
    ev::ChargeUnderpaid under{ex::payment(ev::Rail::transfer, 7, "100"),
                              duepay::domain::TokenAmount{100}};
    add({created(), deposit(7, "100"), ex::envelope("u", under), resolution("res")});
    ev::ChargeFailed failed{ev::FailureReason::wrong_token,
                            ex::payment(ev::Rail::transfer, 8, "5")};
    add({created(), ex::envelope("f", failed)});
    ev::ChargeExpired expired{1795305600, 3600, 99, 1795309201};
    add({created(), ex::envelope("x", expired),
         ex::envelope("l", ev::LateDeposit{ex::payment(ev::Rail::transfer, 120, "500")})});
    all.push_back(dw::test_event(dw::webhook_event_id("t", "webhook.test"),
                                 "2026-11-23T10:00:00.000Z", ev::Mode::test,
                                 "we_0123456789abcdef01234567"));
    std::set<std::string> seen;
    for (const auto& e : all) {
        seen.insert(e.type);
        EXPECT_EQ(validate(e.type, e.body), "") << e.body;
    }
    for (auto t : dw::kWebhookEventTypes) EXPECT_TRUE(seen.contains(std::string(t))) << t;
}

TEST(WebhookEvents, ARecordedResolutionIsAnnouncedOnceWithTheStatusUnchanged) {
    ev::ChargeUnderpaid under{ex::payment(ev::Rail::transfer, 7, "100"),
                              duepay::domain::TokenAmount{100}};
    // The second resolution of the same issue (a race) is not recorded, so not announced.
    const auto got = run({created(), deposit(7, "100"), ex::envelope("u", under),
                          resolution("res-1"), resolution("res-1"), resolution("res-2")});
    ASSERT_EQ(types(got),
              (std::vector<std::string>{"invoice.underpaid", "invoice.exception_resolved"}));
    rapidjson::Document body;
    body.Parse(got[1].body.c_str());
    EXPECT_STREQ(body["data"]["status"].GetString(), "underpaid");
    EXPECT_TRUE(body["data"]["txHash"].IsNull());
    const auto& r = body["data"]["resolution"];
    EXPECT_STREQ(r["exception"].GetString(), "partial");
    EXPECT_TRUE(r["refundId"].IsNull());
    EXPECT_STREQ(r["note"].GetString(), "buyer pays the rest by bank");
    EXPECT_STREQ(r["resolvedBy"]["kind"].GetString(), "wallet");
    // The wallet as people read it (EIP-55), and never its session.
    EXPECT_STREQ(r["resolvedBy"]["id"].GetString(), "0xaAaAaAaaAaAaAaaAaAAAAAAAAaaaAaAaAaaAaaAa");
    EXPECT_EQ(got[1].body.find("ses_"), std::string::npos);
    EXPECT_EQ(got[1].id, dw::webhook_event_id("res-1", "invoice.exception_resolved"));
    EXPECT_EQ(validate(got[1].type, got[1].body), "") << got[1].body;
}

TEST(WebhookEvents, EveryRecordedRefundIsAnnouncedPartialOnesWithTheirStatus) {
    auto refund = [](const char* id, char digit, const char* amount) {
        return ex::envelope(
            id, ev::ChargeRefunded{"rf_" + std::string(24, digit), ex::hash(9), 0, 6,
                                   ex::addr(0x22), ex::addr(0x33),
                                   duepay::domain::TokenAmount{duepay::domain::uint256(amount)}});
    };
    const auto got = run({created(), paid(5, "10073743"), refund("r1", '1', "30"),
                          refund("r1", '1', "30"), refund("r2", '2', "10073713")});
    EXPECT_EQ(types(got),
              (std::vector<std::string>{"invoice.paid", "invoice.refunded", "invoice.refunded"}));
    rapidjson::Document partial;
    partial.Parse(got[1].body.c_str());
    EXPECT_STREQ(partial["data"]["status"].GetString(), "paid");
    EXPECT_STREQ(partial["data"]["amountRefunded"].GetString(), "30");
    EXPECT_STREQ(partial["data"]["refund"]["amount"].GetString(), "30");
    EXPECT_STREQ(partial["data"]["refund"]["refundId"].GetString(),
                 ("rf_" + std::string(24, '1')).c_str());
    rapidjson::Document full;
    full.Parse(got[2].body.c_str());
    EXPECT_STREQ(full["data"]["status"].GetString(), "refunded");
    EXPECT_STREQ(full["data"]["amountRefunded"].GetString(), "10073743");
    EXPECT_NE(got[1].id, got[2].id);
    for (const auto& e : got) EXPECT_EQ(validate(e.type, e.body), "") << e.body;
}

TEST(WebhookSchemas, RejectAWrongBody) {
    const auto paid_event = run({created(), paid(5, "10073743")})[0];
    std::string broken = paid_event.body;
    broken.replace(broken.find("\"paid\""), 6, "\"paidx\"");
    EXPECT_NE(validate("invoice.paid", broken), "");
    EXPECT_NE(validate("invoice.failed", paid_event.body), "");
}

}  // namespace
