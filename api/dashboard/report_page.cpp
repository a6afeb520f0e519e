// The reports page (report_routes.hpp): the period form, the CSV download and the totals.
#include <string>

#include "api/dashboard/page_kit.hpp"
#include "api/dashboard/report_routes.hpp"
#include "domain/reports/settlement.hpp"
#include "domain/text.hpp"

namespace duepay::api::dashboard {
namespace {

namespace rep = domain::reports;
using domain::escape_html;

std::string amount(const rep::BigInt& units, unsigned decimals) {
    return escape_html(rep::format_fixed(domain::money::to_decimal(units), decimals).value_or("?"));
}

std::string th(std::string_view text) { return "<th scope=\"col\">" + escape_html(text) + "</th>"; }

std::string td(std::string_view html, std::string_view test = {}) {
    std::string out = "<td";
    if (!test.empty()) out += " data-test=\"" + std::string(test) + "\"";
    return out + ">" + std::string(html) + "</td>";
}

}  // namespace

std::string reports_page(const Chrome& c, const ReportsPage& page) {
    const Lang lang = c.lang;
    const std::string base = "/p/" + (c.project ? c.project->project_id.value : std::string());
    std::string h;
    h += "<h1>" + escape_html(tr(lang, "settlement_report")) + "</h1>";
    h += "<p>" + escape_html(tr(lang, "reports_lead")) + "</p>";
    if (page.invalid) {
        h += R"(<p class="error" role="alert" data-test="error">)" +
             escape_html(tr(lang, "invalid_dates")) + "</p>";
    }
    // One GET form, two answers: the totals on this page, or the CSV download (formaction).
    h += R"(<form method="get" action=")" + escape_html(base) + R"(/reports" class="filters">)";
    h += "<label>" + escape_html(tr(lang, "from_date")) +
         R"( <input type="date" name="from" required data-test="report-from" value=")" +
         escape_html(page.from) + "\"></label> ";
    h += "<label>" + escape_html(tr(lang, "to_date")) +
         R"( <input type="date" name="to" required data-test="report-to" value=")" +
         escape_html(page.to) + "\"></label> ";
    h += R"(<button type="submit" data-test="show-totals">)" +
         escape_html(tr(lang, "show_totals")) + "</button> ";
    h += R"(<button type="submit" formaction=")" + escape_html(base) +
         R"(/reports/settlements.csv" data-test="download-csv">)" +
         escape_html(tr(lang, "download_csv")) + "</button></form>";
    if (page.totals) {
        const auto& t = *page.totals;
        if (t.tokens.empty()) {
            h += "<p data-test=\"no-settlements\">" + escape_html(tr(lang, "no_settlements")) +
                 "</p>";
        } else {
            h += "<h2>" + escape_html(tr(lang, "totals_by_token")) + "</h2>";
            h += table_open(tr(lang, "totals_by_token"), "token-totals");
            h += "<thead><tr>" + th(tr(lang, "network")) + th(tr(lang, "token")) +
                 th(tr(lang, "payments")) + th(tr(lang, "received")) + th(tr(lang, "refunds")) +
                 th(tr(lang, "refunded")) + th(tr(lang, "fees")) + th(tr(lang, "net")) +
                 "</tr></thead><tbody>";
            for (const auto& row : t.tokens) {
                h += "<tr data-token=\"" + escape_html(row.token) + "\">";
                h += td(std::to_string(row.chain_id));
                h += "<th scope=\"row\">" + escape_html(row.symbol) + " <code>" +
                     escape_html(row.token) + "</code></th>";
                h += td(std::to_string(row.payments), "payments");
                h += td(amount(row.paid, row.decimals), "paid");
                h += td(std::to_string(row.refunds), "refunds");
                h += td(amount(row.refunded, row.decimals), "refunded");
                h += td(amount(row.fees, row.decimals), "fees");
                h += td(amount(row.net, row.decimals), "net");
                h += "</tr>";
            }
            h += "</tbody></table></div>";
        }
        if (!t.fiat.empty()) {
            h += "<h2>" + escape_html(tr(lang, "totals_by_currency")) + "</h2>";
            h += table_open(tr(lang, "totals_by_currency"), "fiat-totals");
            h += "<thead><tr>" + th(tr(lang, "currency")) + th(tr(lang, "rows")) +
                 th(tr(lang, "amount")) + th(tr(lang, "fees")) + th(tr(lang, "net")) +
                 "</tr></thead><tbody>";
            for (const auto& row : t.fiat) {
                h += "<tr data-currency=\"" + escape_html(row.currency) + R"("><th scope="row">)" +
                     escape_html(row.currency) + "</th>";
                h += td(std::to_string(row.rows), "rows");
                h += td(amount(row.amount, 2), "amount");
                h += td(amount(row.fees, 2), "fees");
                h += td(amount(row.net, 2), "net");
                h += "</tr>";
            }
            h += "</tbody></table></div>";
        }
    }
    return layout(c, tr(lang, "reports"), h);
}

}  // namespace duepay::api::dashboard
