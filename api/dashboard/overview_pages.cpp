#include "api/dashboard/overview_pages.hpp"

#include <algorithm>
#include <initializer_list>
#include <map>
#include <tuple>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/evm/address.hpp"
#include "domain/money/fiat.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/reports/paid_time.hpp"
#include "domain/text.hpp"

namespace duepay::api::dashboard {
namespace {

using domain::escape_html;
std::string e(std::string_view s) { return escape_html(s); }

constexpr std::int64_t kDayMs = 86'400'000;
// The chart's drawing, in viewBox units: the plot area and the margins for the axis labels.
constexpr int kPlotWidth = 720;
constexpr int kPlotHeight = 160;
constexpr int kLeft = 72;
constexpr int kTop = 8;
constexpr int kBottom = 24;

std::string num(std::int64_t v) { return std::to_string(v); }

// Appends each part to `out`: a page is written into one string, without the temporaries that
// a + b + c makes of every piece.
void add(std::string& out, std::initializer_list<std::string_view> parts) {
    for (const auto part : parts) out.append(part);
}

// num / den as "12.3 %" (rounded to a tenth, a half up); "—" without a denominator.
std::string percent(std::int64_t n, std::int64_t d) {
    if (d <= 0) return "—";
    const std::int64_t tenths = (n * 2000 + d) / (2 * d);
    return num(tenths / 10) + "." + num(tenths % 10) + " %";
}

std::string duration(Lang L, std::int64_t s) {
    const auto part = [&](std::int64_t v, std::string_view unit) {
        return num(v) + " " + std::string(tr(L, unit));
    };
    std::string out = s >= 16 ? "≈ " : "";
    if (s < 60) return out + part(s, "unit_s");
    if (s < 3600) return out + part(s / 60, "unit_min") + " " + part(s % 60, "unit_s");
    if (s < 86400) return out + part(s / 3600, "unit_h") + " " + part(s % 3600 / 60, "unit_min");
    return out + part(s / 86400, "unit_d") + " " + part(s % 86400 / 3600, "unit_h");
}

std::string table_open(std::string_view label, std::string_view test) {
    return R"(<div class="table-wrap" role="region" tabindex="0" aria-label=")" + e(label) +
           "\"><table data-test=\"" + std::string(test) + "\">";
}

std::string token_label(const ports::DailyStats& d) {
    return (d.token_symbol.empty() ? domain::evm::to_checksum(d.token) : d.token_symbol);
}

}  // namespace

std::optional<int> parse_overview_days(const std::optional<std::string>& text) {
    if (!text || *text == "30") return 30;
    if (*text == "90") return 90;
    return std::nullopt;
}

std::pair<std::string, std::string> overview_period(std::int64_t now_ms, int days) {
    const auto day = [](std::int64_t ms) {
        return domain::events::format_rfc3339_millis_utc(ms).substr(0, 10);
    };
    return {day(now_ms - static_cast<std::int64_t>(days - 1) * kDayMs), day(now_ms)};
}

BigInt chart_top(const BigInt& max) {
    if (max <= 0) return 0;
    BigInt scale = 1;
    while (true) {
        for (const int step : {1, 2, 5}) {
            if (scale * step >= max) return scale * step;
        }
        scale *= 10;
    }
}

int bar_height(const BigInt& value, const BigInt& top, int height) {
    if (top <= 0 || value <= 0) return 0;
    const BigInt h = value * height / top;
    if (h <= 0) return 1;
    return h >= height ? height : static_cast<int>(h);
}

std::string format_decimal(const BigInt& value, unsigned decimals) {
    std::string out;
    append_decimal(out, value, decimals);
    return out;
}

void append_decimal(std::string& out, const BigInt& value, unsigned decimals) {
    static const BigInt kMax(~domain::uint256(0));
    BigInt negated;
    if (value < 0) {
        out += '-';
        negated = -value;
    }
    const BigInt& v = value < 0 ? negated : value;
    if (v <= kMax) {
        // Every stored sum in practice: digits from plain integers (domain/money), not through
        // Boost's str() and the copies of its text (a 90-day page writes hundreds of values).
        domain::money::append_units(out, static_cast<domain::uint256>(v), decimals);
    } else {
        const std::size_t start = out.size();
        out += v.str();
        domain::money::place_decimal_point(out, start, decimals);
    }
}

