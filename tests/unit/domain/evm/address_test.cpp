#include "domain/evm/address.hpp"

#include <gtest/gtest.h>

#include <cctype>

namespace duepay::domain::evm {
namespace {

std::string lower(std::string s) {
    for (char& c : s) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    return s;
}

// The checksummed examples listed in EIP-55 itself.
const char* const kEip55Examples[] = {
    "0x52908400098527886E0F7030069857D2E4169EE7",  // all caps
    "0x8617E340B3D01FA5F11F306F4090FD50E238070D",
    "0xde709f2102306220921060314715629080e2fb77",  // all lower
    "0x27b1fdb04752bbc536007a920d24acb045561c26",
    "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed",  // normal
    "0xfB6916095ca1df60bB79Ce92cE3Ea74c37c5d359", "0xdbF03B407c01E7cD3CBea99509d93f8DDDC8C6FB",
    "0xD1220A0cf47c7B9Be7A2E6BA89F429762e7b9aDb",
};

TEST(Eip55, ChecksumOfLowerCaseMatchesEveryExampleOfTheEip) {
    for (const char* example : kEip55Examples) {
        auto parsed = parse_address(lower(example));
        ASSERT_TRUE(parsed) << example << ": " << parsed.error().message;
        EXPECT_EQ(to_checksum(*parsed), example);
    }
}

TEST(Eip55, AcceptsCorrectlyChecksummedAllLowerAndAllUpperInput) {
    for (const char* example : kEip55Examples) {
        std::string upper_digits = std::string("0x") + std::string(example + 2);
        for (std::size_t i = 2; i < upper_digits.size(); ++i) {
            upper_digits[i] =
                static_cast<char>(std::toupper(static_cast<unsigned char>(upper_digits[i])));
        }
        auto a = parse_address(example);
        auto b = parse_address(lower(example));
        auto c = parse_address(upper_digits);
        ASSERT_TRUE(a && b && c) << example;
        EXPECT_EQ(*a, *b);
        EXPECT_EQ(*a, *c);
    }
}

TEST(Eip55, AcceptsMissingPrefixLikeEthers) {
    auto parsed = parse_address("5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    ASSERT_TRUE(parsed);
    EXPECT_EQ(to_checksum(*parsed), "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed");
}

TEST(Eip55, RejectsOneFlippedLetterWithChecksumCode) {
    // Last letter 'd' of the EIP's example flipped to 'D'.
    auto parsed = parse_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, "invalid_address_checksum");
    EXPECT_NE(parsed.error().message.find("checksum"), std::string::npos);
}

TEST(Eip55, RejectsAMistypedDigitInACheckummedAddress) {
    // One hex digit changed (e -> f) but the case pattern kept: the checksum no longer fits.
    auto parsed = parse_address("0x5aAfb6053F3E94C9b9A09f33669435E7Ef1BeAed");
    ASSERT_FALSE(parsed);
    EXPECT_EQ(parsed.error().code, "invalid_address_checksum");
}

TEST(Eip55, RejectsBadLengthAndCharacters) {
    for (const char* bad : {"", "0x", "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAe",
                            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed00",
                            "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg",
                            "0X5aaeb6053f3e94c9b9a09f33669435e7ef1beaed",
                            " 0x5aaeb6053f3e94c9b9a09f33669435e7ef1beae"}) {
        auto parsed = parse_address(bad);
        ASSERT_FALSE(parsed) << "'" << bad << "'";
        EXPECT_EQ(parsed.error().code, "invalid_address") << "'" << bad << "'";
        EXPECT_FALSE(parsed.error().message.empty());
    }
}

TEST(Eip55, MessageNamesTheOffendingCharacter) {
    auto parsed = parse_address("0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeg");
    ASSERT_FALSE(parsed);
    EXPECT_NE(parsed.error().message.find("'g'"), std::string::npos) << parsed.error().message;
    EXPECT_NE(parsed.error().message.find("position 41"), std::string::npos)
        << parsed.error().message;
}

}  // namespace
}  // namespace duepay::domain::evm
