#include "domain/hex.hpp"

#include <gtest/gtest.h>

namespace duepay::domain {
namespace {

TEST(Hex, EncodesLowerCaseWithPrefix) {
    const Bytes bytes{0x00, 0xab, 0xff, 0x10};
    EXPECT_EQ(to_hex(bytes), "0x00abff10");
    EXPECT_EQ(to_hex(Bytes{}), "0x");
}

TEST(Hex, DecodesEitherCaseAndOptionalPrefix) {
    EXPECT_EQ(from_hex("0xABff10"), (Bytes{0xab, 0xff, 0x10}));
    EXPECT_EQ(from_hex("abff10"), (Bytes{0xab, 0xff, 0x10}));
    EXPECT_EQ(from_hex("0x"), Bytes{});
}

TEST(Hex, RejectsOddLengthAndNonHex) {
    EXPECT_FALSE(from_hex("0xabc"));
    EXPECT_FALSE(from_hex("0xzz"));
    EXPECT_FALSE(from_hex(" 0x00"));
}

TEST(Hex, InvoiceIdNeedsExactly32Bytes) {
    EXPECT_FALSE(parse_invoice_id("0x" + std::string(62, 'a')));
    auto id = parse_invoice_id("0x" + std::string(64, 'A'));
    ASSERT_TRUE(id);
    EXPECT_EQ(to_hex(*id), "0x" + std::string(64, 'a'));
}

}  // namespace
}  // namespace duepay::domain
