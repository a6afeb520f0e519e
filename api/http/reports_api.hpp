// The settlement report (docs/reports.md, schemas/openapi.yaml, ADR 0240):
//   GET /v1/reports/settlements?from&to[&format=csv|json]
// the payments and refunds of the key's project and mode whose confirmedAt lies in [from, to),
// streamed: rows are read in keyset pages of `page_rows` and written as they are read
// (ApiResponse::stream), so a year of a busy project never sits in memory. CSV (RFC 4180, a
// header row, an attachment) or JSON ({"success":true,"data":[rows],"totals":{...},"error":null},
// the totals summed from the rows sent). The dashboard's reports page downloads through the same
// settlement_report().
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <variant>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"
#include "domain/ports/reports.hpp"

namespace duepay::api {

enum class ReportFormat { csv, json };

// The longest period one request may ask for: 366 days (a leap year).
inline constexpr std::int64_t kMaxReportSpanMs = 366LL * 24 * 3600 * 1000;

// A request for the report: the period and the format.
struct SettlementRequest {
    std::int64_t from_ms = 0;
    std::int64_t to_ms = 0;
    ReportFormat format = ReportFormat::json;
};

// from, to (RFC 3339 date-times or dates, docs/reports.md) and format of `request`, or the 400
// to answer: unknown_field, invalid_from, invalid_to, invalid_period (to not after from, or more
// than kMaxReportSpanMs apart), invalid_format.
std::variant<SettlementRequest, ApiResponse> parse_settlement_request(const ApiRequest& request);

// The streamed answer for `request` over the rows of `project` and `mode`. The first page is
// read here (an unreachable store throws StoreUnavailable: the pipeline's 503), the others as
// the client takes the body. `page_rows` rows a page (at least 1).
ApiResponse settlement_report(ports::SettlementReports& reports, const domain::ProjectId& project,
                              domain::events::Mode mode, const SettlementRequest& request,
                              std::size_t page_rows);

// The CSV's header record and one row's record (CRLF-ended), for the REST answer and the tests.
std::string settlement_csv_header();
void append_settlement_csv(std::string& out, const ports::SettlementLine& line);

// Totals as the JSON answer writes them: {"from","to","rows","tokens":[...],"fiat":[...]}.
std::string settlement_totals_json(const domain::reports::SettlementTotals& totals,
                                   const SettlementRequest& request, std::uint64_t rows);

struct ReportsApiDeps {
    ports::SettlementReports* reports = nullptr;
    std::size_t page_rows = 1000;
};

class ReportsApi {
  public:
    explicit ReportsApi(ReportsApiDeps deps);
    // Adds GET /v1/reports/settlements; this object must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    ReportsApiDeps deps_;
};

}  // namespace duepay::api
