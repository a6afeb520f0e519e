#include "domain/events/event_json.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <random>

#include "tests/unit/domain/events/examples.hpp"

namespace duepay::domain::events {
namespace {

TEST(EventJson, EveryTypeRoundTripsExactly) {
    for (const auto& e : examples::all()) {
        const std::string json = encode_event(e);
        auto back = decode_event(json);
        ASSERT_TRUE(back.ok()) << event_type(e) << ": " << back.error().message << "\n" << json;
        EXPECT_EQ(*back, e) << event_type(e);
        EXPECT_EQ(event_type(*back), event_type(e));
        EXPECT_EQ(encode_event(*back), json) << event_type(e);
    }
}

TEST(EventJson, CanonicalFormIsPinned) {
    const Event e = examples::all()[3];  // charge.payment_reorged
    const std::string expected =
        R"({"id":"0x3333333333333333333333333333333333333333333333333333333333333333",)"
        R"("type":"charge.payment_reorged","schemaVersion":1,)"
        R"("invoiceId":"0x1111111111111111111111111111111111111111111111111111111111111101",)"
        R"("projectId":"prj_01HZX3","mode":"test","chainId":80002,"occurredAt":"2026-11-21T22:00:00.123Z",)"
        R"("data":{"txHash":"0x6464646464646464646464646464646464646464646464646464646464646401",)"
        R"("logIndex":3,"blockNumber":100,)"
        R"("blockHash":"0xe4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e4e401"}})";
    EXPECT_EQ(encode_event(e), expected);
}

TEST(EventJson, CreatedCarriesAmountsAsStringsAndFiatExactly) {
    const std::string json = encode_event(examples::all()[0]);
    EXPECT_NE(json.find(R"("amount":"10073743")"), std::string::npos) << json;
    EXPECT_NE(json.find(R"("deadline":"1795305600")"), std::string::npos) << json;
    EXPECT_NE(
        json.find(
            R"("fiat":{"currency":"THB","amount":"350.00","tokenAmount":"10073743","rate":"10001/285")"),
        std::string::npos)
        << json;
    EXPECT_NE(json.find(R"("depositAddress":"0xab55555555555555555555555555555555555555")"),
              std::string::npos)
        << json;
    EXPECT_NE(json.find(R"(order-42 \"quoted\")"), std::string::npos) << json;
}

TEST(EventJson, NullableFieldsRoundTripAsNull) {
    Event e = examples::all()[0];
    auto& d = std::get<ChargeCreated>(e.data);
    d.payment_mode = PaymentMode::wallet;
    d.deposit_address.reset();
    d.reference.reset();
    d.return_url.reset();
    d.fiat.reset();
    const std::string json = encode_event(e);
    EXPECT_NE(json.find(R"("depositAddress":null,"reference":null,"returnUrl":null,"fiat":null)"),
              std::string::npos)
        << json;
    auto back = decode_event(json);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, e);
}

std::string mutate(std::size_t index, const std::string& from, const std::string& to);
void expect_malformed(const std::string& json, const std::string& message_part);

TEST(EventJson, ReusedBufferGivesSameBytes) {
    std::string buf;
    for (int round = 0; round < 2; ++round) {
        for (const auto& e : examples::all()) {
            encode_event(e, buf);
            EXPECT_EQ(buf, encode_event(e));
        }
    }
}

TEST(EventJson, LargeEventsDecodeToo) {
    // Bigger than the decoder's stack buffers: takes the heap path.
    Event e = examples::all()[0];
    std::get<ChargeCreated>(e.data).return_url = "https://shop.example/" + std::string(2000, 'x');
    std::get<ChargeCreated>(e.data).reference = std::string(255, 'r');
    const std::string json = encode_event(e);
    ASSERT_GT(json.size(), 2048u);
    auto back = decode_event(json);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, e);
}

