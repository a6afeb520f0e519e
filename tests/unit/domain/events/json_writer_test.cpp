// domain::json::Writer copies strings that need no escaping in one memcpy: its output must be
// RapidJSON's own, byte for byte, whatever the bytes (docs/adr/0194).
#include "domain/events/json_writer.hpp"

#include <gtest/gtest.h>

#include <random>
#include <string>
#include <vector>

namespace duepay::domain::json {
namespace {

// The same document through both writers: an object of keys and strings, one raw value and an
// array of the strings.
template <class W>
std::string render(const std::vector<std::string>& strings) {
    rapidjson::StringBuffer buffer;
    W w(buffer);
    w.StartObject();
    for (std::size_t i = 0; i < strings.size(); ++i) {
        std::string key = "k";
        key += std::to_string(i);  // not "k" + ...: GCC 12's -Wrestrict false positive
        str(w, key.c_str(), strings[i]);
        opt_str(w, "opt", i % 2 == 0 ? std::optional<std::string>(strings[i]) : std::nullopt);
    }
    w.Key(strings.empty() ? "none" : strings.front().c_str());
    w.RawValue("[1,{\"a\":\"b\"}]", 13, rapidjson::kArrayType);
    w.Key("all");
    w.StartArray();
    for (const auto& s : strings) w.String(s.data(), static_cast<rapidjson::SizeType>(s.size()));
    w.EndArray();
    w.EndObject();
    return std::string(buffer.GetString(), buffer.GetSize());
}

TEST(JsonWriter, NeedsEscapeFindsEveryByteRapidJsonEscapes) {
    for (int c = 0; c < 256; ++c) {
        const bool escaped = c < 0x20 || c == '"' || c == '\\';
        for (std::size_t at : {0, 3, 7, 8, 12, 15, 16, 20}) {
            std::string s(21, 'a');
            s[at] = static_cast<char>(c);
            EXPECT_EQ(needs_json_escape(s), escaped) << "byte " << c << " at " << at;
        }
    }
    EXPECT_FALSE(needs_json_escape(""));
    EXPECT_FALSE(needs_json_escape("0x5FbDB2315678afecb367f032d93F642f64180aa3 \x7f\xc3\xa9"));
}

TEST(JsonWriter, SameBytesAsRapidJsonOnRandomText) {
    std::mt19937 rng(16);
    // Bytes drawn mostly from text, with quotes, backslashes, control and non-ASCII bytes mixed in.
    const std::string alphabet = "abcXYZ019 -_./:\"\\\n\t\x01\x1f\x7f\xc3\xa9\xe2\x82\xac";
    for (int round = 0; round < 2000; ++round) {
        std::vector<std::string> strings;
        const int n = static_cast<int>(rng() % 6);
        for (int i = 0; i < n; ++i) {
            std::string s;
            const std::size_t length = rng() % 40;
            const bool plain = rng() % 2 == 0;
            for (std::size_t j = 0; j < length; ++j) {
                s += plain ? alphabet[rng() % 15] : alphabet[rng() % alphabet.size()];
            }
            strings.push_back(s);
        }
        ASSERT_EQ(render<Writer>(strings), render<BaseWriter>(strings)) << "round " << round;
    }
}

TEST(JsonWriter, WritesPlainAndEscapedStrings) {
    EXPECT_EQ(render<Writer>({"plain", "a\"b\\c\n"}),
              R"({"k0":"plain","opt":"plain","k1":"a\"b\\c\n","opt":null,"plain":[1,{"a":"b"}],)"
              R"("all":["plain","a\"b\\c\n"]})");
}

}  // namespace
}  // namespace duepay::domain::json
