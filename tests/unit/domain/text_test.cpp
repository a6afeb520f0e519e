// The storable-text rule shared by the API, the event codec and the projection (ADR 0043).
#include "domain/text.hpp"

#include <gtest/gtest.h>

namespace duepay::domain {
namespace {

TEST(Text, StrictUtf8AcceptsEveryWellFormedLengthAndRefusesTheRest) {
    EXPECT_TRUE(is_valid_utf8(""));
    EXPECT_TRUE(is_valid_utf8("plain ascii, longer than eight bytes"));
    EXPECT_TRUE(is_valid_utf8("\xc3\xa9"));          // U+00E9, 2 bytes
    EXPECT_TRUE(is_valid_utf8("\xe0\xb8\x81"));      // U+0E01 Thai, 3 bytes
    EXPECT_TRUE(is_valid_utf8("\xf0\x9f\x98\x80"));  // U+1F600 emoji, 4 bytes
    EXPECT_TRUE(is_valid_utf8("\xf4\x8f\xbf\xbf"));  // U+10FFFF, the last code point
    EXPECT_FALSE(is_valid_utf8("\xff"));
    EXPECT_FALSE(is_valid_utf8("\x80"));               // a lone continuation byte
    EXPECT_FALSE(is_valid_utf8("\xc0\xaf"));           // overlong '/'
    EXPECT_FALSE(is_valid_utf8("\xe0\x80\xaf"));       // overlong, 3 bytes
    EXPECT_FALSE(is_valid_utf8("\xf0\x80\x80\xaf"));   // overlong, 4 bytes
    EXPECT_FALSE(is_valid_utf8("\xed\xa0\x80"));       // U+D800, a surrogate
    EXPECT_FALSE(is_valid_utf8("\xf4\x90\x80\x80"));   // above U+10FFFF
    EXPECT_FALSE(is_valid_utf8("\xe0\xb8"));           // truncated at the end
    EXPECT_FALSE(is_valid_utf8("abcdefgh\xe0\xb8z"));  // truncated after the ASCII fast path
}

TEST(Text, StorableTextHasNoNul) {
    EXPECT_TRUE(is_valid_utf8(std::string_view("a\0b", 3)));
    EXPECT_FALSE(is_storable_text(std::string_view("a\0b", 3)));
    EXPECT_FALSE(is_storable_text(std::string_view("\0", 1)));
    EXPECT_FALSE(is_storable_text("\xff"));
    EXPECT_TRUE(is_storable_text("order-42 \xe0\xb8\x81"));
}

TEST(Text, LengthsAreCodePoints) {
    std::string thai;
    for (int i = 0; i < 100; ++i) thai += "\xe0\xb8\x81";
    EXPECT_EQ(thai.size(), 300u);
    EXPECT_EQ(utf8_code_points(thai), 100u);
    EXPECT_EQ(utf8_code_points("a\xf0\x9f\x98\x80z"), 3u);
}

TEST(Text, EscapeForLogKeepsPrintableAsciiOnly) {
    EXPECT_EQ(escape_for_log("ok"), "ok");
    EXPECT_EQ(escape_for_log(std::string_view("a\0\xff\\\n", 5)), "a\\x00\\xff\\x5c\\x0a");
    EXPECT_EQ(escape_for_log("\xe0\xb8\x81"), "\\xe0\\xb8\\x81");
    EXPECT_EQ(escape_for_log("abcdef", 3), "abc...");
}

TEST(Text, EscapeHtmlTurnsMarkupIntoText) {
    EXPECT_EQ(escape_html("<script>alert('x') & \"y\"</script>"),
              "&lt;script&gt;alert(&#39;x&#39;) &amp; &quot;y&quot;&lt;/script&gt;");
    EXPECT_EQ(escape_html("\xe0\xb8\x81 ok"), "\xe0\xb8\x81 ok");
    EXPECT_EQ(escape_html(""), "");
}

TEST(Text, EscapeHtmlKeepsThePlainRunsAroundEachEntity) {
    // Specials first, last, back to back and alone: the runs between them are copied whole.
    EXPECT_EQ(escape_html("&"), "&amp;");
    EXPECT_EQ(escape_html("<<"), "&lt;&lt;");
    EXPECT_EQ(escape_html("'a"), "&#39;a");
    EXPECT_EQ(escape_html("a\""), "a&quot;");
    EXPECT_EQ(escape_html("0xab>cd&&ef"), "0xab&gt;cd&amp;&amp;ef");
    EXPECT_EQ(escape_html(std::string_view("a\0<b", 4)), std::string("a\0&lt;b", 7));
    const std::string plain(5000, 'x');
    EXPECT_EQ(escape_html(plain), plain);
}

}  // namespace
}  // namespace duepay::domain
