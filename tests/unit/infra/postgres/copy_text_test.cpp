// COPY's text format for one value (infra/postgres/detail/copy_text.hpp): each special byte at
// every position around the 16-byte steps, against a byte-by-byte reference.
#include "infra/postgres/detail/copy_text.hpp"

#include <gtest/gtest.h>

#include <stdexcept>
#include <string>

namespace duepay::infra::postgres::detail {
namespace {

// The format spelled out byte by byte.
std::string reference(std::string_view value) {
    std::string out;
    for (char c : value) {
        switch (c) {
            case '\\':
                out += "\\\\";
                break;
            case '\n':
                out += "\\n";
                break;
            case '\r':
                out += "\\r";
                break;
            case '\t':
                out += "\\t";
                break;
            default:
                out += c;
        }
    }
    return out;
}

std::string copied(std::string_view value) {
    std::string line = "prefix\t";
    append_copy_text(line, value, "a test column");
    return line.substr(7);
}

TEST(CopyText, PlainTextIsCopiedAsItIs) {
    EXPECT_EQ(copied(""), "");
    EXPECT_EQ(copied("abc"), "abc");
    const std::string thai = "order-42 \"quoted\" \xe0\xb8\xa3\xe0\xb9\x89\xe0\xb8\xb2\xe0\xb8\x99";
    EXPECT_EQ(copied(thai), thai);  // bytes above 0x7f as they are
    EXPECT_EQ(copied(std::string(100, 'x')), std::string(100, 'x'));
}

TEST(CopyText, EachSpecialByteIsEscapedAtEveryPosition) {
    for (const char special : {'\\', '\n', '\r', '\t'}) {
        for (std::size_t length : {1u, 15u, 16u, 17u, 31u, 32u, 33u, 70u}) {
            for (std::size_t at = 0; at < length; ++at) {
                std::string value(length, 'a');
                value[at] = special;
                EXPECT_EQ(copied(value), reference(value))
                    << "byte " << int(special) << " at " << at << " of " << length;
            }
        }
    }
}

TEST(CopyText, RunsOfSpecialBytesAndOtherControlBytes) {
    const std::string value = "a\\\\b\n\n\r\t\tc\x01\x1f\x7f" + std::string(20, '\\') + "end";
    EXPECT_EQ(copied(value), reference(value));
    const std::string json = R"({"reference":"line\nbreak \"q\" back\\slash"})";
    EXPECT_EQ(copied(json), reference(json));
}

TEST(CopyText, ANulByteIsRefusedWherever) {
    for (std::size_t length : {1u, 16u, 17u, 40u}) {
        for (std::size_t at = 0; at < length; ++at) {
            std::string value(length, 'a');
            value[at] = '\0';
            std::string line;
            try {
                append_copy_text(line, value, "a test column");
                ADD_FAILURE() << "NUL at " << at << " of " << length << " accepted";
            } catch (const std::invalid_argument& e) {
                EXPECT_STREQ(e.what(), "a NUL byte in a test column");
            }
        }
    }
}

}  // namespace
}  // namespace duepay::infra::postgres::detail
