// Schema evolution (domain/events/upcast.hpp): version 1 and version 2 of one type fold into the
// same read model row. The production build has no version 2 yet, so the test brings its own table
// (tests/support/paid_v2.hpp: charge.paid at version 2, today's form, upcast from a version 1 that
// named the total "total"). Decoding goes through the real decoder, the row through the
// projector's real mapping. The same over a real topic, projector and replay:
// tests/integration/analysts/schema_versions_test.cpp.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "domain/events/event_json.hpp"
#include "domain/events/upcast.hpp"
#include "projections/charges/charge_projection.hpp"
#include "tests/support/paid_v2.hpp"

namespace duepay::projections::charges {
namespace {

namespace ev = domain::events;
using tests::paid_v2::kVersions;
using tests::paid_v2::replace;
using tests::paid_v2::stream;

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
