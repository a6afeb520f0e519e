// The dashboard's exceptions (docs/dashboard.md "Exceptions", ADR 0230):
//   GET  /p/:projectId/exceptions[?view=resolved]           charges that need a person, of the
//                                                            mode (read: every member)
//   POST /p/:projectId/exceptions/:invoiceId/resolve        {note}: charge.exception_resolved
//   POST /p/:projectId/exceptions/:invoiceId/refund         {tx_hash}: the REST refund's rule
//   (the charge page posts the same form to /p/:projectId/charges/:invoiceId/refund:
//   record_refund_form below, added by dashboard_routes.cpp)
// The two actions need ProjectAction::manage_charges (a viewer gets 403 and nothing is appended)
// and run the REST routes' commands (api/http/charge_command.hpp) with the signed-in wallet and
// its session as the actor; each answers once the event log has spoken.
#pragma once

#include <functional>
#include <string>

#include "api/dashboard/project_scope.hpp"
#include "api/http/charge_command.hpp"

namespace duepay::api::dashboard {

struct ExceptionsDeps {
    ports::ChargeLister* lister = nullptr;
    ChargeCommandDeps commands;  // the charge reader and history, the event log, the clock
};

// Adds the routes above; `scope` and the deps' ports must outlive the table.
void add_exceptions_routes(RouteTable& routes, const ProjectScope& scope, ExceptionsDeps deps);

// What a form action answers: `taken` (the event log took it; `message` is the notice's words)
// or not (`status` and `message` are the refusal's).
struct FormOutcome {
    bool taken = false;
    int status = 200;
    std::string message;
};
using FormAnswer = std::function<ApiResponse(ProjectContext&, const FormOutcome&)>;

// The record-a-refund form's post for the charge call.params[1] ({tx_hash}, the REST refund's
// rule and decide's): every surface that has the form (the exceptions page, the charge page)
// answers through this one handler, the guard's manage_charges already passed.
ApiResponse record_refund_form(const ChargeCommandDeps& deps, const RouteCall& call,
                               ProjectContext& ctx, const FormAnswer& answer);

}  // namespace duepay::api::dashboard