TEST(EventJson, RejectsInvalidUtf8AndNulBytes) {
    expect_malformed(mutate(0, "order-42", "order-\xff"), "data.reference: must be valid UTF-8");
    expect_malformed(mutate(0, "order-42", "order-\xc0\xaf"),
                     "data.reference: must be valid UTF-8");  // overlong '/'
    expect_malformed(mutate(0, "order-42", "order-\xed\xa0\x80"),
                     "data.reference: must be valid UTF-8");  // surrogate
    expect_malformed(mutate(0, "order-42", R"(order-\udc00)"),
                     "data.reference");  // lone low surrogate escape
    expect_malformed(mutate(0, "shop.example", "shop\xe0\xb8"),
                     "data.returnUrl: must be valid UTF-8");  // truncated
    std::string with_nul = encode_event(examples::all()[1]);
    with_nul.insert(with_nul.size() - 1, std::string(1, '\0'));
    expect_malformed(with_nul, "NUL");
    // an escaped NUL inside a free-text string is refused too: Postgres text and jsonb cannot
    // hold U+0000, so no consumer could store it (ADR 0043)
    Event e = examples::all()[0];
    std::get<ChargeCreated>(e.data).reference = std::string("a\0b", 3);
    const std::string encoded = encode_event(e);
    EXPECT_NE(encoded.find("a\\u0000b"), std::string::npos);
    expect_malformed(encoded, "data.reference: must be valid UTF-8 without NUL characters");
    std::get<ChargeCreated>(e.data).reference.reset();
    std::get<ChargeCreated>(e.data).return_url = std::string("https://shop.example/\0", 22);
    expect_malformed(encode_event(e), "data.returnUrl: must be valid UTF-8 without NUL characters");
}

// Replace the first occurrence of `from` in the encoded example `index`.
std::string mutate(std::size_t index, const std::string& from, const std::string& to) {
    std::string s = encode_event(examples::all()[index]);
    const auto at = s.find(from);
    if (at == std::string::npos)
        ADD_FAILURE() << "no '" << from << "' in " << s;
    else
        s.replace(at, from.size(), to);
    return s;
}

void expect_malformed(const std::string& json, const std::string& message_part) {
    auto r = decode_event(json);
    ASSERT_FALSE(r.ok()) << "accepted: " << json;
    EXPECT_EQ(r.error().code, "malformed_event");
    EXPECT_NE(r.error().message.find(message_part), std::string::npos) << r.error().message << "\n"
                                                                       << json;
}