std::string bar_chart(Lang L, const BarChart& c) {
    const int n = std::max<int>(1, static_cast<int>(c.values.size()));
    const int slot = std::max(1, kPlotWidth / n);
    const int bar = std::max(1, slot - (slot > 4 ? 2 : 0));
    BigInt max = 0;
    BigInt total = 0;
    std::size_t peak = 0;
    // Each day's figure written once, for its bar's title and its row of the table: the texts
    // one after another in `figures`, the i-th ending at ends[i].
    std::string figures;
    std::vector<std::size_t> ends;
    ends.reserve(c.values.size());
    for (std::size_t i = 0; i < c.values.size(); ++i) {
        total += c.values[i];
        if (c.values[i] > max) {
            max = c.values[i];
            peak = i;
        }
        append_decimal(figures, c.values[i], c.decimals);
        ends.push_back(figures.size());
    }
    const auto figure = [&](std::size_t i) {
        const std::size_t from = i == 0 ? 0 : ends[i - 1];
        return std::string_view(figures).substr(from, ends[i] - from);
    };
    const BigInt top = chart_top(max);
    // Decimal text never needs escaping (digits, a point, a sign); the unit and the days do.
    const std::string unit = e(c.unit);
    const std::string total_text = format_decimal(total, c.decimals);
    const int width = kLeft + slot * n + 8;
    const int height = kTop + kPlotHeight + kBottom;
    const int base = kTop + kPlotHeight;
    std::string h;
    h.reserve(1024 + c.values.size() * 320);
    add(h, {R"(<figure class="chart" data-test="chart"><svg viewBox="0 0 )",
            num(width),
            " ",
            num(height),
            R"(" role="img" aria-labelledby=")",
            c.id,
            "-title ",
            c.id,
            R"(-desc" class="chart-svg"><title id=")",
            c.id,
            "-title\">",
            e(c.title),
            "</title><desc id=\"",
            c.id,
            "-desc\">",
            e(tr(L, "chart_total")),
            " ",
            total_text,
            " ",
            unit});
    if (max > 0 && peak < c.days.size()) {
        add(h, {"; ", e(tr(L, "chart_peak")), " ", e(c.days[peak]), ": ", figure(peak), " ", unit});
    }
    h += "</desc>";
    // The axis: a line at 0, half and the top, each with its value.
    for (const int k : {0, 1, 2}) {
        const int y = base - kPlotHeight * k / 2;
        add(h, {R"(<line class="grid" x1=")", num(kLeft), "\" x2=\"", num(kLeft + slot * n),
                "\" y1=\"", num(y), "\" y2=\"", num(y), "\"/>"});
        if (top > 0 || k == 0) {
            add(h, {R"(<text class="axis" x=")", num(kLeft - 6), "\" y=\"", num(y + 4),
                    R"(" text-anchor="end">)", format_decimal(top * k / 2, c.decimals), "</text>"});
        }
    }
    std::vector<std::string> days;  // escaped once, for the bars and the table
    days.reserve(c.days.size());
    for (const auto& d : c.days) days.push_back(e(d));
    for (std::size_t i = 0; i < c.values.size(); ++i) {
        const int bh = bar_height(c.values[i], top, kPlotHeight);
        if (bh == 0) continue;
        const std::string_view day = i < days.size() ? std::string_view(days[i]) : "";
        add(h, {R"(<rect class="bar" data-day=")", day, "\" x=\"",
                num(kLeft + static_cast<int>(i) * slot + (slot - bar) / 2), "\" y=\"",
                num(base - bh), "\" width=\"", num(bar), "\" height=\"", num(bh), "\"><title>", day,
                ": ", figure(i), " ", unit, "</title></rect>"});
    }
    if (top == 0) {
        add(h, {R"(<text class="empty" x=")", num(kLeft + slot * n / 2), "\" y=\"",
                num(kTop + kPlotHeight / 2), R"(" text-anchor="middle">)", e(tr(L, "no_volume")),
                "</text>"});
    }
    // The first, middle and last days under the axis.
    for (const std::size_t i : {std::size_t{0}, c.days.size() / 2, c.days.size() - 1}) {
        if (c.days.empty() || i >= c.days.size()) continue;
        add(h, {R"(<text class="axis" x=")", num(kLeft + static_cast<int>(i) * slot + slot / 2),
                "\" y=\"", num(height - 6), R"(" text-anchor="middle">)", e(c.days[i].substr(5)),
                "</text>"});
    }
    // The numbers themselves, for a screen reader and for anyone who wants them.
    add(h, {"</svg></figure><details class=\"chart-numbers\"><summary>", e(tr(L, "daily_figures")),
            ": ", e(c.title), "</summary>", table_open(c.title, "chart-table"),
            "<thead><tr><th scope=\"col\">", e(tr(L, "day")), "</th><th scope=\"col\">",
            e(tr(L, "paid_volume")), " (", unit, ")</th></tr></thead><tbody>"});
    for (std::size_t i = 0; i < c.values.size() && i < days.size(); ++i) {
        add(h, {"<tr><td>", days[i], "</td><td>", figure(i), "</td></tr>"});
    }
    add(h, {"</tbody><tfoot><tr><th scope=\"row\">", e(tr(L, "total")), "</th><td>", total_text,
            "</td></tr></tfoot></table></div></details>"});
    return h;
}

