// The project overview's figures (docs/dashboard.md "Overview", ADR 0245), rendered on the
// server from the stats read model (domain/ports/project_stats.hpp): paid volume per day as
// inline SVG bar charts (no script, no inline style: the CSP forbids both) with their numbers as
// tables, counts by status, conversion, the median time to paid and the webhook success rate, in
// the chrome's mode over the last 30 or 90 UTC days. Pure: the route fetches, these render.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/dashboard/dashboard_pages.hpp"
#include "domain/ports/project_stats.hpp"

namespace duepay::api::dashboard {

using domain::reports::BigInt;

// The `days` query parameter of the overview: absent, "30" or "90"; nullopt for anything else.
std::optional<int> parse_overview_days(const std::optional<std::string>& text);

// The last `days` UTC days up to the day of `now_ms`: first and last day ("YYYY-MM-DD").
std::pair<std::string, std::string> overview_period(std::int64_t now_ms, int days);

// The top of a chart's value axis: the smallest 1, 2 or 5 x 10^k at or above `max` (0 for 0).
BigInt chart_top(const BigInt& max);
// A bar's height for `value` on an axis of `top` over `height` units: value * height / top
// rounded down, but at least 1 for any value above 0 (a small day stays visible beside a huge
// one); 0 when top is 0.
int bar_height(const BigInt& value, const BigInt& top, int height);

// One chart: a value per day of the period (oldest first), in the unit's smallest part
// (`decimals` digits after the point: the token's decimals, or 2 for a fiat currency).
struct BarChart {
    std::string id;     // unique in the page (the title's and the description's ids)
    std::string title;  // what it shows, e.g. "Paid volume per day: USDT (chain 80002)"
    std::string unit;   // "USDT", "THB"
    unsigned decimals = 0;
    std::vector<std::string> days;
    std::vector<BigInt> values;
};
// The chart as an <svg role="img"> with a <title> and a <desc> (its total and its highest day),
// a <title> per bar, then the same numbers as a table in a <details>.
std::string bar_chart(Lang lang, const BarChart& chart);

// `value` / 10^decimals as exact decimal text, trailing fraction zeros dropped ("1.5", "0").
std::string format_decimal(const BigInt& value, unsigned decimals);
// The same text appended to `out`.
void append_decimal(std::string& out, const BigInt& value, unsigned decimals);

struct Overview {
    int days = 30;
    std::string first_day;
    std::string last_day;
    ports::ProjectStatsView stats;
};
// The figures' section of the overview page (project_home puts it under the project's facts).
std::string overview_section(const Chrome& c, const Overview& overview);

// Any charge in the chrome's mode, ever (the count by status is not empty).
bool has_charges(const ports::ProjectStatsView& stats);

}  // namespace duepay::api::dashboard
