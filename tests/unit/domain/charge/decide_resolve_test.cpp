// decide's ResolveException (ADR 0230), table by table: which issue a resolve resolves, the two
// rejections (nothing to resolve, already resolved), the note's rule and the actor's form. The
// rows are decide_rows.hpp's; evolve's side is in evolve_test.cpp (Resolution*).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/unit/domain/charge/decide_rows.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;
using RX = ResolvedException;

ResolveException by_key(std::string note = "called the buyer") {
    return ResolveException{key_actor(), std::move(note)};
}

ExceptionResolved resolution(RX x, std::optional<std::string> refund = std::nullopt,
                             std::string note = "called the buyer", Actor by = key_actor()) {
    return ExceptionResolved{x, std::move(refund), std::move(by), std::move(note)};
}

Event rejected_refund(std::string id = kRefund) {
    return event(id + ":rejected", RefundRejected{id, kRefundTx, RefundRejection::wrong_sender});
}

TEST(Decide, ResolveTheOpenIssue) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xa2, 40);
    const Payment t60 = payment(0xa3, 60);
    const Payment t150 = payment(0xa4, 150);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    run({
        {"underpaid (still open): resolved as partial",
         {created(100), deposit("d", t40), underpaid("u", t40, 40)},
         by_key(),
         {resolution(RX::partial)},
         ""},
        {"expired with part of the amount: partial",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired()},
         by_key(),
         {resolution(RX::partial)},
         ""},
        {"overpaid",
         {created(100), deposit("d", t150), paid("p", t150, 150)},
         by_key(),
         {resolution(RX::overpaid)},
         ""},
        {"paid late",
         {created(100), deposit("d", t40), expired(), late("l", t60)},
         by_key(),
         {resolution(RX::paid_late)},
         ""},
        {"a wrong-token deposit (failed)",
         {created(100), failed("f", other)},
         by_key(),
         {resolution(RX::wrong_token)},
         ""},
        {"a rejected refund of a paid charge: the refund is named",
         {created(100), paid("p", w100, 100), requested(), rejected_refund()},
         by_key(),
         {resolution(RX::refund_rejected, kRefund)},
         ""},
        {"the charge's exception comes before a rejected refund",
         {created(100), deposit("d", t150), paid("p", t150, 150), requested(), rejected_refund()},
         by_key(),
         {resolution(RX::overpaid)},
         ""},
        {"the exception resolved: the rejected refund is next",
         {created(100), deposit("d", t150), paid("p", t150, 150), requested(), rejected_refund(),
          resolved("r1", RX::overpaid)},
         by_key(),
         {resolution(RX::refund_rejected, kRefund)},
         ""},
        {"resolved as partial, then a late deposit completes it: paid late is a new issue",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired(),
          resolved("r1", RX::partial), late("l", t60)},
         by_key(),
         {resolution(RX::paid_late)},
         ""},
        {"a wallet in a dashboard session, the note normalized",
         {created(100), deposit("d", t40), underpaid("u", t40, 40)},
         ResolveException{wallet_actor(), "  line one\r\nline two \n"},
         {resolution(RX::partial, std::nullopt, "line one\nline two", wallet_actor())},
         ""},
    });
}

TEST(Decide, ResolveRejections) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xa2, 40);
    const Payment t150 = payment(0xa4, 150);
    const std::vector<Event> under = {created(100), deposit("d", t40), underpaid("u", t40, 40)};
    run({
        {"pending: nothing to resolve", {created(100)}, by_key(), {}, "nothing_to_resolve"},
        {"confirming: nothing to resolve",
         {created(100), detected("t", w100)},
         by_key(),
         {},
         "nothing_to_resolve"},
        {"paid exactly: nothing to resolve",
         {created(100), paid("p", w100, 100)},
         by_key(),
         {},
         "nothing_to_resolve"},
        {"expired without deposits: nothing to resolve",
         {created(100), expired()},
         by_key(),
         {},
         "nothing_to_resolve"},
        {"a pending refund request is not an issue",
         {created(100), paid("p", w100, 100), requested()},
         by_key(),
         {},
         "nothing_to_resolve"},
        {"refunded in full: the refund settled the overpayment",
         {created(100), deposit("d", t150), paid("p", t150, 150), requested(), recorded(150)},
         by_key(),
         {},
         "nothing_to_resolve"},
        {"resolved once: already resolved",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), resolved("r1", RX::partial)},
         by_key(),
         {},
         "exception_already_resolved"},
        {"underpaid, then expired: still the partial that was resolved",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), resolved("r1", RX::partial),
          expired()},
         by_key(),
         {},
         "exception_already_resolved"},
        {"an empty note", under, by_key(""), {}, "invalid_note"},
        {"a note of spaces and line breaks", under, by_key(" \r\n\t "), {}, "invalid_note"},
        {"a note one character too long", under, by_key(std::string(501, 'x')), {}, "invalid_note"},
        {"a note with a control character", under, by_key("bell\a"), {}, "invalid_note"},
        {"a note of invalid UTF-8", under, by_key("\xc3\x28"), {}, "invalid_note"},
        {"a key actor with a session",
         under,
         ResolveException{Actor{ActorKind::key, "key_x", "ses_y"}, "n"},
         {},
         "invalid_actor"},
        {"a wallet actor without a session",
         under,
         ResolveException{Actor{ActorKind::wallet, "0x" + std::string(40, 'a'), {}}, "n"},
         {},
         "invalid_actor"},
        {"a wallet actor in EIP-55 case",
         under,
         ResolveException{Actor{ActorKind::wallet, "0x" + std::string(40, 'A'), "ses_y"}, "n"},
         {},
         "invalid_actor"},
        {"before charge.created", {}, by_key(), {}, "charge_not_created"},
    });
}

TEST(Decide, ResolveNoteBounds) {
    const Payment t40 = payment(0xa2, 40);
    const auto s = fold(std::vector{created(100), deposit("d", t40), underpaid("u", t40, 40)});
    // 500 characters (code points, not bytes) is the bound: Thai letters are 3 bytes each.
    std::string thai;
    for (int i = 0; i < 500; ++i) thai += "\xe0\xb8\x81";
    auto ok = decide(s, by_key(thai));
    ASSERT_TRUE(ok.ok()) << ok.error().message;
    EXPECT_EQ(std::get<ExceptionResolved>(ok->front()).note, thai);
    EXPECT_FALSE(decide(s, by_key(thai + "\xe0\xb8\x81")).ok());
    // Surrounding whitespace does not count toward the bound.
    EXPECT_TRUE(decide(s, by_key("  " + std::string(500, 'x') + "\n")).ok());
    EXPECT_EQ(decide(s, by_key("")).error().message, decide(s, by_key(" ")).error().message);
}

}  // namespace
}  // namespace duepay::domain::charge
