// decide's Create: the deadline, the grace, the deposit address, the rejections, the metadata.
// The rows are decide_rows.hpp's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/evm/create2.hpp"
#include "tests/unit/domain/charge/decide_rows.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;

TEST(Decide, CreateDecidesDeadlineGraceAndDepositAddress) {
    const auto both = decide(initial_state(), create_command(PaymentMode::both));
    ASSERT_TRUE(both.ok());
    ASSERT_EQ(both->size(), 1u);
    const auto& d = std::get<ChargeCreated>(both->front());
    EXPECT_EQ(d.amount, amount(100));
    EXPECT_EQ(d.deadline, 1'700'000'900u);
    EXPECT_EQ(d.grace_seconds, 3600u);
    const auto salt = evm::deposit_salt(kInvoice, address(0x44), 100);
    ASSERT_TRUE(d.deposit_address.has_value());
    EXPECT_EQ(*d.deposit_address, evm::create2_address(address(0x77), salt, bytes32(0x88)));
    EXPECT_EQ(d.reference, std::optional<std::string>("order-1"));

    // A different fee is a different salt, so a different address.
    auto other_fee = create_command(PaymentMode::transfer);
    other_fee.fee_bps = 101;
    const auto moved = decide(initial_state(), other_fee);
    ASSERT_TRUE(moved.ok());
    EXPECT_NE(std::get<ChargeCreated>(moved->front()).deposit_address, d.deposit_address);

    const auto wallet = decide(initial_state(), create_command(PaymentMode::wallet));
    ASSERT_TRUE(wallet.ok());
    const auto& wd = std::get<ChargeCreated>(wallet->front());
    EXPECT_EQ(wd.grace_seconds, 0u);
    EXPECT_FALSE(wd.deposit_address.has_value());
}

TEST(Decide, CreateRejections) {
    auto zero = create_command(PaymentMode::both);
    zero.amount = amount(0);
    auto bad_key = create_command(PaymentMode::both);
    bad_key.metadata = {{"order id", "A-1"}};
    auto long_value = create_command(PaymentMode::both);
    long_value.metadata = {{"note", std::string(501, 'x')}};
    auto no_window = create_command(PaymentMode::both);
    no_window.expires_in = 0;
    auto over_a_day = create_command(PaymentMode::both);
    over_a_day.expires_in = kMaxExpiresInSeconds + 1;
    run({
        {"a second create", {created(100)}, create_command(PaymentMode::both), {}, "charge_exists"},
        {"a zero amount", {}, zero, {}, "invalid_amount"},
        {"a metadata key with a space", {}, bad_key, {}, "invalid_metadata"},
        {"a metadata value over 500 characters", {}, long_value, {}, "invalid_metadata"},
        {"expiring at its creation", {}, no_window, {}, "invalid_expires_in"},
        {"expiring after more than a day", {}, over_a_day, {}, "invalid_expires_in"},
    });
}

TEST(Decide, CreateCarriesTheMetadata) {
    auto c = create_command(PaymentMode::wallet);
    c.metadata = {{"order_id", "A-1"}, {"note", std::string(500, 'x')}};
    const auto decided = decide(initial_state(), c);
    ASSERT_TRUE(decided.ok()) << decided.error().message;
    EXPECT_EQ(std::get<ChargeCreated>(decided->front()).metadata, c.metadata);
}

}  // namespace
}  // namespace duepay::domain::charge
