// The pure event -> row mapping of the charges read model.
#include "projections/charges/charge_projection.hpp"

#include <gtest/gtest.h>

#include "domain/evm/address.hpp"
#include "domain/hex.hpp"

namespace duepay::projections::charges {
namespace {

namespace ev = domain::events;

domain::Address addr(const char* hex) { return domain::evm::parse_address(hex).value(); }

ev::Event created_event(ev::PaymentMode mode) {
    ev::Event e;
    e.id = "6f1c1c9e-3a55-4c1e-9d61-1f1f8f5a2b01";
    e.invoice_id.bytes.fill(0xab);
    e.project_id = "prj_demo";
    e.mode = ev::Mode::test;
    e.chain_id = domain::ChainId{80002};
    e.occurred_at = "2026-11-21T22:00:00.000Z";
    ev::ChargeCreated c;
    c.amount = domain::TokenAmount{1'500'000};
    c.token = addr("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    c.token_symbol = "USDT";
    c.token_decimals = 6;
    c.payment_mode = mode;
    c.merchant = addr("0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    c.fee_bps = 100;
    c.deadline = 1'795'300'000;
    if (mode != ev::PaymentMode::wallet)
        c.deposit_address = addr("0xdD51D3Fa2b0535649F1E81A4288c3b5B37626D98");
    c.reference = "order-42";
    e.data = c;
    return e;
}

ev::Event paid_event(const ev::Event& created, const char* id, std::uint64_t amount) {
    ev::Event e = created;
    e.id = id;
    e.occurred_at = "2026-11-21T22:05:00.000Z";
    ev::ChargePaid paid;
    paid.payment.rail = ev::Rail::wallet;
    paid.payment.tx_hash.fill(0x11);
    paid.payment.log_index = 3;
    paid.payment.block_number = 77;
    paid.payment.token = std::get<ev::ChargeCreated>(created.data).token;
    paid.payment.amount = domain::TokenAmount{amount};
    paid.confirmed_total = domain::TokenAmount{amount};
    e.data = paid;
    return e;
}

TEST(ChargeProjection, CreatedMapsEveryColumnAndStartsPending) {
    const auto created = created_event(ev::PaymentMode::both);
    const std::vector<ev::Event> events{created};
    const auto row = project_charge(events);
    ASSERT_TRUE(row.has_value());
    std::string expected_id = "0x";
    for (int i = 0; i < 32; ++i) expected_id += "ab";
    EXPECT_EQ(row->invoice_id, expected_id);
    EXPECT_EQ(row->project_id, "prj_demo");
    EXPECT_EQ(row->mode, "test");
    EXPECT_EQ(row->chain_id, 80002u);
    EXPECT_EQ(row->status, "pending");
    EXPECT_EQ(row->amount, "1500000");
    EXPECT_EQ(row->token,
              "0x5FbDB2315678afecb367f032d93F642f64180aa3");  // EIP-55, as the API shows it
    EXPECT_EQ(row->token_symbol, "USDT");
    EXPECT_EQ(row->token_decimals, 6);
    EXPECT_EQ(row->payment_mode, "both");
    EXPECT_EQ(row->merchant, "0x70997970C51812dc3A010C7d01b50e0d17dc79C8");
    EXPECT_EQ(row->fee_bps, 100);
    EXPECT_EQ(row->deadline, 1'795'300'000);
    EXPECT_EQ(row->deposit_address, "0xdD51D3Fa2b0535649F1E81A4288c3b5B37626D98");
    EXPECT_EQ(row->reference, "order-42");
    EXPECT_FALSE(row->fiat_json.has_value());
    EXPECT_EQ(row->amount_confirmed, "0");
    EXPECT_FALSE(row->exception.has_value());
    EXPECT_EQ(row->timeline_json,
              R"([{"status":"pending","at":"2026-11-21T22:00:00.000Z","txHash":null}])");
    EXPECT_EQ(row->event_count, 1);
    EXPECT_EQ(row->last_event_id, created.id);
    EXPECT_EQ(row->created_at, "2026-11-21T22:00:00.000Z");
    EXPECT_EQ(row->updated_at, "2026-11-21T22:00:00.000Z");
}

TEST(ChargeProjection, MetadataIsStoredAsAJsonObjectOrNull) {
    auto created = created_event(ev::PaymentMode::both);
    std::vector<ev::Event> events{created};
    EXPECT_FALSE(project_charge(events)->metadata_json.has_value());
    std::get<ev::ChargeCreated>(events[0].data).metadata = {{"order_id", "A-1"}, {"b", "\"q"}};
    const auto row = project_charge(events);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->metadata_json, R"({"b":"\"q","order_id":"A-1"})");
    EXPECT_TRUE(row_is_storable(*row));
}

TEST(ChargeProjection, PaidEventMovesStatusAmountsTimelineAndCounters) {
    const auto created = created_event(ev::PaymentMode::wallet);
    const std::vector<ev::Event> events{created, paid_event(created, "evt-paid", 1'600'000)};
    const auto row = project_charge(events);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->status, "paid");
    EXPECT_EQ(row->amount_confirmed, "1600000");
    EXPECT_EQ(row->exception, "overpaid");
    EXPECT_FALSE(row->deposit_address.has_value());
    EXPECT_EQ(row->event_count, 2);
    EXPECT_EQ(row->last_event_id, "evt-paid");
    EXPECT_EQ(row->updated_at, "2026-11-21T22:05:00.000Z");
    EXPECT_NE(row->timeline_json.find(R"("status":"paid")"), std::string::npos);
    EXPECT_NE(row->timeline_json.find("0x" + std::string(64, '1')), std::string::npos);
}

TEST(ChargeProjection, AResolutionIsRecordedAndTheExceptionListsFollowIt) {
    const auto created = created_event(ev::PaymentMode::wallet);
    std::vector<ev::Event> events{created, paid_event(created, "evt-paid", 1'600'000)};
    auto row = project_charge(events);
    EXPECT_EQ(row->open_exception, "overpaid");  // on the open list
    EXPECT_FALSE(row->exception_resolution_json.has_value());
    EXPECT_FALSE(row->exception_resolved_at.has_value());
    ev::Event resolved = created;
    resolved.id = "xr_1";
    resolved.occurred_at = "2026-11-22T09:30:00.000Z";
    resolved.data = ev::ExceptionResolved{
        ev::ResolvedException::overpaid, std::nullopt,
        ev::Actor{ev::ActorKind::wallet, "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
                  "ses_0123456789abcdef01234567"},
        "refunding the 0.1 extra"};
    events.push_back(resolved);
    row = project_charge(events);
    ASSERT_TRUE(row.has_value());
    EXPECT_EQ(row->status, "paid");  // unchanged
    EXPECT_EQ(row->exception, "overpaid");
    EXPECT_FALSE(row->open_exception.has_value());  // on the resolved list
    const std::string resolution =
        R"({"exception":"overpaid","refundId":null,"note":"refunding the 0.1 extra",)"
        R"("resolvedBy":{"kind":"wallet","id":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},)"
        R"("resolvedAt":"2026-11-22T09:30:00.000Z"})";
    EXPECT_EQ(row->exception_resolution_json, resolution);
    EXPECT_EQ(row->exception_resolved_at, "2026-11-22T09:30:00.000Z");
    EXPECT_NE(row->timeline_json.find(R"({"status":"paid","at":"2026-11-22T09:30:00.000Z",)"
                                      R"("txHash":null,"resolution":)" +
                                      resolution + "}"),
              std::string::npos)
        << row->timeline_json;
    EXPECT_EQ(row->timeline_json.find("ses_"), std::string::npos);  // the session stays inside
    EXPECT_TRUE(row_is_storable(*row));
}

TEST(ChargeProjection, NoRowUntilChargeCreatedIsSeen) {
    const auto created = created_event(ev::PaymentMode::wallet);
    const std::vector<ev::Event> orphan{paid_event(created, "evt-paid", 1'500'000)};
    EXPECT_FALSE(project_charge(orphan).has_value());
}

TEST(ChargeProjection, ToRowRejectsAFirstEventThatIsNotCreated) {
    const auto created = created_event(ev::PaymentMode::wallet);
    const auto paid = paid_event(created, "evt-paid", 1'500'000);
    EXPECT_THROW(to_row(domain::charge::initial_state(), paid, {paid.id, paid.occurred_at}, 1),
                 std::invalid_argument);
}

}  // namespace
}  // namespace duepay::projections::charges
