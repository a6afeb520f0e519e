#include "api/dashboard/report_routes.hpp"

#include <optional>
#include <string>
#include <utility>

#include "api/http/reports_api.hpp"
#include "domain/events/event.hpp"

namespace duepay::api::dashboard {
namespace {

constexpr std::int64_t kDayMs = 24LL * 3600 * 1000;

// "YYYY-MM-DD" exactly, as midnight UTC in unix milliseconds.
std::optional<std::int64_t> day_of(const std::optional<std::string>& text) {
    if (!text || text->size() != 10 || (*text)[4] != '-' || (*text)[7] != '-') return std::nullopt;
    return domain::events::parse_rfc3339_millis(*text);
}

std::string date_of(std::int64_t ms) {
    return domain::events::format_rfc3339_millis_utc(ms).substr(0, 10);
}

// The period of the request's from/to days (to inclusive), as the REST report takes it; nullopt
// when the dates are missing, malformed, reversed or span more than the REST report allows.
std::optional<SettlementRequest> period_of(const ApiRequest& request, ReportFormat format) {
    const auto from = day_of(request.query_param("from"));
    const auto to = day_of(request.query_param("to"));
    if (!from || !to || *to < *from || *to + kDayMs - *from > kMaxReportSpanMs) return std::nullopt;
    return SettlementRequest{*from, *to + kDayMs, format};
}

}  // namespace

void add_report_routes(RouteTable& routes, ReportRouteDeps deps, const ProjectScope& scope) {
    required(deps.reports, "ReportRouteDeps.reports");
    if (!deps.now_ms) throw std::invalid_argument("ReportRouteDeps.now_ms is required");
    using A = domain::accounts::ProjectAction;
    const RouteOptions page{Auth::session, true};

    routes.add("GET", "/p/:projectId/reports", page,
               scope.guard(A::read, "reports", [deps](const RouteCall& call, ProjectContext& ctx) {
                   ReportsPage view;
                   const auto& request = call.request;
                   if (!request.query_param("from") && !request.query_param("to")) {
                       // This month up to today.
                       const auto today = date_of(deps.now_ms());
                       view.from = today.substr(0, 8) + "01";
                       view.to = today;
                   } else {
                       view.from = request.query_param("from").value_or("");
                       view.to = request.query_param("to").value_or("");
                   }
                   ApiRequest dated;
                   dated.query = "from=" + view.from + "&to=" + view.to;
                   const auto period = request.unknown_query_param({"from", "to"})
                                           ? std::nullopt
                                           : period_of(dated, ReportFormat::csv);
                   if (!period) {
                       view.invalid = true;
                       return html(400, reports_page(ctx.chrome, view), ctx.chrome.lang);
                   }
                   ports::SettlementQuery q;
                   q.project_id = ctx.project;
                   q.mode = ctx.chrome.mode;
                   q.from_ms = period->from_ms;
                   q.to_ms = period->to_ms;
                   view.totals = deps.reports->totals(q);
                   return html(200, reports_page(ctx.chrome, view), ctx.chrome.lang);
               }));

    routes.add("GET", "/p/:projectId/reports/settlements.csv", page,
               scope.guard(A::read, "reports", [deps](const RouteCall& call, ProjectContext& ctx) {
                   const auto period = call.request.unknown_query_param({"from", "to"})
                                           ? std::nullopt
                                           : period_of(call.request, ReportFormat::csv);
                   if (!period) {
                       ReportsPage view;
                       view.from = call.request.query_param("from").value_or("");
                       view.to = call.request.query_param("to").value_or("");
                       view.invalid = true;
                       return html(400, reports_page(ctx.chrome, view), ctx.chrome.lang);
                   }
                   return settlement_report(*deps.reports, ctx.project, ctx.chrome.mode, *period,
                                            deps.page_rows);
               }));
}

}  // namespace duepay::api::dashboard
