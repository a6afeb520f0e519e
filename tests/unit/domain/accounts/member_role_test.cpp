// What each member role may do in the dashboard (domain/accounts/member_role.hpp), as one table.
#include "domain/accounts/member_role.hpp"

#include <gtest/gtest.h>

namespace duepay::domain::accounts {
namespace {

using A = ProjectAction;
using R = MemberRole;

TEST(MemberRole, TableOfRolesAndActions) {
    struct Row {
        A action;
        bool viewer, developer, admin, owner;
    };
    const Row table[] = {
        {A::read, true, true, true, true},
        {A::manage_keys, false, true, true, true},
        {A::manage_webhooks, false, true, true, true},
        {A::manage_charges, false, true, true, true},
        {A::manage_settings, false, false, true, true},
        {A::manage_members, false, false, true, true},
        {A::change_payout, false, false, false, true},
    };
    for (const auto& row : table) {
        const auto a = static_cast<int>(row.action);
        EXPECT_EQ(allowed(R::viewer, row.action), row.viewer) << a;
        EXPECT_EQ(allowed(R::developer, row.action), row.developer) << a;
        EXPECT_EQ(allowed(R::admin, row.action), row.admin) << a;
        EXPECT_EQ(allowed(R::owner, row.action), row.owner) << a;
    }
}

TEST(MemberRole, NamesRoundTripAndOnlyTheOwnerIsNotAssignable) {
    for (auto r : {R::viewer, R::developer, R::admin, R::owner}) {
        EXPECT_EQ(parse_role(role_name(r)), r);
        EXPECT_EQ(assignable(r), r != R::owner);
    }
    EXPECT_EQ(parse_role("Admin"), std::nullopt);
    EXPECT_EQ(parse_role(""), std::nullopt);
}

}  // namespace
}  // namespace duepay::domain::accounts
