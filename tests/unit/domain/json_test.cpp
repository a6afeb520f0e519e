// domain/json: the bounded parse every JSON input of duepay goes through. Table of inputs and the
// refusal (kind and path) each must give; then the sizes an attacker would send.
#include "domain/json.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace {

using duepay::domain::json::Limits;
using duepay::domain::json::Options;
using duepay::domain::json::parse;
using duepay::domain::json::Problem;
using duepay::domain::json::Refusal;

struct Case {
    const char* name;
    std::string text;
    Refusal refusal;
    std::string path;
    bool storable = false;
};

std::string nested(std::size_t depth, const std::string& inner = "1") {
    return std::string(depth, '[') + inner + std::string(depth, ']');
}

std::string nested_objects(std::size_t depth) {
    std::string out;
    for (std::size_t i = 0; i < depth; ++i) out += R"({"a":)";
    out += "1";
    out += std::string(depth, '}');
    return out;
}

Problem run(const std::string& text, bool storable = false) {
    rapidjson::Document doc;
    Options options;
    options.limits.storable_text = storable;
    return parse(doc, text, options);
}

TEST(BoundedJson, Table) {
    const std::vector<Case> cases = {
        {"plain object", R"({"chainId":80002,"amount":"1"})", Refusal::none, ""},
        {"32 levels of arrays", nested(32), Refusal::none, ""},
        {"33 levels of arrays", nested(33), Refusal::too_deep,
         "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
         "[0][0][0]"},
        {"32 levels of objects", nested_objects(32), Refusal::none, ""},
        {"33 levels of objects", nested_objects(33), Refusal::too_deep,
         "a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a.a"},
        {"deep under a member", R"({"chainId":1,"x":)" + nested(40) + "}", Refusal::too_deep,
         "x[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
         "[0][0]"},
        {"duplicate at the root", R"({"amount":"1","amount":"2"})", Refusal::duplicate_member,
         "amount"},
        {"duplicate chainId", R"({"chainId":80002,"chainId":137})", Refusal::duplicate_member,
         "chainId"},
        {"duplicate spelled with an escape", R"({"amount":"1","\u0061mount":"2"})",
         Refusal::duplicate_member, "amount"},
        {"duplicate nested", R"({"fiat":{"currency":"USD","currency":"THB"}})",
         Refusal::duplicate_member, "fiat.currency"},
        {"duplicate in an array's second object", R"({"items":[{"a":1},{"b":1,"b":2}]})",
         Refusal::duplicate_member, "items[1].b"},
        {"same name in sibling objects", R"({"a":{"x":1},"b":{"x":1},"x":[{"x":1},{"x":2}]})",
         Refusal::none, ""},
        {"same name after a nested object closed", R"({"a":{"a":{"a":1}},"b":{"a":2}})",
         Refusal::none, ""},
        {"NUL in a value, storable", R"({"fiat":{"amount":"1\u0000"}})", Refusal::unstorable_string,
         "fiat.amount", true},
        {"NUL in a value, not checked", R"({"fiat":{"amount":"1\u0000"}})", Refusal::none, ""},
        {"NUL in a member name", R"({"fiat":{"a\u0000":"1"}})", Refusal::unstorable_string, "fiat",
         true},
        {"lone low surrogate", R"({"reference":"\udc00"})", Refusal::unstorable_string, "reference",
         true},
        {"lone high surrogate (the reader refuses it)", R"({"reference":"\ud800"})",
         Refusal::syntax, "", true},
        {"bad UTF-8 byte", "{\"reference\":\"\xff\"}", Refusal::unstorable_string, "reference",
         true},
        {"string at index 2", R"({"m":["a","b","\u0000"]})", Refusal::unstorable_string, "m[2]",
         true},
        {"not JSON", R"({"a":)", Refusal::syntax, ""},
        {"trailing garbage", R"({"a":1} x)", Refusal::syntax, ""},
        {"empty", "", Refusal::syntax, ""},
    };
    for (const auto& c : cases) {
        const auto p = run(c.text, c.storable);
        EXPECT_EQ(p.refusal, c.refusal) << c.name;
        if (c.refusal != Refusal::syntax) {
            EXPECT_EQ(p.path, c.path) << c.name;
        }
    }
}

