// Every encoded example validates against schemas/events/<type>.v1.json (RapidJSON's draft-04
// validator), and the schemas reject what the decoder rejects for the common defects.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/schema.h>
#include <rapidjson/stringbuffer.h>

#include <fstream>
#include <sstream>

#include "domain/events/event_json.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::domain::events {
namespace {

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream ss;
    ss << in.rdbuf();
    return ss.str();
}

// Returns "" when valid, else the validator's complaint.
std::string validate(std::string_view type, const std::string& json) {
    const std::string path =
        std::string(DUEPAY_EVENT_SCHEMA_DIR) + "/" + std::string(type) + ".v1.json";
    rapidjson::Document schema_doc;
    schema_doc.Parse(read_file(path).c_str());
    if (schema_doc.HasParseError()) return "schema file unreadable: " + path;
    rapidjson::SchemaDocument schema(schema_doc);
    rapidjson::SchemaValidator validator(schema);
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    if (doc.HasParseError()) return "not JSON";
    if (doc.Accept(validator)) return "";
    rapidjson::StringBuffer where, keyword;
    validator.GetInvalidSchemaPointer().StringifyUriFragment(where);
    validator.GetInvalidDocumentPointer().StringifyUriFragment(keyword);
    return std::string("invalid at ") + keyword.GetString() + " (schema " + where.GetString() +
           ", " + validator.GetInvalidSchemaKeyword() + ")";
}

TEST(EventSchema, EveryTypeHasASchemaAndItsExampleValidates) {
    const auto events = examples::all();
    ASSERT_EQ(events.size(), std::size(kEventTypes));
    for (const auto& e : events) {
        const std::string json = encode_event(e);
        EXPECT_EQ(validate(event_type(e), json), "") << json;
    }
}

TEST(EventSchema, OptionalFieldsAsNullValidate) {
    Event e = examples::all()[0];
    auto& d = std::get<ChargeCreated>(e.data);
    d.payment_mode = PaymentMode::wallet;
    d.deposit_address.reset();
    d.reference.reset();
    d.return_url.reset();
    d.fiat.reset();
    EXPECT_EQ(validate(ChargeCreated::kType, encode_event(e)), "");
}

TEST(EventSchema, MetadataValidatesAndItsBreachesAreRefusedByBoth) {
    Event e = examples::all()[0];
    std::get<ChargeCreated>(e.data).metadata = {{"order_id", "A-42"}, {"n", std::string(500, 'v')}};
    const std::string good = encode_event(e);
    ASSERT_EQ(validate(ChargeCreated::kType, good), "") << good;
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        const auto at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return s.replace(at, from.size(), to);
    };
    const std::string bad_docs[] = {
        replace(R"("order_id":"A-42")", R"("order id":"A-42")"),
        replace(R"("order_id":"A-42")", R"("order_id":42)"),
        replace(R"("order_id":"A-42")", R"("order_id":")" + std::string(501, 'v') + "\""),
        replace(R"("metadata":{)", R"("metadata":{"x y":"1",)"),
    };
    for (const auto& doc : bad_docs) {
        EXPECT_NE(validate(ChargeCreated::kType, doc), "") << doc;
        EXPECT_FALSE(decode_event(doc).ok()) << doc;
    }
}

TEST(EventSchema, SchemaRejectsWhatTheDecoderRejects) {
    const std::string good = encode_event(examples::all()[4]);  // charge.paid
    ASSERT_EQ(validate(ChargePaid::kType, good), "");
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        const auto at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        s.replace(at, from.size(), to);
        return s;
    };
    const std::string bad_docs[] = {
        replace("\"amount\":\"10073743\"", "\"amount\":\"-10073743\""),
        replace("\"amount\":\"10073743\"", "\"amount\":\"010073743\""),
        replace("\"amount\":\"10073743\"", "\"amount\":10073743"),
        replace("\"mode\":\"test\"", "\"mode\":\"sandbox\""),
        replace("\"schemaVersion\":1", "\"schemaVersion\":2"),
        replace("\"invoiceId\":\"0x1111", "\"invoiceId\":\"0xAAAA"),
        replace("\"logIndex\":3", "\"logIndex\":-3"),
        replace("\"occurredAt\":\"2026-11-21T22:00:00.123Z\"",
                "\"occurredAt\":\"2026-11-21 22:00:00\""),
        replace(",\"confirmedTotal\":\"10073743\"", ""),
        replace("\"rail\":\"wallet\"", "\"rail\":\"wallet\",\"extra\":1"),
    };
    for (const auto& doc : bad_docs) {
        EXPECT_NE(validate(ChargePaid::kType, doc), "") << doc;
        EXPECT_FALSE(decode_event(doc).ok()) << doc;
    }
    // A well-formed event of another type fails this type's schema.
    EXPECT_NE(validate(ChargePaid::kType,
                       replace("\"type\":\"charge.paid\"", "\"type\":\"charge.underpaid\"")),
              "");
}

TEST(EventSchema, ExceptionResolvedSchemaAndDecoderAgree) {
    const std::string good = encode_event(examples::all().at(13));
    ASSERT_EQ(validate(ExceptionResolved::kType, good), "") << good;
    auto replace = [&](const std::string& from, const std::string& to) {
        std::string s = good;
        const auto at = s.find(from);
        EXPECT_NE(at, std::string::npos) << from;
        return s.replace(at, from.size(), to);
    };
    const std::string wallet =
        R"("actorKind":"wallet","actor":"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","sessionId":"ses_0123456789abcdef01234567")";
    // Accepted by both: a key actor, a rejected refund named, a note of exactly 500 characters.
    const std::string good_docs[] = {
        replace(wallet,
                R"("actorKind":"key","actor":"key_0123456789abcdef01234567","sessionId":null)"),
        replace(R"("exception":"partial","refundId":null)",
                R"("exception":"refund_rejected","refundId":"rf_0123456789abcdef01234567")"),
        replace(R"("note":"Buyer pays the rest by bank transfer, \"INV-7\".\nChecked: ok")",
                R"("note":")" + std::string(500, 'n') + "\""),
    };
    for (const auto& doc : good_docs) {
        EXPECT_EQ(validate(ExceptionResolved::kType, doc), "") << doc;
        EXPECT_TRUE(decode_event(doc).ok()) << doc;
    }
    const std::string bad_docs[] = {
        replace(R"("exception":"partial")", R"("exception":"none")"),
        replace(R"("refundId":null)", R"("refundId":"rf_0123456789abcdef01234567")"),
        replace(R"("exception":"partial")", R"("exception":"refund_rejected")"),
        replace(R"("actorKind":"wallet")", R"("actorKind":"key")"),
        replace(R"("sessionId":"ses_0123456789abcdef01234567")", R"("sessionId":null)"),
        replace(R"("actor":"0xaaaa)", R"("actor":"0xAAaa)"),
        replace(R"("note":"Buyer)", R"("note":" Buyer)"),
        replace(R"(Checked: ok")", R"(Checked: ok\n")"),
        replace(R"("note":"Buyer pays the rest by bank transfer, \"INV-7\".\nChecked: ok")",
                R"("note":"")"),
        replace(R"("note":"Buyer pays the rest by bank transfer, \"INV-7\".\nChecked: ok")",
                R"("note":")" + std::string(501, 'n') + "\""),
        replace(R"(,"note":)", R"(,"extra":1,"note":)"),
    };
    for (const auto& doc : bad_docs) {
        EXPECT_NE(validate(ExceptionResolved::kType, doc), "") << doc;
        EXPECT_FALSE(decode_event(doc).ok()) << doc;
    }
}

}  // namespace
}  // namespace duepay::domain::events
