#include "domain/evm/eip712.hpp"

#include <gtest/gtest.h>

#include "domain/evm/abi.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/keccak.hpp"
#include "domain/hex.hpp"

namespace duepay::domain::evm {
namespace {

Address addr(std::string_view text) {
    auto a = parse_address(text);
    if (!a) throw std::invalid_argument(a.error().message);
    return *a;
}

// The "Mail" example of the EIP-712 specification (its Example.js), built from the generic pieces
// (type_hash, domain_separator, typed_data_digest) to show the encoder follows the spec.
TEST(Eip712, MailExampleOfTheSpecification) {
    const Bytes32 domain_sep = domain_separator("Ether Mail", "1", ChainId{1},
                                                addr("0xCcCCccccCCCCcCCCCCCcCcCccCcCCCcCcccccccC"));
    EXPECT_EQ(to_hex(domain_sep),
              "0xf2cee375fa42b42143804025fc449deafd50cc031ca257e0b194a650a912090f");

    const Bytes32 person_type = type_hash("Person(string name,address wallet)");
    const Bytes32 mail_type =
        type_hash("Mail(Person from,Person to,string contents)Person(string name,address wallet)");
    auto person = [&](std::string_view name, std::string_view wallet) {
        return keccak256(abi_encode<3>({person_type, keccak256(name), abi_word(addr(wallet))}));
    };
    const Bytes32 mail = keccak256(
        abi_encode<4>({mail_type, person("Cow", "0xCD2a3d9F938E13CD947Ec05AbC7FE734Df8DD826"),
                       person("Bob", "0xbBbBBBBbbBBBbbbBbbBbbbbBBbBbbbbBbBbbBBbB"),
                       keccak256(std::string_view("Hello, Bob!"))}));
    EXPECT_EQ(to_hex(mail), "0xc52c0ee5d84264471806290a3f2c4cecfc5490626bf912d01f240d7a274b371e");

    EXPECT_EQ(to_hex(typed_data_digest(domain_sep, mail)),
              "0xbe609aee343fb3c4b28e1df9e632fca64fcfaede20f02e86244efddf30957bd2");
}

TEST(Eip712, PaymentIntentTypeHashIsOfTheContractType) {
    EXPECT_EQ(
        payment_intent_type_hash(),
        keccak256(std::string_view("PaymentIntent(bytes32 invoiceId,address merchant,address token,"
                                   "uint256 amount,uint16 feeBps,uint256 deadline)")));
}

PaymentIntent sample_intent() {
    PaymentIntent intent;
    intent.invoice_id.bytes.fill(0x11);
    intent.merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    intent.token = addr("0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512");
    intent.amount = TokenAmount{1234567890};
    intent.fee_bps = 100;
    intent.deadline = 1767225600;
    return intent;
}

const Eip712Domain kAmoy{ChainId{80002}, Address{}};

// Vectors computed with ethers 6.17.0 TypedDataEncoder (hashDomain, from(types).hash, hash) for the
// sample intent; tests/oracle re-checks thousands of random intents against ethers on every run.
TEST(Eip712, DuepayIntentMatchesEthers) {
    const Eip712Domain domain{ChainId{80002}, addr("0x5FbDB2315678afecb367f032d93F642f64180aa3")};
    EXPECT_EQ(to_hex(domain_separator(domain)),
              "0x5eac9fcaccf50b4c1fffe1d1daf2d8a82fdaccebc83d6f26fbe0153a9d9e11c9");
    EXPECT_EQ(to_hex(intent_struct_hash(sample_intent())),
              "0xc16f4139e8bcd6bfffc7d7c939bf4fbc632e5de4d7f22f2a5e20da359a197939");
    EXPECT_EQ(to_hex(intent_digest(domain, sample_intent())),
              "0x412c923673712f2c182ac445fb0360bc5809bb4505796e3d3de6973ebb2523fa");
    EXPECT_EQ(intent_digest(domain_separator(domain), sample_intent()),
              intent_digest(domain, sample_intent()));
}

TEST(Eip712, EveryFieldChangesTheDigest) {
    const Eip712Domain domain{ChainId{80002}, addr("0x5FbDB2315678afecb367f032d93F642f64180aa3")};
    const Bytes32 base = intent_digest(domain, sample_intent());
    auto changed = [&](auto mutate) {
        PaymentIntent i = sample_intent();
        mutate(i);
        return intent_digest(domain, i);
    };
    EXPECT_NE(changed([](PaymentIntent& i) { i.invoice_id.bytes[31] ^= 1; }), base);
    EXPECT_NE(changed([](PaymentIntent& i) { i.merchant.bytes[0] ^= 1; }), base);
    EXPECT_NE(changed([](PaymentIntent& i) { i.token.bytes[19] ^= 1; }), base);
    EXPECT_NE(changed([](PaymentIntent& i) { i.amount.value += 1; }), base);
    EXPECT_NE(changed([](PaymentIntent& i) { i.fee_bps = 101; }), base);
    EXPECT_NE(changed([](PaymentIntent& i) { i.deadline += 1; }), base);
    EXPECT_NE(intent_digest(Eip712Domain{ChainId{137}, domain.verifying_contract}, sample_intent()),
              base);
    EXPECT_NE(intent_digest(kAmoy, sample_intent()), base);  // other router
}

}  // namespace
}  // namespace duepay::domain::evm
