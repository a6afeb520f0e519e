#include "domain/webhooks/delivery_log.hpp"

#include <gtest/gtest.h>

#include <string>

#include "domain/text.hpp"

namespace dw = duepay::domain::webhooks;
using namespace std::string_literals;

TEST(ResponseExcerpt, KeepsPrintableTextAsItIs) {
    EXPECT_EQ(dw::response_excerpt(R"({"error":"nope"})"), R"({"error":"nope"})");
    EXPECT_EQ(dw::response_excerpt("ok ไทย €"), "ok ไทย €");
    EXPECT_EQ(dw::response_excerpt(""), "");
}

TEST(ResponseExcerpt, WhitespaceControlsBecomeSpacesOthersAreDropped) {
    EXPECT_EQ(dw::response_excerpt("a\tb\r\nc"), "a b  c");
    EXPECT_EQ(dw::response_excerpt("a\0b\x1b[31mred\x7f"s), "ab[31mred");
    EXPECT_EQ(dw::response_excerpt("c1:\xC2\x85\xC2\x9B."), "c1:.");       // NEL, CSI
    EXPECT_EQ(dw::response_excerpt("line\xE2\x80\xA8next"), "line next");  // U+2028
}

TEST(ResponseExcerpt, BidiControlsAreDropped) {
    // U+202E RIGHT-TO-LEFT OVERRIDE and U+2066 LEFT-TO-RIGHT ISOLATE (Trojan Source).
    EXPECT_EQ(dw::response_excerpt("abc\xE2\x80\xAE"
                                   "fed\xE2\x81\xA6x"),
              "abcfedx");
}

TEST(ResponseExcerpt, InvalidUtf8BecomesTheReplacementCharacter) {
    const std::string r = "\xEF\xBF\xBD";
    EXPECT_EQ(dw::response_excerpt("a\xFF"
                                   "b"),
              "a" + r + "b");
    EXPECT_EQ(dw::response_excerpt("\xC0\xAF"), r + r);             // overlong
    EXPECT_EQ(dw::response_excerpt("\xED\xA0\x80"), r + r + r);     // a UTF-16 surrogate
    EXPECT_EQ(dw::response_excerpt("end\xE2\x82"), "end" + r + r);  // cut inside a character
    EXPECT_TRUE(duepay::domain::is_storable_text(dw::response_excerpt("\xF5\x80\x00\xFE"s)));
}

TEST(ResponseExcerpt, BoundedInBytesAtACharacterBoundary) {
    const std::string long_ascii(1000, 'x');
    EXPECT_EQ(dw::response_excerpt(long_ascii), std::string(dw::kResponseExcerptBytes, 'x'));
    // 255 ASCII bytes then a 3-byte character: it does not fit, and is not split.
    const std::string edge = std::string(255, 'a') + "€tail";
    EXPECT_EQ(dw::response_excerpt(edge), std::string(255, 'a'));
    EXPECT_EQ(dw::response_excerpt("ไทย", 7), "ไท");
    // Replacement characters count in the bound too.
    const auto bad = dw::response_excerpt(std::string(200, '\xFF'));
    EXPECT_LE(bad.size(), dw::kResponseExcerptBytes);
    EXPECT_EQ(bad.size(), 255u);  // 85 replacement characters
    EXPECT_TRUE(duepay::domain::is_valid_utf8(bad));
}

TEST(DeliveryHealth, PermilleRoundsDown) {
    EXPECT_EQ(dw::success_permille({0, 0}), std::nullopt);
    EXPECT_EQ(dw::success_permille({3, 1}), 333);
    EXPECT_EQ(dw::success_permille({3, 2}), 666);
    EXPECT_EQ(dw::success_permille({2000, 1999}), 999);  // never 100 % with a failure
    EXPECT_EQ(dw::success_permille({1000, 1000}), 1000);
    EXPECT_EQ(dw::success_permille({4, 0}), 0);
    EXPECT_EQ(dw::success_permille({4, 9}), 1000);  // delivered is capped by attempts
}

TEST(DeliveryHealth, RateText) {
    EXPECT_EQ(dw::success_rate_text({0, 0}), "");
    EXPECT_EQ(dw::success_rate_text({40, 39}), "97.5 %");
    EXPECT_EQ(dw::success_rate_text({3, 2}), "66.6 %");
    EXPECT_EQ(dw::success_rate_text({10, 10}), "100 %");
    EXPECT_EQ(dw::success_rate_text({10, 0}), "0 %");
}

TEST(DeliveryHealth, Classification) {
    using H = dw::EndpointHealth;
    const auto health = [](bool enabled, bool for_failing, bool failing, std::int64_t attempts,
                           std::int64_t delivered) {
        return dw::endpoint_health({enabled, for_failing, failing, {attempts, delivered}});
    };
    EXPECT_EQ(health(false, true, true, 10, 0), H::disabled_failing);
    EXPECT_EQ(health(false, false, false, 10, 10), H::disabled);
    EXPECT_EQ(health(true, false, true, 10, 9), H::failing);
    EXPECT_EQ(health(true, false, false, 0, 0), H::idle);
    EXPECT_EQ(health(true, false, false, 20, 19), H::healthy);  // 95.0 %
    EXPECT_EQ(health(true, false, false, 1000, 949), H::degraded);
    EXPECT_EQ(dw::to_string(H::disabled_failing), "disabled_failing");
}
