#include "domain/evm/eip191.hpp"

#include <gtest/gtest.h>

#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

TEST(Eip191, IsKeccakOfPrefixLengthAndMessage) {
    EXPECT_EQ(personal_message_hash("Hello, duepay"),
              keccak256(std::string_view("\x19"
                                         "Ethereum Signed Message:\n13Hello, duepay")));
}

// Vectors computed with ethers 6.17.0 hashMessage.
TEST(Eip191, MatchesEthersHashMessage) {
    EXPECT_EQ(to_hex(personal_message_hash("Hello, duepay")),
              "0x7e4adf6fd3aaa4a1d1ee88f45d292d491b77469c4b7c45840ff9fde56d5af680");
    EXPECT_EQ(to_hex(personal_message_hash("")),
              "0x5f35dce98ba4fba25530a026ed80b2cecdaa31091ba4958b99b52ea1d068adad");
    // A three-digit length, the case a fixed-width length would get wrong.
    EXPECT_EQ(to_hex(personal_message_hash(std::string(200, 'x'))),
              "0x307ada3d8ece59db76f5e921f9f455631d20ca1f1a30a63c5c4907b7f60dbf75");
}

TEST(Eip191, LengthCountsBytesNotCharacters) {
    const std::string utf8 = "\xe0\xb8\xbf";  // U+0E3F THAI BAHT SIGN: one character, three bytes
    EXPECT_EQ(personal_message_hash(utf8),
              keccak256(std::string_view("\x19"
                                         "Ethereum Signed Message:\n3\xe0\xb8\xbf")));
}

}  // namespace
}  // namespace duepay::domain::evm