TEST(EventJson, RejectsMalformedWithTheFieldNamed) {
    // 0 created, 1 detected, 2 deposit_seen, 4 paid
    expect_malformed("", "not valid JSON");
    expect_malformed("{", "not valid JSON");
    expect_malformed("[]", "must be an object");
    expect_malformed(encode_event(examples::all()[1]) + "x", "not valid JSON");
    expect_malformed(mutate(1, R"("amount":"10073743")", R"("amount":"-10073743")"),
                     "data.amount: amount must not be negative");
    expect_malformed(mutate(1, R"("amount":"10073743")", R"("amount":10073743)"),
                     "data.amount: must be a string");
    expect_malformed(mutate(1, R"("amount":"10073743")", R"("amount":"1.5")"),
                     "data.amount: amount must be an integer");
    expect_malformed(mutate(7, R"("amount":"1157)", R"("amount":"9157)"),
                     "data.amount: amount is above 2^256-1");
    expect_malformed(mutate(1, R"(,"amount":"10073743")", ""), "data.amount: missing");
    expect_malformed(mutate(1, R"("id":"0x1111)", R"("idx":"0x1111)"), "idx: unknown field");
    expect_malformed(mutate(1, R"("mode":"test",)", ""), "mode: missing");
    expect_malformed(
        mutate(1, R"("type":"charge.payment_detected")", R"("type":"charge.teleported")"),
        "type: unknown event type");
    expect_malformed(mutate(1, R"("type":"charge.payment_detected")", R"("type":7)"),
                     "type: must be a string");
    expect_malformed(mutate(1, R"("invoiceId":"0x1111)", R"("invoiceId":"0xzz11)"),
                     "invoiceId: must be lower-case 0x hex of 64 digits");
    expect_malformed(mutate(1, R"("invoiceId":"0x1111)", R"("invoiceId":"0x11)"),
                     "invoiceId: must be lower-case 0x hex");
    expect_malformed(mutate(1, R"("from":"0xab)", R"("from":"0xAB)"),
                     "data.from: must be a lower-case 0x address");
    expect_malformed(mutate(1, R"("txHash":"0x64)", R"("txHash":"0x6)"),
                     "data.txHash: must be lower-case 0x hex");
    expect_malformed(mutate(1, R"("logIndex":3)", R"("logIndex":-3)"),
                     "data.logIndex: must be a non-negative integer");
    expect_malformed(mutate(1, R"("logIndex":3)", R"("logIndex":3.5)"),
                     "data.logIndex: must be a non-negative integer");
    expect_malformed(mutate(1, R"("logIndex":3)", R"("logIndex":3,"logIndex":4)"),
                     "data.logIndex: duplicate field");
    expect_malformed(mutate(1, R"("rail":"wallet")", R"("rail":"bridge")"), "data.rail: must be");
    expect_malformed(mutate(2, R"("rail":"transfer")", R"("rail":"wallet")"),
                     "data.rail: must be \"transfer\"");
    expect_malformed(mutate(1, R"("chainId":80002)", R"("chainId":0)"),
                     "chainId: must be a positive integer");
    expect_malformed(mutate(1, R"("chainId":80002)", R"("chainId":"80002")"),
                     "chainId: must be a non-negative integer");
    expect_malformed(mutate(1, R"("schemaVersion":1)", R"("schemaVersion":2)"),
                     "schemaVersion: must be 1");
    expect_malformed(mutate(1, R"("occurredAt":"2026-11-21T22:00:00.123Z")",
                            R"("occurredAt":"2026-11-21T22:00:00Z")"),
                     "occurredAt: must be an RFC 3339");
    expect_malformed(mutate(1, R"("occurredAt":"2026-11-21T22:00:00.123Z")",
                            R"("occurredAt":"2026-02-30T22:00:00.123Z")"),
                     "occurredAt");
    expect_malformed(mutate(1, R"("id":"0x1111)", R"("id":"0x 1111)"), "id: may contain only");
    expect_malformed(mutate(1, R"("data":{)", R"("data":{"x":1,)"), "data.x: unknown field");
    expect_malformed(mutate(4, R"("confirmedTotal":"10073743")", R"("confirmedTotal":"1")"),
                     "data.confirmedTotal: must be at least data.amount");
    expect_malformed(mutate(10, R"("reason":"wrong_token")", R"("reason":"bad_luck")"),
                     "data.reason");
    // charge.created specifics
    expect_malformed(mutate(0, R"("amount":"10073743","token")", R"("amount":"0","token")"),
                     "data.amount: amount must be greater than zero");
    expect_malformed(mutate(0, R"("paymentMode":"both")", R"("paymentMode":"wallet")"),
                     "data.depositAddress: must be null");
    expect_malformed(mutate(0, R"("depositAddress":"0xab55555555555555555555555555555555555555")",
                            R"("depositAddress":null)"),
                     "data.depositAddress: must be set");
    expect_malformed(mutate(0, R"("tokenAmount":"10073743")", R"("tokenAmount":"10073744")"),
                     "data.fiat.tokenAmount: must equal data.amount");
    expect_malformed(mutate(0, R"("amount":"350.00")", R"("amount":"350.001")"),
                     "data.fiat.amount: fiat amount has more than 2 fraction digits");
    expect_malformed(mutate(0, R"("currency":"THB")", R"("currency":"EUR")"),
                     "data.fiat.currency: fiat currency must be THB or USD");
    expect_malformed(mutate(0, R"("rate":"10001/285")", R"("rate":"-3")"), "data.fiat.rate");
    expect_malformed(mutate(0, R"("deadline":"1795305600")", R"("deadline":1795305600)"),
                     "data.deadline: must be a string");
    expect_malformed(
        mutate(0, R"("deadline":"1795305600")", R"("deadline":"99999999999999999999")"),
        "data.deadline: does not fit 64 bits");
    expect_malformed(mutate(0, R"("feeBps":100)", R"("feeBps":10001)"),
                     "data.feeBps: must be at most 10000");
    expect_malformed(mutate(0, R"("fiat":{)", R"("fiat":{"extra":true,)"),
                     "data.fiat.extra: unknown field");
    expect_malformed(mutate(0, R"("reference":"order-42)",
                            R"("reference":")" + std::string(256, 'r') + R"(order-42)"),
                     "data.reference: must be at most 255 characters");
}

