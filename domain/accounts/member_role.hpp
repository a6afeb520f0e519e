// Project members and what each role may do in the merchant dashboard (docs/security.md, Roles):
// the one table the dashboard's routes consult, on the server, for every action. Pure.
//
//   action            viewer  developer  admin  owner
//   read                 x        x        x      x     every page of the project
//   manage_keys                   x        x      x     create, show a test key again, revoke, roll
//   manage_webhooks               x        x      x     create, edit, disable, enable, delete,
//                                                        rotate the secret, send a test event,
//                                                        redeliver (ADR 0235)
//   manage_charges                x        x      x     resolve an exception, record a refund
//   manage_settings                        x      x     name, branding, payment window
//   manage_members                         x      x     add, change, remove (never the owner)
//   change_payout                                 x     the payout wallet (with its signature)
#pragma once

#include <optional>
#include <string_view>

namespace duepay::domain::accounts {

enum class MemberRole { viewer, developer, admin, owner };

enum class ProjectAction {
    read,
    manage_keys,
    manage_webhooks,
    manage_charges,
    manage_settings,
    manage_members,
    change_payout,
};

// Whether `role` may do `action`.
bool allowed(MemberRole role, ProjectAction action);

// "viewer", "developer", "admin", "owner".
std::string_view role_name(MemberRole role);
// The inverse of role_name; nullopt for anything else.
std::optional<MemberRole> parse_role(std::string_view text);
// The roles a member can be given (every one but owner: a project has exactly one owner, its
// creator).
bool assignable(MemberRole role);

}  // namespace duepay::domain::accounts
