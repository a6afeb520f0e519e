#include "api/dashboard/exceptions_routes.hpp"

#include <cctype>
#include <chrono>
#include <future>
#include <memory>

#include "api/http/charge_list.hpp"
#include "api/http/envelope.hpp"

namespace duepay::api::dashboard {
namespace {

using A = domain::accounts::ProjectAction;
// A page of the list: the REST list's and the charges page's default (ADR 0295), the older rows
// a "next page" link away.
constexpr std::size_t kRows = kDefaultListLimit;
// How long a form post waits for the event log (the producer's own timeouts end it sooner).
constexpr auto kAppendWait = std::chrono::seconds(15);

ports::ChargeListQuery list_query(const ProjectContext& ctx, bool resolved,
                                  std::optional<ListPosition> after) {
    ports::ChargeListQuery q;
    q.project_id = ctx.project;
    q.mode = ctx.chrome.mode;
    q.limit = kRows + 1;
    q.exceptions = resolved ? ports::ExceptionList::resolved : ports::ExceptionList::open;
    q.after = std::move(after);
    return q;
}

// Runs a charge command and waits for its outcome (form posts answer synchronously).
CommandOutcome run_and_wait(const ChargeCommandDeps& deps, const ProjectContext& ctx,
                            const std::string& invoice_id, const ChargeDecider& decider) {
    auto answer = std::make_shared<std::promise<CommandOutcome>>();
    auto got = answer->get_future();
    run_charge_command(deps, ctx.project, ctx.chrome.mode, invoice_id, decider,
                       [answer](CommandOutcome o) { answer->set_value(std::move(o)); });
    if (got.wait_for(kAppendWait) != std::future_status::ready) {
        return CommandRefusal{
            503,
            domain::make_error("event_log_outcome_unknown",
                               "the event log did not confirm the action in time; reload the page"),
            std::nullopt};
    }
    return got.get();
}

// Runs `decider` and puts what came of it in the form's words.
FormOutcome outcome_of(const ChargeCommandDeps& deps, const RouteCall& call, ProjectContext& ctx,
                       const ChargeDecider& decider, std::string_view notice_key) {
    const auto outcome = run_and_wait(deps, ctx, call.params[1], decider);
    if (const auto* refused = std::get_if<CommandRefusal>(&outcome)) {
        return {false, refused->status, refused->error.message};
    }
    return {true, 200, std::string(tr(ctx.chrome.lang, notice_key))};
}

}  // namespace

ApiResponse record_refund_form(const ChargeCommandDeps& deps, const RouteCall& call,
                               ProjectContext& ctx, const FormAnswer& answer) {
    const auto f = form_of(call.request);
    const auto tx = parse_refund_tx_hash(field(f, "tx_hash").value_or(""));
    if (!tx) return answer(ctx, {false, 400, std::string(kInvalidTxHash)});
    return answer(ctx, outcome_of(deps, call, ctx, refund_decider(*tx), "refund_notice"));
}

void add_exceptions_routes(RouteTable& routes, const ProjectScope& scope, ExceptionsDeps deps) {
    required(deps.lister, "ExceptionsDeps.lister");
    required(deps.commands.charges, "ExceptionsDeps.commands.charges");
    required(deps.commands.history, "ExceptionsDeps.commands.history");
    required(deps.commands.log, "ExceptionsDeps.commands.log");
    if (!deps.commands.now_ms) throw std::invalid_argument("ExceptionsDeps.commands.now_ms");

    // A page of the list (the first, or the one after `after`), with what an action left to say
    // (its refusal or its success).
    auto page = [deps](ProjectContext& ctx, bool resolved, int status,
                       std::optional<std::string> error, std::optional<std::string> notice,
                       std::optional<ListPosition> after = std::nullopt) {
        ExceptionsPage view;
        view.resolved = resolved;
        view.can_act = domain::accounts::allowed(ctx.role, A::manage_charges);
        view.charges = deps.lister->list(list_query(ctx, resolved, std::move(after)));
        if (view.charges.size() > kRows) {
            view.charges.resize(kRows);
            const auto& last = view.charges.back();
            view.next_cursor = encode_list_cursor({last.created_us, last.charge.invoice_id});
        }
        view.error = std::move(error);
        view.notice = std::move(notice);
        ctx.chrome.path =
            "/p/" + ctx.project.value + "/exceptions" + (resolved ? "?view=resolved" : "");
        return html(status, exceptions_page(ctx.chrome, view), ctx.chrome.lang);
    };

    routes.add(
        "GET", "/p/:projectId/exceptions", RouteOptions{Auth::session, true},
        scope.guard(A::read, "exceptions", [page](const RouteCall& call, ProjectContext& ctx) {
            if (auto unknown = call.request.unknown_query_param({"view", "cursor"})) {
                return bad_request("unknown_field", "unknown query parameter " + *unknown);
            }
            const auto view = call.request.query_param("view").value_or("open");
            if (view != "open" && view != "resolved") {
                return bad_request("invalid_request", "view must be open or resolved");
            }
            std::optional<ListPosition> after;
            if (auto cursor = call.request.query_param("cursor")) {
                after = decode_list_cursor(*cursor);
                if (!after) {
                    return bad_request("invalid_cursor",
                                       "cursor must be a next-page link's, unchanged");
                }
            }
            return page(ctx, view == "resolved", 200, std::nullopt, std::nullopt, std::move(after));
        }));

    // An action's answer: the list, with the notice when it was taken, else with the refusal
    // above it and the refusal's status.
    auto answer = [page](ProjectContext& ctx, const FormOutcome& o) {
        if (o.taken) return page(ctx, false, 200, std::nullopt, o.message);
        return page(ctx, false, o.status, o.message, std::nullopt);
    };
    const RouteOptions form{Auth::session, false, false, true};
    routes.add("POST", "/p/:projectId/exceptions/:invoiceId/resolve", form,
               scope.guard(A::manage_charges, "exceptions",
                           [deps, answer](const RouteCall& call, ProjectContext& ctx) {
                               const auto f = form_of(call.request);
                               auto note = domain::events::normalize_resolution_note(
                                   field(f, "note").value_or(""));
                               if (!note) return answer(ctx, {false, 400, note.error().message});
                               // The wallet in the event's form (lower-case), with its session.
                               std::string wallet = ctx.actor.address;
                               for (auto& ch : wallet) ch = static_cast<char>(std::tolower(ch));
                               domain::events::Actor by{domain::events::ActorKind::wallet, wallet,
                                                        ctx.actor.session_id};
                               return answer(
                                   ctx, outcome_of(deps.commands, call, ctx,
                                                   resolve_decider(by, *note), "resolved_notice"));
                           }));
    routes.add("POST", "/p/:projectId/exceptions/:invoiceId/refund", form,
               scope.guard(A::manage_charges, "exceptions",
                           [deps, answer](const RouteCall& call, ProjectContext& ctx) {
                               return record_refund_form(deps.commands, call, ctx, answer);
                           }));
}

}  // namespace duepay::api::dashboard
