// Given events / when command / then events (or a rejection), table by table: one table per
// command of decide (domain/charge/decide.hpp). The model is fmodel's decider test: the state
// is only ever the fold of the given events, so every row reads as a story.
#include "domain/charge/decide.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/evm/create2.hpp"
#include "domain/hex.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;

constexpr std::uint64_t kDeadline = 1'800'000'000;    // facts::created_data
constexpr std::uint64_t kLimit = kDeadline + 3600;    // + grace: the transfer limit
constexpr std::uint64_t kInWindow = kDeadline - 100;  // a block time inside the window
constexpr std::uint64_t kAfterLimit = kLimit + 1;     // the first second past it
constexpr std::uint64_t kConfirmations = 2;

struct Row {
    std::string name;
    std::vector<Event> given;
    Command when;
    std::vector<EventData> then;  // ignored when `rejected` is set
    std::string rejected;         // the stable code of the rejection
};

void run(const std::vector<Row>& table) {
    for (const auto& row : table) {
        SCOPED_TRACE(row.name);
        const auto got = decide(fold(row.given), row.when);
        if (!row.rejected.empty()) {
            ASSERT_FALSE(got.ok()) << "expected the rejection " << row.rejected;
            EXPECT_EQ(got.error().code, row.rejected);
            continue;
        }
        ASSERT_TRUE(got.ok()) << got.error().code << ": " << got.error().message;
        EXPECT_EQ(*got, row.then);
    }
}

// Seen `depth` blocks deep (1: the head), of kConfirmations.
ObservePayment seen(const Payment& p, std::uint64_t block_time, std::uint64_t depth) {
    return ObservePayment{p, block_time, depth, kConfirmations};
}
ObservePayment below_depth(const Payment& p, std::uint64_t t = kInWindow) { return seen(p, t, 1); }
ObservePayment at_depth(const Payment& p, std::uint64_t t = kInWindow) {
    return seen(p, t, kConfirmations);
}

TokenAmount amount(std::uint64_t v) { return TokenAmount{v}; }

TEST(Decide, ObservePaymentBelowConfirmationDepth) {
    const Payment t100 = payment(0xa1, 100);
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment remined = payment(0xa1, 100, Rail::transfer, 2, 1);
    const Payment other = payment(0xa1, 100, Rail::transfer, 1, 0, kOtherToken);
    run({
        {"a transfer in the window is detected",
         {created(100)},
         below_depth(t100),
         {PaymentDetected{t100}},
         ""},
        {"the same detection again is nothing",
         {created(100), detected("d", t100)},
         below_depth(t100),
         {},
         ""},
        {"re-mined in another block: a new detection",
         {created(100), detected("d", t100)},
         below_depth(remined),
         {PaymentDetected{remined}},
         ""},
        {"another token is not detected (decided at depth)",
         {created(100)},
         below_depth(other),
         {},
         ""},
        {"a transfer past the limit is not detected",
         {created(100)},
         below_depth(t100, kAfterLimit),
         {},
         ""},
        {"a transfer after expiry is not detected",
         {created(100), expired()},
         below_depth(t100),
         {},
         ""},
        {"the router enforces the wallet deadline: detected",
         {created(100)},
         below_depth(w100, kAfterLimit),
         {PaymentDetected{w100}},
         ""},
        {"a decided payment is not detected again",
         {created(100), deposit("d", t100)},
         below_depth(t100),
         {},
         ""},
        {"before charge.created: rejected", {}, below_depth(t100), {}, "charge_not_created"},
    });
}

