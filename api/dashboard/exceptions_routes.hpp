// The dashboard's exceptions (docs/dashboard.md "Exceptions", ADR 0230):
//   GET  /p/:projectId/exceptions[?view=resolved]           charges that need a person, of the
//                                                            mode (read: every member)
//   POST /p/:projectId/exceptions/:invoiceId/resolve        {note}: charge.exception_resolved
//   POST /p/:projectId/exceptions/:invoiceId/refund         {tx_hash}: the REST refund's rule
// The two actions need ProjectAction::manage_charges (a viewer gets 403 and nothing is appended)
// and run the REST routes' commands (api/http/charge_command.hpp) with the signed-in wallet and
// its session as the actor; each answers once the event log has spoken.
#pragma once

#include "api/dashboard/project_scope.hpp"
#include "api/http/charge_command.hpp"

namespace duepay::api::dashboard {

struct ExceptionsDeps {
    ports::ChargeLister* lister = nullptr;
    ChargeCommandDeps commands;  // the charge reader and history, the event log, the clock
};

// Adds the routes above; `scope` and the deps' ports must outlive the table.
void add_exceptions_routes(RouteTable& routes, const ProjectScope& scope, ExceptionsDeps deps);

}  // namespace duepay::api::dashboard
