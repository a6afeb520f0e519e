// Which Postgres errors are the server's condition rather than the request's fault
// (infra/postgres/pool.hpp, docs/operations.md "Full disks"): those are DatabaseUnavailable (503),
// everything else stays as it is.
#include <gtest/gtest.h>

#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {
namespace {

TEST(UnavailableCondition, ResourceShutdownAndIoStatesAreNamed) {
    EXPECT_EQ(unavailable_condition("53100"), "disk full");
    EXPECT_EQ(unavailable_condition("53200"), "out of memory");
    EXPECT_EQ(unavailable_condition("53300"), "too many connections");
    EXPECT_EQ(unavailable_condition("53000"), "insufficient resources");
    EXPECT_EQ(unavailable_condition("53400"), "insufficient resources");
    EXPECT_EQ(unavailable_condition("57P01"), "shutting down");
    EXPECT_EQ(unavailable_condition("57P02"), "shutting down");
    EXPECT_EQ(unavailable_condition("57P03"), "starting up");
    EXPECT_EQ(unavailable_condition("58030"), "I/O error");
}

TEST(UnavailableCondition, TheRequestsOwnFaultsAreNot) {
    // data exception, unique violation, statement too complex, syntax error, query canceled,
    // serialization failure, an unknown state
    for (const char* state : {"22001", "23505", "54001", "42601", "57014", "40001", "", "5"}) {
        EXPECT_EQ(unavailable_condition(state), std::nullopt) << state;
    }
}

}  // namespace
}  // namespace duepay::infra::postgres
