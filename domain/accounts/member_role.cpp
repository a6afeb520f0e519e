#include "domain/accounts/member_role.hpp"

namespace duepay::domain::accounts {

bool allowed(MemberRole role, ProjectAction action) {
    switch (action) {
        case ProjectAction::read:
            return true;
        case ProjectAction::manage_keys:
        case ProjectAction::manage_webhooks:
        case ProjectAction::manage_charges:
            return role != MemberRole::viewer;
        case ProjectAction::manage_settings:
        case ProjectAction::manage_members:
            return role == MemberRole::admin || role == MemberRole::owner;
        case ProjectAction::change_payout:
            return role == MemberRole::owner;
    }
    return false;
}

std::string_view role_name(MemberRole role) {
    switch (role) {
        case MemberRole::viewer:
            return "viewer";
        case MemberRole::developer:
            return "developer";
        case MemberRole::admin:
            return "admin";
        case MemberRole::owner:
            return "owner";
    }
    return "viewer";
}

std::optional<MemberRole> parse_role(std::string_view text) {
    for (auto r : {MemberRole::viewer, MemberRole::developer, MemberRole::admin, MemberRole::owner})
        if (role_name(r) == text) return r;
    return std::nullopt;
}

bool assignable(MemberRole role) { return role != MemberRole::owner; }

}  // namespace duepay::domain::accounts
