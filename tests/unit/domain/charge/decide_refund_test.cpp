// decide's refund commands, table by table (RequestRefund, ObserveRefund) and the refund id.
// The rows are decide_rows.hpp's.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/domain/charge/decide_rows.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;

TokenTransfer transfer(std::uint64_t value, std::uint32_t log = 1, const Address& from = kMerchant,
                       const Address& token = kToken) {
    return TokenTransfer{log, token, from, kBuyer, amount(value)};
}

ObserveRefund observed(std::vector<TokenTransfer> transfers, std::uint64_t depth = kConfirmations,
                       bool success = true) {
    ObserveRefund o;
    o.refund_id = kRefund;
    o.receipt = RefundReceipt{success, 700, std::move(transfers)};
    o.depth = depth;
    o.confirmations = kConfirmations;
    o.now_ms = kAskedMs + 1000;
    o.not_found_after_ms = kBound;
    return o;
}

ObserveRefund missing(std::int64_t after_ms) {
    ObserveRefund o;
    o.refund_id = kRefund;
    o.now_ms = kAskedMs + after_ms;
    o.not_found_after_ms = kBound;
    return o;
}

TEST(Decide, RequestRefund) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xa2, 40);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    const RequestRefund ask{kRefund, kRefundTx};
    EXPECT_EQ(kAskedMs, events::parse_rfc3339_millis(kAsked));
    run({
        {"a paid charge: the request is recorded",
         {created(100), paid("p", w100, 100)},
         ask,
         {RefundRequested{kRefund, kRefundTx}},
         ""},
        {"an underpaid charge holds funds too",
         {created(100), deposit("d", t40), underpaid("u", t40, 40)},
         ask,
         {RefundRequested{kRefund, kRefundTx}},
         ""},
        {"asked again: the same refund, nothing new",
         {created(100), paid("p", w100, 100), requested()},
         ask,
         {},
         ""},
        {"a pending charge holds nothing: rejected",
         {created(100)},
         ask,
         {},
         "charge_not_refundable"},
        {"an expired charge without deposits: rejected",
         {created(100), expired()},
         ask,
         {},
         "charge_not_refundable"},
        {"only a wrong-token deposit (no funds of the charge's token): rejected",
         {created(100), failed("f", other)},
         ask,
         {},
         "charge_not_refundable"},
        {"refunded in full already: rejected",
         {created(100), paid("p", w100, 100), requested("rf_" + std::string(24, 'b')),
          recorded(100, "rf_" + std::string(24, 'b'))},
         ask,
         {},
         "charge_not_refundable"},
        {"before charge.created: rejected", {}, ask, {}, "charge_not_created"},
    });
}

TEST(Decide, ObserveRefund) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const std::vector<Event> asked{created(100), paid("p", w100, 100), requested()};
    auto with = [&](std::vector<Event> more) {
        auto given = asked;
        given.insert(given.end(), more.begin(), more.end());
        return given;
    };
    auto rejected = [](RefundRejection why) {
        return std::vector<EventData>{RefundRejected{kRefund, kRefundTx, why}};
    };
    ObserveRefund claimed = observed({transfer(60, 1), transfer(40, 2)});
    claimed.claimed = {1};
    run({
        {"a transfer of the token from the merchant at depth: recorded",
         asked,
         observed({transfer(100)}),
         {ChargeRefunded{kRefund, kRefundTx, 1, 700, kBuyer, kToken, amount(100)}},
         ""},
        {"below confirmation depth: nothing yet (a reorg may still remove it)",
         asked,
         observed({transfer(100)}, 1),
         {},
         ""},
        {"a partial refund is recorded",
         asked,
         observed({transfer(30)}),
         {ChargeRefunded{kRefund, kRefundTx, 1, 700, kBuyer, kToken, amount(30)}},
         ""},
        {"the first transfer no other charge recorded",
         asked,
         claimed,
         {ChargeRefunded{kRefund, kRefundTx, 2, 700, kBuyer, kToken, amount(40)}},
         ""},
        {"more than the charge received: rejected", asked, observed({transfer(101)}),
         rejected(RefundRejection::exceeds_paid), ""},
        {"more than what is left after an earlier refund: rejected",
         {created(100), paid("p", w100, 100), requested("rf_" + std::string(24, 'c')),
          recorded(70, "rf_" + std::string(24, 'c'), 9), requested()},
         observed({transfer(31)}),
         rejected(RefundRejection::exceeds_paid),
         ""},
        {"another token from the merchant: rejected", asked,
         observed({transfer(100, 1, kMerchant, kOtherToken)}),
         rejected(RefundRejection::wrong_token), ""},
        {"the token from another sender: rejected", asked,
         observed({transfer(100, 1, address(0x99))}), rejected(RefundRejection::wrong_sender), ""},
        {"no transfer at all: rejected", asked, observed({}),
         rejected(RefundRejection::no_transfer), ""},
        {"a reverted transaction: rejected", asked,
         observed({transfer(100)}, kConfirmations, false),
         rejected(RefundRejection::transaction_failed), ""},
        {"no receipt within the bound: nothing yet", asked, missing(kBound), {}, ""},
        {"no receipt after the bound: rejected", asked, missing(kBound + 1),
         rejected(RefundRejection::not_found), ""},
        {"decided already: nothing", with({recorded(100)}), observed({transfer(100)}), {}, ""},
        {"an unknown refund id: nothing",
         {created(100), paid("p", w100, 100)},
         missing(kBound + 1),
         {},
         ""},
    });
}

TEST(Decide, RefundIdIsStablePerChargeAndTransaction) {
    const auto id = refund_id(kInvoice, kRefundTx);
    EXPECT_EQ(id.size(), 27u);
    EXPECT_TRUE(id.starts_with("rf_"));
    EXPECT_EQ(id, refund_id(kInvoice, kRefundTx));
    EXPECT_NE(id, refund_id(kInvoice, bytes32(0xee)));
    EXPECT_NE(id, refund_id(InvoiceId{bytes32(0x12)}, kRefundTx));
}

}  // namespace
}  // namespace duepay::domain::charge
