// The dashboard's settlement report (docs/reports.md, docs/dashboard.md), in the project's mode:
//   GET /p/:projectId/reports[?from=YYYY-MM-DD&to=YYYY-MM-DD]   the form and the period's totals
//   GET /p/:projectId/reports/settlements.csv?from&to           the CSV, streamed
// Dates are whole UTC days, `to` included (the REST report's `to` is the next day's midnight);
// without them the page shows the current month up to today. Reading: every role (a viewer
// too). The CSV is the REST report's (api/http/reports_api settlement_report): the same rows and
// bytes, the same streaming.
#pragma once

#include <cstdint>
#include <functional>

#include "api/dashboard/project_scope.hpp"
#include "api/http/router.hpp"
#include "domain/ports/reports.hpp"

namespace duepay::api::dashboard {

struct ReportRouteDeps {
    ports::SettlementReports* reports = nullptr;
    std::function<std::int64_t()> now_ms;
    std::size_t page_rows = 1000;
};

// Adds the two routes; `deps.reports` must outlive the table.
void add_report_routes(RouteTable& routes, ReportRouteDeps deps, const ProjectScope& scope);

// The reports page: the form (dates as given) and, for a valid period, its totals.
struct ReportsPage {
    std::string from;  // YYYY-MM-DD as shown in the form
    std::string to;    // inclusive
    std::optional<domain::reports::SettlementTotals> totals;
    bool invalid = false;  // the dates were refused (the page says why)
};
std::string reports_page(const Chrome& c, const ReportsPage& page);

}  // namespace duepay::api::dashboard
