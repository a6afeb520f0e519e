// Schema evolution (domain/events/upcast.hpp): a topic holding version 1 and version 2 of one type
// replays into the same read model. The production build has no version 2 yet, so the test brings
// its own table: it declares charge.paid at version 2 (today's form) with an upcaster from a
// version 1 that named the total "total". Decoding goes through the real decoder, the row through
// the projector's real mapping.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>
#include <vector>

#include "domain/events/event_json.hpp"
#include "domain/events/upcast.hpp"
#include "projections/charges/charge_projection.hpp"
#include "tests/unit/domain/events/examples.hpp"

namespace duepay::projections::charges {
namespace {

namespace ev = domain::events;
namespace ex = domain::events::examples;

// v1 -> v2 of the test's charge.paid: "total" became "confirmedTotal" (appended last, as the
// canonical order of v2 has it).
std::optional<std::string> rename_total(std::string& data_json) {
    rapidjson::Document data;
    data.Parse(data_json.c_str(), data_json.size());
    auto total = data.FindMember("total");
    if (total == data.MemberEnd()) return std::string("version 1 of charge.paid has no total");
    rapidjson::Value value(total->value, data.GetAllocator());
    data.RemoveMember("total");
    data.AddMember("confirmedTotal", value, data.GetAllocator());
    rapidjson::StringBuffer out;
    rapidjson::Writer<rapidjson::StringBuffer> writer(out);
    data.Accept(writer);
    data_json.assign(out.GetString(), out.GetSize());
    return std::nullopt;
}

constexpr ev::Upcaster kUpcasters[] = {{ev::ChargePaid::kType, 1, &rename_total}};
const ev::SchemaVersions kVersions{kUpcasters};

std::string replace(std::string s, const std::string& from, const std::string& to) {
    const auto at = s.find(from);
    EXPECT_NE(at, std::string::npos) << from << " in " << s;
    return at == std::string::npos ? s : s.replace(at, from.size(), to);
}

struct Stream {
    std::string created;
    std::string paid_v1;  // the old form
    std::string paid_v2;  // the current form
};

Stream stream() {
    auto created = ex::envelope("created-1", ex::created_data());
    auto& data = std::get<ev::ChargeCreated>(created.data);
    auto payment = ex::payment(ev::Rail::wallet, 102, "10073743");
    payment.token = data.token;
    auto paid = ex::envelope("paid-1", ev::ChargePaid{payment, data.amount});
    paid.occurred_at = "2026-11-21T22:03:00.000Z";
    const auto current = ev::encode_event(paid);
    const auto v2 = replace(current, R"("schemaVersion":1)", R"("schemaVersion":2)");
    auto v1 = replace(current, R"(,"confirmedTotal":)", R"(,"total":)");
    return {ev::encode_event(created), v1, v2};
}

std::vector<ev::Event> decode_all(const std::vector<std::string>& records) {
    std::vector<ev::Event> out;
    for (const auto& r : records) {
        auto e = ev::decode_event(r, kVersions);
        EXPECT_TRUE(e.ok()) << (e.ok() ? "" : e.error().message) << "\n" << r;
        if (e.ok()) out.push_back(std::move(e).value());
    }
    return out;
}

TEST(SchemaEvolution, VersionOneAndTwoOfATypeReplayIntoTheSameRow) {
    const auto s = stream();
    const auto old_events = decode_all({s.created, s.paid_v1});
    const auto new_events = decode_all({s.created, s.paid_v2});
    ASSERT_EQ(old_events.size(), 2u);
    ASSERT_EQ(new_events.size(), 2u);
    EXPECT_EQ(old_events[1], new_events[1]);  // upcast on read: one form in memory
    EXPECT_EQ(old_events[1].schema_version, 2u);
    const auto old_row = project_charge(old_events);
    const auto new_row = project_charge(new_events);
    ASSERT_TRUE(old_row && new_row);
    EXPECT_EQ(old_row->status, "paid");
    EXPECT_EQ(old_row->amount_confirmed, "10073743");
    EXPECT_EQ(old_row->timeline_json, new_row->timeline_json);
    EXPECT_EQ(old_row->updated_at, new_row->updated_at);
    EXPECT_EQ(old_row->amount_confirmed, new_row->amount_confirmed);
    // Written again, the upcast event is the current form byte for byte.
    EXPECT_EQ(ev::encode_event(old_events[1]), s.paid_v2);
}

TEST(SchemaEvolution, UnknownVersionsAndUnupcastableDataAreMalformed) {
    const auto s = stream();
    const auto v3 = replace(s.paid_v2, R"("schemaVersion":2)", R"("schemaVersion":3)");
    auto e = ev::decode_event(v3, kVersions);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message, "malformed event: schemaVersion: must be from 1 to 2");
    const auto v1_without_total = replace(s.paid_v1, R"(,"total":"10073743")", "");
    e = ev::decode_event(v1_without_total, kVersions);
    ASSERT_FALSE(e.ok());
    EXPECT_EQ(e.error().message,
              "malformed event: schemaVersion: version 1 of charge.paid has no total");
    // Other types are untouched by the table: still at version 1.
    EXPECT_EQ(kVersions.current(ev::ChargeCreated::kType), 1u);
    EXPECT_FALSE(ev::decode_event(
                     replace(s.created, R"("schemaVersion":1)", R"("schemaVersion":2)"), kVersions)
                     .ok());
}

TEST(SchemaEvolution, ThisBuildHasEveryTypeAtVersionOne) {
    for (const auto type : ev::kEventTypes) {
        EXPECT_EQ(ev::schema_versions().current(type), 1u) << type;
    }
    // ... and the production decoder reads the current form only.
    EXPECT_TRUE(ev::decode_event(stream().created).ok());
    EXPECT_FALSE(ev::decode_event(stream().paid_v1).ok());
}

}  // namespace
}  // namespace duepay::projections::charges