TEST(EventJson, ExceptionResolvedIsReadStrictly) {
    const std::size_t r = 13;  // charge.exception_resolved
    ASSERT_EQ(event_type(examples::all()[r]), ExceptionResolved::kType);
    const std::string wallet =
        R"("actorKind":"wallet","actor":"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","sessionId":"ses_0123456789abcdef01234567")";
    const std::string key =
        R"("actorKind":"key","actor":"key_0123456789abcdef01234567","sessionId":null)";
    // A key actor reads back as such.
    auto by_key = decode_event(mutate(r, wallet, key));
    ASSERT_TRUE(by_key.ok()) << by_key.error().message;
    const auto& d = std::get<ExceptionResolved>(by_key->data);
    EXPECT_EQ(d.resolved_by, (Actor{ActorKind::key, "key_0123456789abcdef01234567", {}}));
    // A rejected refund names the refund.
    auto refund = decode_event(
        mutate(r, R"("exception":"partial","refundId":null)",
               R"("exception":"refund_rejected","refundId":"rf_0123456789abcdef01234567")"));
    ASSERT_TRUE(refund.ok()) << refund.error().message;
    EXPECT_EQ(std::get<ExceptionResolved>(refund->data).refund_id, "rf_0123456789abcdef01234567");

    expect_malformed(mutate(r, R"("exception":"partial")", R"("exception":"underpaid")"),
                     "data.exception: must be overpaid");
    expect_malformed(mutate(r, R"("refundId":null)", R"("refundId":"rf_0123456789abcdef01234567")"),
                     "data.refundId: must be set iff");
    expect_malformed(mutate(r, R"("exception":"partial")", R"("exception":"refund_rejected")"),
                     "data.refundId: must be set iff");
    expect_malformed(mutate(r, R"("actorKind":"wallet")", R"("actorKind":"operator")"),
                     "data.actorKind: must be");
    expect_malformed(mutate(r, R"("actor":"0xaaaa)", R"("actor":"0xAAaa)"),
                     "data.actor: must be a lower-case 0x address");
    expect_malformed(
        mutate(r, R"("sessionId":"ses_0123456789abcdef01234567")", R"("sessionId":null)"),
        "data.sessionId: must be set for a wallet");
    expect_malformed(mutate(r, wallet, R"("actorKind":"key","actor":"key_1","sessionId":"ses_1")"),
                     "data.sessionId: must be null for a key");
    expect_malformed(
        mutate(
            r, wallet,
            R"("actorKind":"key","actor":"0xaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa","sessionId":null)"),
        "data.actor: must be a key id");
    expect_malformed(mutate(r, R"("note":"Buyer)", R"("note":" Buyer)"),
                     "data.note: must be trimmed");
    expect_malformed(mutate(r, R"("note":"Buyer pays)", R"("note":"Buyer\r\npays)"),
                     "data.note: must be trimmed");
    expect_malformed(mutate(r, R"("note":"Buyer)", R"("note":"\u0007Buyer)"),
                     "data.note: note must be");
    expect_malformed(mutate(r, R"("note":"Buyer)", R"("note":")" + std::string(500, 'x') + "Buyer"),
                     "data.note: note must be 1 to 500");
    expect_malformed(mutate(r, R"(,"note":"Buyer)", R"(,"notes":"Buyer)"),
                     "data.notes: unknown field");
}

