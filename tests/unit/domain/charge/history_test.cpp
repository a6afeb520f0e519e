// Point-in-time history: fold_as_of folds only the events that occurred at or before the instant,
// with the same apply as fold (given events / as of T / then status and timeline).
#include <gtest/gtest.h>

#include <vector>

#include "domain/charge/charge_state.hpp"
#include "tests/unit/domain/charge/facts.hpp"

namespace duepay::domain::charge {
namespace {

using namespace facts;

std::vector<Event> history() {
    const Payment p = payment(0xa1, 100, Rail::wallet);
    auto c = created(100);
    c.occurred_at = "2026-11-21T22:00:00.000Z";
    auto d = detected("det-a", p);
    d.occurred_at = "2026-11-21T22:05:00.000Z";
    auto paid_event = paid("paid-a", p, 100);
    paid_event.occurred_at = "2026-11-21T22:06:30.500Z";
    return {c, d, paid_event};
}

TEST(FoldAsOf, EachInstantSeesOnlyWhatHadOccurred) {
    const auto events = history();
    EXPECT_FALSE(fold_as_of(events, "2026-11-21T21:59:59.999Z").created);
    EXPECT_EQ(fold_as_of(events, "2026-11-21T22:00:00.000Z").status, Status::pending);
    EXPECT_EQ(fold_as_of(events, "2026-11-21T22:05:00.000Z").status, Status::confirming);
    EXPECT_EQ(fold_as_of(events, "2026-11-21T22:06:30.499Z").status, Status::confirming);
    const auto now = fold_as_of(events, "2026-11-21T22:06:30.500Z");
    EXPECT_EQ(now.status, Status::paid);
    EXPECT_EQ(now, fold(events));  // the latest instant is the plain fold
    EXPECT_EQ(fold_as_of(events, "2026-11-21T22:05:00.000Z").timeline.size(), 2u);
}

}  // namespace
}  // namespace duepay::domain::charge
