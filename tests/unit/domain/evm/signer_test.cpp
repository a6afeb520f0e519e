#include <gtest/gtest.h>

#include "domain/evm/signature.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

const std::string kRs = "0x" + std::string(64, '1') + std::string(64, '2');

TEST(ParseSignature, KeepsTwentySevenAndTwentyEight) {
    for (const char* v : {"1b", "1c"}) {
        auto sig = parse_signature(kRs + v);
        ASSERT_TRUE(sig) << sig.error().message;
        EXPECT_EQ(to_hex(sig->bytes), kRs + v);
    }
}

TEST(ParseSignature, NormalisesZeroAndOneLikeEthers) {
    auto zero = parse_signature(kRs + "00");
    auto one = parse_signature(kRs + "01");
    ASSERT_TRUE(zero && one);
    EXPECT_EQ(zero->bytes[64], 27);
    EXPECT_EQ(one->bytes[64], 28);
    EXPECT_EQ(to_hex(std::span(zero->bytes).first(64)), kRs);
}

TEST(ParseSignature, RejectsOtherVLengthsAndCharacters) {
    for (const std::string& bad :
         {kRs + "1d", kRs + "02", kRs + "25", kRs, kRs + "1b00", kRs.substr(2) + "1b",
          "0x" + std::string(129, '1') + "g" + "1b"}) {
        auto sig = parse_signature(bad);
        ASSERT_FALSE(sig) << bad;
        EXPECT_EQ(sig.error().code, "invalid_signature") << bad;
    }
}

}  // namespace
}  // namespace duepay::domain::evm
