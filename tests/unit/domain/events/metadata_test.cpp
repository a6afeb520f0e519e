// The metadata rules (domain/events/metadata.hpp), table by table, and their place in the event
// codec: carried in charge.created, omitted when empty, refused by the decoder when broken.
#include "domain/events/metadata.hpp"

#include <gtest/gtest.h>

#include "domain/events/event_json.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::domain::events {
namespace {

std::string thai(std::size_t characters) {
    std::string s;
    for (std::size_t i = 0; i < characters; ++i) s += "\xe0\xb8\x81";  // U+0E01, 3 bytes
    return s;
}

TEST(Metadata, KeysAreOneToFortyOfTheAllowedCharacters) {
    struct Case {
        std::string key;
        bool ok;
    };
    const Case cases[] = {
        {"a", true},
        {"order_id", true},
        {"Order.Id-2", true},
        {std::string(40, 'k'), true},
        {"", false},
        {std::string(41, 'k'), false},
        {"order id", false},
        {"order/id", false},
        {"metadata[x]", false},
        {"\xe0\xb8\x81", false},
        {std::string("a\0b", 3), false},
    };
    for (const auto& c : cases) EXPECT_EQ(is_metadata_key(c.key), c.ok) << c.key;
}

TEST(Metadata, ValuesAreStorableTextOfAtMost500Characters) {
    struct Case {
        std::string value;
        bool ok;
    };
    const Case cases[] = {
        {"", true},
        {std::string(500, 'v'), true},
        {thai(500), true},  // 1,500 bytes: characters are counted, not bytes
        {std::string(501, 'v'), false},
        {thai(501), false},
        {std::string("a\0b", 3), false},
        {"\xff", false},
        {"\xed\xa0\x80", false},  // a UTF-16 surrogate
    };
    for (const auto& c : cases) {
        EXPECT_EQ(!metadata_value_problem(c.value).has_value(), c.ok) << c.value.size();
    }
}

TEST(Metadata, CheckNamesTheRuleWithTheInvalidMetadataCode) {
    Metadata twenty;
    for (int i = 0; i < 20; ++i) twenty[std::string("k").append(std::to_string(i))] = "v";
    EXPECT_FALSE(check_metadata({}));
    EXPECT_FALSE(check_metadata(twenty));
    auto twenty_one = twenty;
    twenty_one["k20"] = "v";
    struct Case {
        Metadata metadata;
        std::string message_part;
    };
    const Case cases[] = {
        {twenty_one, "at most 20 keys"},
        {{{"bad key", "v"}}, "keys are 1-40 characters"},
        {{{"", "v"}}, "keys are 1-40 characters"},
        {{{"long", std::string(501, 'v')}}, "metadata.long: must be at most 500 characters"},
        {{{"nul", std::string(1, '\0')}}, "metadata.nul: must be valid UTF-8"},
    };
    for (const auto& c : cases) {
        const auto error = check_metadata(c.metadata);
        ASSERT_TRUE(error) << c.message_part;
        EXPECT_EQ(error->code, "invalid_metadata");
        EXPECT_NE(error->message.find(c.message_part), std::string::npos) << error->message;
    }
}

Event with_metadata(Metadata m) {
    Event e = examples::all()[0];  // charge.created
    std::get<ChargeCreated>(e.data).metadata = std::move(m);
    return e;
}

TEST(Metadata, CarriedInChargeCreatedInKeyOrderAndRoundTrips) {
    const Event e = with_metadata({{"order_id", "A-42"}, {"customer", thai(3)}, {"z.y-x", ""}});
    const std::string json = encode_event(e);
    EXPECT_NE(json.find(R"(,"metadata":{"customer":")" + thai(3) +
                        R"(","order_id":"A-42","z.y-x":""}}})"),
              std::string::npos)
        << json;
    auto back = decode_event(json);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_EQ(*back, e);
    EXPECT_EQ(encode_event(*back), json);
}

TEST(Metadata, OmittedWhenEmptySoOlderEventsStayByteIdentical) {
    const std::string json = encode_event(with_metadata({}));
    EXPECT_EQ(json.find("metadata"), std::string::npos) << json;
    auto back = decode_event(json);
    ASSERT_TRUE(back.ok()) << back.error().message;
    EXPECT_TRUE(std::get<ChargeCreated>(back->data).metadata.empty());
}

TEST(Metadata, TheDecoderRefusesWhatTheRulesRefuse) {
    const std::string good = encode_event(with_metadata({{"order_id", "A-42"}}));
    auto replace = [&](const std::string& to) {
        std::string s = good;
        const std::string from = R"("metadata":{"order_id":"A-42"})";
        const auto at = s.find(from);
        EXPECT_NE(at, std::string::npos);
        return s.replace(at, from.size(), to);
    };
    std::string many = R"("metadata":{)";
    for (int i = 0; i < 21; ++i) {
        if (i != 0) many += ',';
        many += "\"k";
        many += std::to_string(i);
        many += "\":\"v\"";
    }
    many += "}";
    struct Case {
        std::string json;
        std::string message_part;
    };
    const Case cases[] = {
        {replace(R"("metadata":{})"), "data.metadata: must not be empty"},
        {replace(R"("metadata":null)"), "data.metadata: must be an object"},
        {replace(R"("metadata":{"order_id":42})"), "data.metadata.order_id: must be a string"},
        {replace(R"("metadata":{"bad key":"v"})"), "data.metadata: keys are 1-40"},
        {replace(R"("metadata":{"a":"1","a":"2"})"), "data.metadata.a: duplicate field"},
        {replace(R"("metadata":{"v":")" + std::string(501, 'v') + "\"}"),
         "data.metadata.v: must be at most 500 characters"},
        {replace(many), "data.metadata: holds at most 20 keys"},
    };
    for (const auto& c : cases) {
        auto decoded = decode_event(c.json);
        ASSERT_FALSE(decoded.ok()) << c.json;
        EXPECT_NE(decoded.error().message.find(c.message_part), std::string::npos)
            << decoded.error().message;
    }
}

TEST(Metadata, EncodeMetadataIsTheObjectAlone) {
    EXPECT_EQ(encode_metadata({}), "{}");
    EXPECT_EQ(encode_metadata({{"b", "2"}, {"a", "q\"uote"}}), R"({"a":"q\"uote","b":"2"})");
}

}  // namespace
}  // namespace duepay::domain::events