bool has_charges(const ports::ProjectStatsView& stats) {
    return std::any_of(stats.by_status.begin(), stats.by_status.end(),
                       [](const auto& s) { return s.second != 0; });
}

std::string overview_section(const Chrome& c, const Overview& o) {
    const Lang lang = c.lang;
    const auto& s = o.stats;
    // The period's days, oldest first.
    std::vector<std::string> days;
    days.reserve(static_cast<std::size_t>(std::max(o.days, 0)));
    const auto first = domain::events::parse_rfc3339_millis(o.first_day).value_or(0);
    for (int i = 0; i < o.days; ++i) {
        days.push_back(domain::events::format_rfc3339_millis_utc(first + i * kDayMs).substr(0, 10));
    }
    std::int64_t created = 0;
    std::int64_t converted = 0;
    std::int64_t paid = 0;
    struct TokenSeries {
        std::string label;
        unsigned decimals = 0;
        std::vector<BigInt> values;
        BigInt total;
        BigInt refunded;
        std::int64_t payments = 0;
        std::int64_t refunds = 0;
    };
    std::map<std::tuple<std::uint64_t, domain::Address>, TokenSeries> tokens;
    std::map<domain::money::FiatCurrency, std::vector<BigInt>> fiat;
    for (const auto& d : s.days) {
        created += d.created;
        converted += d.converted;
        paid += d.entered_paid;
        const bool in_period = d.day >= 0 && static_cast<std::size_t>(d.day) < days.size();
        auto& t = tokens[{d.chain_id.value, d.token}];
        if (t.values.empty()) {
            t.values.assign(days.size(), 0);
            t.label = token_label(d) + " (" + std::string(tr(lang, "network")) + " " +
                      num(static_cast<std::int64_t>(d.chain_id.value)) + ")";
            t.decimals = d.token_decimals;
        }
        if (in_period) t.values[static_cast<std::size_t>(d.day)] += d.paid;
        t.total += d.paid;
        t.refunded += d.refunded;
        t.payments += d.payments;
        t.refunds += d.refunds;
        if (d.currency && d.paid_fiat > 0) {
            auto& f = fiat[*d.currency];
            if (f.empty()) f.assign(days.size(), 0);
            if (in_period) f[static_cast<std::size_t>(d.day)] += d.paid_fiat;
        }
    }
    std::string h;
    // The period switch: two links, the current one marked.
    h += R"(<nav class="period" aria-label=")" + e(tr(lang, "period")) + "\"><ul>";
    for (const int n : {30, 90}) {
        const bool current = n == o.days;
        h += std::string("<li><a href=\"?days=") + num(n) + "\" data-test=\"period-" + num(n) +
             "\"" + (current ? " aria-current=\"page\"" : "") + ">" +
             e(tr(lang, n == 30 ? "days_30" : "days_90")) + "</a></li>";
    }
    h += "</ul></nav>";
    h += "<p class=\"period-range\">" + e(o.first_day) + " – " + e(o.last_day) + " (UTC)</p>";
    // The figures of the period.
    const auto median = domain::reports::median_seconds(s.paid_time);
    const auto fact = [&](std::string_view key, std::string_view test, const std::string& value,
                          std::string_view help) {
        h += "<div class=\"figure\"><dt>" + e(tr(lang, key)) + "</dt><dd data-test=\"" +
             std::string(test) + "\">" + e(value) + "</dd><dd class=\"help\">" + e(tr(lang, help)) +
             "</dd></div>";
    };
    h += "<dl class=\"figures\">";
    fact("created_in_period", "created", num(created), "created_help");
    fact("paid_in_period", "paid", num(paid), "paid_help");
    fact("conversion", "conversion", percent(converted, created), "conversion_help");
    fact("median_to_paid", "median", median ? duration(lang, *median) : "—", "median_help");
    fact("webhook_success", "webhook-rate", percent(s.webhook_succeeded, s.webhook_attempts),
         s.webhook_attempts > 0 ? "webhook_help" : "no_webhook_attempts");
    h += "</dl>";
    // Paid volume: a chart per token, then per quote currency.
    h += "<h2>" + e(tr(lang, "paid_volume")) + "</h2>";
    int id = 0;
    bool any = false;
    // Each series moved into its chart: only the totals are read after.
    for (auto& [key, t] : tokens) {
        if (t.total == 0) continue;
        any = true;
        h += bar_chart(lang, BarChart{"chart-" + num(id++),
                                      std::string(tr(lang, "paid_volume_per_day")) + ": " + t.label,
                                      t.label.substr(0, t.label.find(' ')), t.decimals, days,
                                      std::move(t.values)});
    }
    for (auto& [currency, values] : fiat) {
        const std::string code(domain::money::to_string(currency));
        h += bar_chart(lang, BarChart{"chart-" + num(id++),
                                      std::string(tr(lang, "paid_volume_fiat")) + ": " + code, code,
                                      domain::money::kFiatMinorDigits, days, std::move(values)});
    }
    if (!any) h += "<p data-test=\"no-volume\">" + e(tr(lang, "no_volume")) + "</p>";
    if (!tokens.empty()) {
        h += table_open(tr(lang, "paid_volume"), "volume") + "<thead><tr><th scope=\"col\">" +
             e(tr(lang, "token")) + "</th><th scope=\"col\">" + e(tr(lang, "paid_volume")) +
             "</th><th scope=\"col\">" + e(tr(lang, "payments")) + "</th><th scope=\"col\">" +
             e(tr(lang, "refunded")) + "</th></tr></thead><tbody>";
        for (const auto& [key, t] : tokens) {
            h += "<tr><td>" + e(t.label) + "</td><td>" + e(format_decimal(t.total, t.decimals)) +
                 "</td><td>" + num(t.payments) + "</td><td>" +
                 e(format_decimal(t.refunded, t.decimals)) + " (" + num(t.refunds) + ")</td></tr>";
        }
        h += "</tbody></table></div>";
    }
    // Counts by status, now.
    h += "<h2>" + e(tr(lang, "by_status")) + "</h2>" +
         table_open(tr(lang, "by_status"), "by-status") + "<thead><tr><th scope=\"col\">" +
         e(tr(lang, "status")) + "</th><th scope=\"col\">" + e(tr(lang, "charges")) +
         "</th></tr></thead><tbody>";
    for (const auto status : domain::charge::kAllStatuses) {
        std::int64_t n = 0;
        for (const auto& [st, count] : s.by_status)
            if (st == status) n = count;
        const auto name = domain::charge::to_string(status);
        h += "<tr><td>" + std::string(name) + "</td><td data-test=\"status-" + std::string(name) +
             "\">" + num(n) + "</td></tr>";
    }
    h += "</tbody></table></div>";
    return h;
}

}  // namespace duepay::api::dashboard