TEST(BoundedJson, ManyNamesUseTheHashSetAndStillFindTheRepeat) {
    for (const std::size_t n : {15u, 16u, 17u, 100u, 20000u}) {
        const auto name = [](std::size_t i) { return std::string("k").append(std::to_string(i)); };
        std::string body = "{";
        for (std::size_t i = 0; i < n; ++i) body.append("\"").append(name(i)).append("\":1,");
        std::string unique = body;
        unique.back() = '}';
        EXPECT_EQ(run(unique).refusal, Refusal::none) << n;
        const std::string twice = body.append("\"").append(name(n / 2)).append("\":2}");
        const auto p = run(twice);
        EXPECT_EQ(p.refusal, Refusal::duplicate_member) << n;
        EXPECT_EQ(p.path, name(n / 2)) << n;
    }
}

TEST(BoundedJson, ARefusedDocumentIsLeftAsItWas) {
    rapidjson::Document doc;
    doc.SetObject();
    doc.AddMember("kept", 1, doc.GetAllocator());
    const auto p = parse(doc, R"({"a":1,"a":2})");
    EXPECT_EQ(p.refusal, Refusal::duplicate_member);
    ASSERT_TRUE(doc.IsObject());
    EXPECT_TRUE(doc.HasMember("kept"));
}

// A raw NUL byte is never JSON; RapidJSON's memory stream would take it for the end of the input
// and accept the value before it. Refused at the NUL when a whole value precedes it; an incomplete
// value before it gets its own error; the document is left as it was.
TEST(BoundedJson, ANulByteEndsNothing) {
    using namespace std::string_literals;
    rapidjson::Document doc;
    doc.SetObject();
    doc.AddMember("kept", 1, doc.GetAllocator());
    const auto after_value = parse(doc, "{\"amount\":\"1\"}\0{\"amount\":\"2\"}"s);
    EXPECT_EQ(after_value.refusal, Refusal::syntax);
    EXPECT_EQ(after_value.offset, 14U);
    EXPECT_EQ(after_value.syntax_code,
              static_cast<int>(rapidjson::kParseErrorDocumentRootNotSingular));
    ASSERT_TRUE(doc.IsObject());
    EXPECT_TRUE(doc.HasMember("kept"));
    EXPECT_EQ(run("{} \0"s).refusal, Refusal::syntax);
    EXPECT_EQ(run("\0{}"s).refusal, Refusal::syntax);
    const auto inside = run("{\"a\":\0}"s);
    EXPECT_EQ(inside.refusal, Refusal::syntax);
    EXPECT_EQ(inside.offset, 5U);
    EXPECT_NE(inside.syntax_code, static_cast<int>(rapidjson::kParseErrorDocumentRootNotSingular));
}

// The request that used to crash the API: 30,000 levels inside a 60 KB body, and a megabyte of
// them. Refused at level 33, with a constant call stack (the reader is iterative).
TEST(BoundedJson, HostileDepthIsRefusedAtTheLimit) {
    for (const std::size_t depth : {30000u, 500000u}) {
        const auto body = R"({"chainId":80002,"amount":"1","x":)" + nested(depth, "") + "}";
        const auto p = run(body, true);
        EXPECT_EQ(p.refusal, Refusal::too_deep) << depth;
        EXPECT_EQ(p.path.size(), 1 + 3 * 31) << depth;  // "x" (level 1) and 31 "[0]"
    }
    EXPECT_EQ(run(std::string(1 << 20, '[')).refusal, Refusal::too_deep);
    EXPECT_EQ(run(std::string(1 << 20, '{')).refusal, Refusal::syntax);  // a name must follow
}

TEST(BoundedJson, DescribeSaysWhatAndWhere) {
    rapidjson::Document doc;
    using duepay::domain::json::describe;
    EXPECT_EQ(describe(parse(doc, nested(40)), "RPC answer"),
              "RPC answer nests deeper than 32 levels at "
              "[0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0][0]"
              "[0][0][0][0][0]");
    EXPECT_EQ(describe(parse(doc, R"({"a":1,"a":1})"), "body"),
              "body gives member a more than once");
    EXPECT_EQ(describe(parse(doc, R"({"a":)"), "body"),
              "body is not valid JSON (Invalid value. at offset 5)");
}

}  // namespace