TEST(EventJson, ReferenceLimitCountsCharactersNotBytes) {
    Event e = examples::all()[0];
    std::string thai;
    for (int i = 0; i < 255; ++i) thai += "\xe0\xb8\x81";  // 255 characters, 765 bytes
    std::get<ChargeCreated>(e.data).reference = thai;
    auto back = decode_event(encode_event(e));
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*std::get<ChargeCreated>(back->data).reference, thai);
}

TEST(EventJson, StringEscapingMatchesRapidJsonWriterByteForByte) {
    std::mt19937_64 rng(7);
    std::vector<std::string> samples = {"",
                                        "plain",
                                        "quote\"back\\slash/",
                                        std::string("nul\0x", 5),
                                        "\b\f\n\r\t\x01\x1f\x7f",
                                        "\xe0\xb8\x81\xf0\x9f\x98\x80"};
    std::string all_bytes;
    for (int c = 1; c < 128; ++c) all_bytes.push_back(static_cast<char>(c));
    samples.push_back(all_bytes);
    for (int i = 0; i < 20000; ++i) {
        std::string s;
        const auto n = rng() % 40;
        // mostly clean text with a rare special byte, so clean 8-byte blocks are common
        if (i % 3 == 0) {
            for (std::size_t k = 0; k < n; ++k) s.push_back(static_cast<char>('a' + rng() % 26));
            if (n > 0 && rng() % 2)
                s[rng() % n] =
                    static_cast<char>(rng() % 2 ? rng() % 0x20 : (rng() % 2 ? '"' : '\\'));
            samples.push_back(s);
            continue;
        }
        for (std::size_t k = 0; k < n; ++k)
            s.push_back(
                static_cast<char>(i % 2 ? rng() % 128 : rng() % 256));  // controls, high bytes
        samples.push_back(s);
    }
    for (const auto& s : samples) {
        rapidjson::StringBuffer sb;
        rapidjson::Writer<rapidjson::StringBuffer> w(sb);
        w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
        std::string mine;
        append_json_string(mine, s);
        ASSERT_EQ(mine, std::string(sb.GetString(), sb.GetSize()));
        // and the parser gives the original back
        rapidjson::Document d;
        d.Parse(mine.data(), mine.size());
        ASSERT_FALSE(d.HasParseError());
        ASSERT_EQ(std::string(d.GetString(), d.GetStringLength()), s);
    }
}

TEST(EventJson, EncodedEventsAreWellFormedJsonForRapidJson) {
    for (const auto& e : examples::all()) {
        const std::string json = encode_event(e);
        rapidjson::Document d;
        d.Parse(json.data(), json.size());
        ASSERT_FALSE(d.HasParseError()) << json;
        EXPECT_TRUE(d.IsObject());
        EXPECT_EQ(std::string(d["type"].GetString()), std::string(event_type(e)));
    }
}

