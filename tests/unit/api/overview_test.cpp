// The overview's rendering (api/dashboard/overview_pages): the chart's scale (a nice top, bar
// heights, an empty period, one huge day beside small ones), exact decimals, the period.
#include <gtest/gtest.h>

#include <random>
#include <regex>
#include <string>
#include <vector>

#include "api/dashboard/overview_pages.hpp"

namespace duepay::api::dashboard {
namespace {

TEST(Overview, ChartTopTable) {
    struct Row {
        const char* max;
        const char* top;
    };
    const Row rows[] = {
        {"0", "0"},
        {"1", "1"},
        {"2", "2"},
        {"3", "5"},
        {"5", "5"},
        {"6", "10"},
        {"11", "20"},
        {"199", "200"},
        {"201", "500"},
        {"501", "1000"},
        {"3500000", "5000000"},
        // 2^256 - 1 times 90 days: still exact.
        {"10421821097517548823426013932148788223718046520592416931213669497098616543"
         "705"
         "350",
         "20000000000000000000000000000000000000000000000000000000000000000000000000"
         "000"
         "000"}};
    for (const auto& r : rows) EXPECT_EQ(chart_top(BigInt(r.max)), BigInt(r.top)) << r.max;
}

TEST(Overview, BarHeights) {
    EXPECT_EQ(bar_height(0, 0, 160), 0);    // an empty period: no bar
    EXPECT_EQ(bar_height(0, 100, 160), 0);  // a day without volume
    EXPECT_EQ(bar_height(100, 100, 160), 160);
    EXPECT_EQ(bar_height(50, 100, 160), 80);
    // One huge day: it fills the chart, a small day stays visible at 1.
    const BigInt huge("1000000000000000000000000000");
    const auto top = chart_top(huge);
    EXPECT_EQ(bar_height(huge, top, 160), 160);
    EXPECT_EQ(bar_height(1, top, 160), 1);
}

TEST(Overview, FormatDecimal) {
    EXPECT_EQ(format_decimal(0, 6), "0");
    EXPECT_EQ(format_decimal(3'500'000, 6), "3.5");
    EXPECT_EQ(format_decimal(1, 6), "0.000001");
    EXPECT_EQ(format_decimal(123'400, 2), "1234");
    EXPECT_EQ(format_decimal(12'345, 0), "12345");
    EXPECT_EQ(format_decimal(-150, 2), "-1.5");
}

// The digits written from plain integers (any value a uint256 holds) and through Boost's text
// (a negative value, one above 2^256) are the definition spelled out on Boost's text, appended
// after what the string held.
TEST(Overview, AppendDecimalEqualsTheDigitsSplitForEverySize) {
    const auto spelled = [](const BigInt& value, unsigned decimals) {
        std::string digits = (value < 0 ? BigInt(-value) : value).str();
        if (digits.size() <= decimals) digits.insert(0, decimals + 1 - digits.size(), '0');
        const std::string whole = digits.substr(0, digits.size() - decimals);
        std::string fraction = digits.substr(digits.size() - decimals);
        while (!fraction.empty() && fraction.back() == '0') fraction.pop_back();
        return (value < 0 ? "-" : "") + whole + (fraction.empty() ? "" : "." + fraction);
    };
    std::mt19937_64 rng(11);
    for (int i = 0; i < 3000; ++i) {
        BigInt v = 0;
        for (int k = 0; k <= i % 6; ++k) v = (v << 64) | BigInt(rng());  // up to 384 bits
        v >>= static_cast<unsigned>(rng() % 300);
        if (i % 7 == 0) v *= 100000;
        if (i % 3 == 0) v = -v;
        const auto decimals = static_cast<unsigned>(i % 25);
        std::string out = "<td>";
        append_decimal(out, v, decimals);
        ASSERT_EQ(out, "<td>" + spelled(v, decimals)) << v << " " << decimals;
        ASSERT_EQ(format_decimal(v, decimals), spelled(v, decimals));
    }
    const BigInt above = (BigInt(1) << 256) + 5;  // 2^256 + 5 at 3 decimals
    EXPECT_EQ(format_decimal(above, 3),
              "115792089237316195423570985008687907853269984665640564039457584007913129639.941");
}

TEST(Overview, PeriodAndDays) {
    EXPECT_EQ(parse_overview_days(std::nullopt), 30);
    EXPECT_EQ(parse_overview_days("30"), 30);
    EXPECT_EQ(parse_overview_days("90"), 90);
    EXPECT_EQ(parse_overview_days("60"), std::nullopt);
    EXPECT_EQ(parse_overview_days(""), std::nullopt);
    // 2026-11-21T23:59:59.999Z: the 30 days end that day.
    const auto p = overview_period(1'795'305'599'999, 30);
    EXPECT_EQ(p.second, "2026-11-21");
    EXPECT_EQ(p.first, "2026-10-23");
    EXPECT_EQ(overview_period(1'795'305'599'999, 90).first, "2026-08-24");
}

std::vector<std::string> days(int n) {
    std::vector<std::string> out;
    for (int i = 0; i < n; ++i)
        out.push_back("2026-11-" + std::string(i < 9 ? "0" : "") + std::to_string(i + 1));
    return out;
}

// The heights of the chart's bars, in order.
std::vector<int> heights(const std::string& svg) {
    std::vector<int> out;
    const std::regex bar("<rect class=\"bar\"[^>]* height=\"([0-9]+)\"");
    for (auto it = std::sregex_iterator(svg.begin(), svg.end(), bar); it != std::sregex_iterator();
         ++it) {
        out.push_back(std::stoi((*it)[1]));
    }
    return out;
}

TEST(Overview, ChartOfAnEmptyPeriodSaysSo) {
    const auto svg =
        bar_chart(Lang::en, {"c0", "Paid volume", "USDT", 6, days(30), std::vector<BigInt>(30, 0)});
    EXPECT_TRUE(heights(svg).empty());
    EXPECT_NE(svg.find("No paid volume in this period."), std::string::npos);
    EXPECT_NE(svg.find("<title id=\"c0-title\">Paid volume</title>"), std::string::npos);
    EXPECT_NE(svg.find("aria-labelledby=\"c0-title c0-desc\""), std::string::npos);
    EXPECT_NE(svg.find("<desc id=\"c0-desc\">Total 0 USDT</desc>"), std::string::npos);
    EXPECT_EQ(svg.find("style="), std::string::npos);  // the CSP allows no inline style
    EXPECT_EQ(svg.find("<script"), std::string::npos);
}

TEST(Overview, ChartOfOneHugeDay) {
    std::vector<BigInt> values(30, 0);
    values[3] = 1;
    values[10] = BigInt("9000000000000000000000000");  // 9e24: top 1e25
    values[20] = BigInt("2500000000000000000000000");
    const auto svg = bar_chart(Lang::en, {"c1", "Paid volume", "DAI", 18, days(30), values});
    EXPECT_EQ(heights(svg), (std::vector<int>{1, 144, 40}));  // 9e24 / 1e25 * 160, 2.5e24
    EXPECT_NE(svg.find("highest day 2026-11-11: 9000000 DAI"), std::string::npos);
    EXPECT_NE(svg.find(">10000000<"), std::string::npos);  // the axis top, in DAI
    // The numbers again as a table, every day, and the total.
    EXPECT_NE(svg.find("<td>2026-11-04</td><td>0.000000000000000001</td>"), std::string::npos);
    EXPECT_NE(svg.find("<td>11500000.000000000000000001</td>"), std::string::npos);
    // Thai words, same numbers.
    const auto th = bar_chart(Lang::th, {"c1", "x", "DAI", 18, days(30), values});
    EXPECT_NE(th.find("วันที่สูงสุด"), std::string::npos);
    EXPECT_EQ(heights(th), heights(svg));
}

TEST(Overview, NinetyDaysFitTheSameWidth) {
    std::vector<BigInt> values(90, 5);
    const auto svg = bar_chart(Lang::en, {"c2", "t", "USDC", 6, days(90), values});
    EXPECT_EQ(heights(svg).size(), 90u);
    EXPECT_NE(svg.find("viewBox=\"0 0 800 192\""), std::string::npos);
}

}  // namespace
}  // namespace duepay::api::dashboard