TEST(Decide, ObservePaymentAtConfirmationDepth) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xa1, 40);
    const Payment t60 = payment(0xb2, 60);
    const Payment t30 = payment(0xb2, 30);
    const Payment t100 = payment(0xb2, 100);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    run({
        {"wallet: paid", {created(100)}, at_depth(w100), {ChargePaid{w100, amount(100)}}, ""},
        {"wallet after expiry: still paid (the router checked the deadline)",
         {created(100), expired()},
         at_depth(w100, kAfterLimit),
         {ChargePaid{w100, amount(100)}},
         ""},
        {"a first deposit below the amount: seen, underpaid",
         {created(100)},
         at_depth(t40),
         {DepositSeen{t40}, ChargeUnderpaid{t40, amount(40)}},
         ""},
        {"a top-up reaching the amount: seen, paid",
         {created(100), deposit("d", t40), underpaid("u", t40, 40)},
         at_depth(t60),
         {DepositSeen{t60}, ChargePaid{t60, amount(100)}},
         ""},
        {"one deposit of the amount: seen, paid",
         {created(100)},
         at_depth(t100),
         {DepositSeen{t100}, ChargePaid{t100, amount(100)}},
         ""},
        {"a deposit to a paid charge: seen only (overpaid)",
         {created(100), paid("p", w100, 100)},
         at_depth(t30),
         {DepositSeen{t30}},
         ""},
        {"a deposit mined past the limit: late",
         {created(100)},
         at_depth(t30, kAfterLimit),
         {LateDeposit{t30}},
         ""},
        {"a deposit confirmed after expiry: late",
         {created(100), expired()},
         at_depth(t30),
         {LateDeposit{t30}},
         ""},
        {"a deposit in another token: failed",
         {created(100)},
         at_depth(other),
         {ChargeFailed{FailureReason::wrong_token, other}},
         ""},
        {"the detected payment confirmed: seen, underpaid",
         {created(100), detected("d", t40)},
         at_depth(t40),
         {DepositSeen{t40}, ChargeUnderpaid{t40, amount(40)}},
         ""},
        {"already confirmed: nothing", {created(100), deposit("d", t40)}, at_depth(t40), {}, ""},
        {"already late: nothing", {created(100), expired(), late("l", t40)}, at_depth(t40), {}, ""},
        {"already failed: nothing", {created(100), failed("f", other)}, at_depth(other), {}, ""},
        {"before charge.created: rejected", {}, at_depth(t40), {}, "charge_not_created"},
    });
}

// The total decide reports is the total evolve keeps: both add with saturation.
TEST(Decide, TotalsAddLikeEvolve) {
    const uint256 max = ~uint256(0);
    Event big = created(1);
    std::get<ChargeCreated>(big.data).amount = TokenAmount{max};
    Payment first = payment(0xa1, 0);
    first.amount = TokenAmount{max - 1};
    const Payment second = payment(0xb2, 5);
    const ChargeState s = fold(std::vector{big, deposit("d", first)});
    ASSERT_EQ(s.status, Status::underpaid);
    const auto got = decide(s, at_depth(second));
    ASSERT_TRUE(got.ok());
    const std::vector<EventData> want{DepositSeen{second}, ChargePaid{second, TokenAmount{max}}};
    EXPECT_EQ(*got, want);
    ChargeState after = s;
    for (const auto& data : *got) apply(after, event(std::string(event_type(data)), data));
    EXPECT_EQ(after.status, Status::paid);
    EXPECT_EQ(after.amount_confirmed.value, max);
}

TEST(Decide, ObserveReorg) {
    const Payment a = payment(0xa1, 100, Rail::transfer, 7, 0);
    const ObserveReorg orphaned{a.tx_hash, a.log_index, a.block_number, a.block_hash};
    const ObserveReorg other_block{a.tx_hash, a.log_index, a.block_number, bytes32(7, 9)};
    run({
        {"a detection in the orphaned block is withdrawn",
         {created(100), detected("d", a)},
         orphaned,
         {PaymentReorged{a.tx_hash, a.log_index, a.block_number, a.block_hash}},
         ""},
        {"a detection in another block stays",
         {created(100), detected("d", a)},
         other_block,
         {},
         ""},
        {"nothing detected: nothing to withdraw", {created(100)}, orphaned, {}, ""},
        {"a confirmed payment is not withdrawn",
         {created(100), detected("d", a), deposit("s", a)},
         orphaned,
         {},
         ""},
        {"before charge.created: rejected", {}, orphaned, {}, "charge_not_created"},
    });
}