TEST(EventJson, HexFieldsAcceptExactlyLowerCaseHexAtEveryPosition) {
    // Every byte value at every position of a 64-digit hash and a 40-digit address.
    const std::string base = encode_event(examples::all()[1]);  // payment_detected
    for (const std::string field : {R"("txHash":"0x)", R"("from":"0x)"}) {
        const auto start = base.find(field) + field.size();
        const std::size_t digits = field.find("txHash") != std::string::npos ? 64 : 40;
        for (std::size_t pos = 0; pos < digits; ++pos) {
            for (int c = 1; c < 256; ++c) {
                std::string json = base;
                json[start + pos] = static_cast<char>(c);
                const bool lower_hex = (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f');
                auto r = decode_event(json);
                ASSERT_EQ(r.ok(), lower_hex) << field << " pos " << pos << " char " << c;
                if (lower_hex) {
                    ASSERT_EQ(encode_event(*r), json) << field << " pos " << pos << " char " << c;
                }
            }
        }
    }
}

TEST(EventJson, Rfc3339Check) {
    EXPECT_TRUE(is_rfc3339_millis_utc("2024-02-29T23:59:59.999Z"));
    EXPECT_EQ(format_rfc3339_millis_utc(0), "1970-01-01T00:00:00.000Z");
    EXPECT_EQ(format_rfc3339_millis_utc(1'709'251'199'999), "2024-02-29T23:59:59.999Z");
    EXPECT_EQ(format_rfc3339_millis_utc(1'795'737'600'123), "2026-11-27T00:00:00.123Z");
    EXPECT_EQ(format_rfc3339_millis_utc(951'782'400'000), "2000-02-29T00:00:00.000Z");
    EXPECT_EQ(format_rfc3339_millis_utc(1'795'809'599'999), "2026-11-27T19:59:59.999Z");
    EXPECT_EQ(format_rfc3339_millis_utc(253'402'300'799'999), "9999-12-31T23:59:59.999Z");
    EXPECT_EQ(format_rfc3339_millis_utc(-1), "1970-01-01T00:00:00.000Z");  // clamped
    for (std::int64_t ms = 0; ms < 4'102'444'800'000; ms += 86'399'997) {  // to 2100
        EXPECT_TRUE(is_rfc3339_millis_utc(format_rfc3339_millis_utc(ms))) << ms;
    }
    EXPECT_FALSE(is_rfc3339_millis_utc("2023-02-29T00:00:00.000Z"));
    EXPECT_FALSE(is_rfc3339_millis_utc("2024-13-01T00:00:00.000Z"));
    EXPECT_FALSE(is_rfc3339_millis_utc("2024-01-01T24:00:00.000Z"));
    EXPECT_FALSE(is_rfc3339_millis_utc("2024-01-01T00:00:00.000+07:00"));
    EXPECT_FALSE(is_rfc3339_millis_utc("2024-01-01T00:00:00.00Z"));
}

TEST(EventTime, ParsesWhatUsersTypeAndRoundTripsTheFormatter) {
    EXPECT_EQ(parse_rfc3339_millis("2026-11-21T22:00:00.000Z"), 1'795'298'400'000);
    EXPECT_EQ(parse_rfc3339_millis("2026-11-21t22:00:00z"), 1'795'298'400'000);
    EXPECT_EQ(parse_rfc3339_millis("2026-11-22T05:00:00+07:00"), 1'795'298'400'000);
    EXPECT_EQ(parse_rfc3339_millis("2026-11-21T21:30:00.25-00:30"), 1'795'298'400'250);
    EXPECT_EQ(parse_rfc3339_millis("2026-11-21T22:00:00.1239Z"), 1'795'298'400'123);
    EXPECT_EQ(parse_rfc3339_millis("2026-11-21"), 1'795'219'200'000);
    for (std::int64_t ms = 0; ms < 4'102'444'800'000; ms += 86'399'997) {  // to 2100
        EXPECT_EQ(parse_rfc3339_millis(format_rfc3339_millis_utc(ms)), ms);
    }
    for (const char* bad :
         {"", "2026-11-21T22:00:00", "2026-11-21T22:00Z", "2026-02-29", "2026-11-21T24:00:00Z",
          "2026-11-21T22:00:00.Z", "2026-11-21T22:00:00+0700", "2026-11-21 22:00:00Z",
          "1969-12-31T23:59:59Z", "2026-11-21T22:00:00Zx"}) {
        EXPECT_FALSE(parse_rfc3339_millis(bad).has_value()) << bad;
    }
}

}  // namespace
}  // namespace duepay::domain::events