TEST(Decide, ObserveBlockExpiresByChainTime) {
    Event wallet_only = created(100);
    auto& w = std::get<ChargeCreated>(wallet_only.data);
    w.payment_mode = PaymentMode::wallet;
    w.grace_seconds = 0;
    w.deposit_address.reset();
    const Payment a40 = payment(0xa1, 40);
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    run({
        {"at the limit: not yet", {created(100)}, ObserveBlock{9, kLimit}, {}, ""},
        {"past deadline + grace: expired",
         {created(100)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"wallet only: past the deadline, no grace",
         {wallet_only},
         ObserveBlock{9, kDeadline + 1},
         {ChargeExpired{kDeadline, 0, 9, kDeadline + 1}},
         ""},
        {"wallet only: at the deadline, not yet",
         {wallet_only},
         ObserveBlock{9, kDeadline},
         {},
         ""},
        {"underpaid: expired",
         {created(100), deposit("d", a40), underpaid("u", a40, 40)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"an unconfirmed detection does not hold expiry",
         {created(100), detected("d", a40)},
         ObserveBlock{9, kAfterLimit},
         {ChargeExpired{kDeadline, 3600, 9, kAfterLimit}},
         ""},
        {"paid: never expires",
         {created(100), paid("p", w100, 100)},
         ObserveBlock{9, kAfterLimit},
         {},
         ""},
        {"expired once", {created(100), expired()}, ObserveBlock{10, kAfterLimit + 12}, {}, ""},
        {"before charge.created: rejected",
         {},
         ObserveBlock{9, kAfterLimit},
         {},
         "charge_not_created"},
    });
}

TEST(Decide, Settlement) {
    const ChargeSettled sweep{bytes32(0xee), 600, address(0x55), kToken, amount(100)};
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    run({
        {"a sweep is recorded",
         {created(100), paid("p", w100, 100)},
         ObserveSettlement{sweep},
         {sweep},
         ""},
        {"a sweep before charge.created: rejected",
         {},
         ObserveSettlement{sweep},
         {},
         "charge_not_created"},
    });
}

// Refunds: the merchant's request, then chainwatch's observation of the receipt.
const std::string kRefund = "rf_" + std::string(24, 'a');
const Bytes32 kRefundTx = bytes32(0xef);
const Address kMerchant = address(0x44);  // facts::created_data
const Address kBuyer = address(0x22);
const std::string kAsked = "2026-11-21T22:00:00.000Z";  // facts::event's occurredAt
const std::int64_t kAskedMs = 1'795'298'400'000;
constexpr std::int64_t kBound = 600'000;

Event requested(std::string id = kRefund) {
    return event(id, RefundRequested{id, kRefundTx}, kAsked);
}
Event recorded(std::uint64_t value, std::string id = kRefund, std::uint32_t log = 1) {
    return event(id + ":done",
                 ChargeRefunded{id, kRefundTx, log, 700, kBuyer, kToken, amount(value)});
}

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

Create create_command(PaymentMode mode) {
    Create c;
    c.invoice_id = kInvoice;
    c.amount = amount(100);
    c.token = kToken;
    c.token_symbol = "USDT";
    c.token_decimals = 6;
    c.payment_mode = mode;
    c.merchant = address(0x44);
    c.fee_bps = 100;
    c.now_seconds = 1'700'000'000;
    c.expires_in = 900;
    c.grace_seconds = 3600;
    c.deposit_factory = address(0x77);
    c.forwarder_init_code_hash = bytes32(0x88);
    c.reference = "order-1";
    return c;
}

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
    run({
        {"a second create", {created(100)}, create_command(PaymentMode::both), {}, "charge_exists"},
        {"a zero amount", {}, zero, {}, "invalid_amount"},
        {"a metadata key with a space", {}, bad_key, {}, "invalid_metadata"},
        {"a metadata value over 500 characters", {}, long_value, {}, "invalid_metadata"},
    });
}

TEST(Decide, CreateCarriesTheMetadata) {
    auto c = create_command(PaymentMode::wallet);
    c.metadata = {{"order_id", "A-1"}, {"note", std::string(500, 'x')}};
    const auto decided = decide(initial_state(), c);
    ASSERT_TRUE(decided.ok()) << decided.error().message;
    EXPECT_EQ(std::get<ChargeCreated>(decided->front()).metadata, c.metadata);
}

// When chainwatch may forget a charge: a table of (given events, chain time, retain) -> done.
TEST(Decide, DoneChargesAfterTheRetainWindow) {
    const Payment w100 = payment(0xa1, 100, Rail::wallet);
    const Payment t40 = payment(0xb2, 40);
    const Payment other = payment(0xf1, 5, Rail::transfer, 1, 0, kOtherToken);
    const ChargeSettled sweep{bytes32(0xee), 600, address(0x55), kToken, amount(40)};
    Event wallet_only = created(100);
    auto& w = std::get<ChargeCreated>(wallet_only.data);
    w.payment_mode = PaymentMode::wallet;
    w.grace_seconds = 0;
    w.deposit_address.reset();
    struct Case {
        std::string name;
        std::vector<Event> given;
        std::uint64_t chain_time;
        std::uint64_t retain;
        bool done;
    };
    const std::vector<Case> table{
        {"paid by wallet, past limit + retain",
         {created(100), paid("p", w100, 100)},
         kLimit + 11,
         10,
         true},
        {"paid, within the retain window (late deposits still recorded)",
         {created(100), paid("p", w100, 100)},
         kLimit + 10,
         10,
         false},
        {"paid before the limit", {created(100), paid("p", w100, 100)}, kDeadline, 0, false},
        {"expired without funds", {created(100), expired()}, kAfterLimit, 0, true},
        {"wallet only, expired past the deadline",
         {wallet_only, expired()},
         kDeadline + 1,
         0,
         true},
        {"pending past the limit (expiry not decided yet)", {created(100)}, kAfterLimit, 0, false},
        {"a detection still unconfirmed",
         {created(100), expired(), detected("d", t40)},
         kAfterLimit,
         0,
         false},
        {"deposits at the address, not swept",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired()},
         kAfterLimit,
         0,
         false},
        {"deposits at the address, swept",
         {created(100), deposit("d", t40), underpaid("u", t40, 40), expired(), event("s", sweep)},
         kAfterLimit,
         0,
         true},
        {"wrong token at the address, not swept",
         {created(100), failed("f", other)},
         kAfterLimit,
         0,
         false},
        {"never created", {}, kAfterLimit, 0, false},
        {"paid, a refund waiting for its verdict",
         {created(100), paid("p", w100, 100), requested()},
         kLimit + 11,
         10,
         false},
        {"paid, the refund rejected",
         {created(100), paid("p", w100, 100), requested(),
          event(kRefund + ":rejected",
                RefundRejected{kRefund, kRefundTx, RefundRejection::not_found})},
         kLimit + 11,
         10,
         true},
    };
    for (const auto& c : table) {
        EXPECT_EQ(done(fold(c.given), c.chain_time, c.retain), c.done) << c.name;
    }
}

// decide's events, folded, are the state the decision meant: a wallet payment end to end.
TEST(Decide, DecidedEventsFoldToTheDecidedStatus) {
    ChargeState s = initial_state();
    const Payment w = payment(0xa1, 100, Rail::wallet);
    const std::vector<Command> story{create_command(PaymentMode::both), below_depth(w), at_depth(w),
                                     ObserveBlock{9, 1'700'000'901 + 3600}};
    const std::vector<Status> after{Status::pending, Status::confirming, Status::paid,
                                    Status::paid};
    for (std::size_t i = 0; i < story.size(); ++i) {
        const auto events = decide(s, story[i]);
        ASSERT_TRUE(events.ok()) << i;
        for (std::size_t j = 0; j < events->size(); ++j) {
            apply(s, event(std::to_string(i * 10 + j), (*events)[j]));
        }
        EXPECT_EQ(s.status, after[i]) << i;
    }
}

}  // namespace
}  // namespace duepay::domain::charge
