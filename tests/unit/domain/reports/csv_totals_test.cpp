// RFC 4180 quoting (domain/reports/csv.hpp) and the report's totals
// (domain/reports/settlement_totals.hpp).
#include <gtest/gtest.h>

#include "domain/reports/csv.hpp"
#include "domain/reports/settlement_totals.hpp"

namespace duepay::domain::reports {
namespace {

std::string field(std::string_view text) {
    std::string out;
    append_csv_field(out, text);
    return out;
}

TEST(Csv, QuotesOnlyWhatMustBeQuoted) {
    EXPECT_EQ(field("plain"), "plain");
    EXPECT_EQ(field(""), "");
    EXPECT_EQ(field("a,b"), "\"a,b\"");
    EXPECT_EQ(field("say \"hi\""), "\"say \"\"hi\"\"\"");
    EXPECT_EQ(field("\""), "\"\"\"\"");
    EXPECT_EQ(field("line\nbreak"), "\"line\nbreak\"");
    EXPECT_EQ(field("cr\rhere"), "\"cr\rhere\"");
    EXPECT_EQ(field("{\"order\":\"A-1\"}"), "\"{\"\"order\"\":\"\"A-1\"\"}\"");
    // UTF-8 and other punctuation pass through unquoted
    EXPECT_EQ(field("ร้าน; 'x' \t"), "ร้าน; 'x' \t");
    EXPECT_EQ(field("-1.5"), "-1.5");
}

TEST(Csv, RecordsEndInCrlf) {
    std::string out;
    append_csv_record(out, {"a", "b,c", ""});
    append_csv_record(out, {"x"});
    EXPECT_EQ(out, "a,\"b,c\",\r\nx\r\n");
}

TotalsInput row(std::uint64_t chain, const char* token, RowKind kind, int amount, int fee,
                std::optional<std::string_view> currency = std::nullopt, int fiat = 0,
                int fiat_fee = 0) {
    TotalsInput r;
    r.chain_id = chain;
    r.token = token;
    r.symbol = "USDT";
    r.decimals = 6;
    r.kind = kind;
    r.amount = amount;
    r.fee = fee;
    r.net = amount - fee;
    r.fiat_currency = currency;
    r.fiat_amount = fiat;
    r.fiat_fee = fiat_fee;
    r.fiat_net = fiat - fiat_fee;
    return r;
}

TEST(SettlementTotals, PerTokenAndPerCurrency) {
    TotalsAccumulator acc;
    acc.add(row(80002, "0xB", RowKind::payment, 1000, 10, "THB", 3513, 35));
    acc.add(row(80002, "0xB", RowKind::refund, -400, 0, "THB", -1405, 0));
    acc.add(row(137, "0xB", RowKind::payment, 500, 5));  // the same address on another chain
    acc.add(row(80002, "0xA", RowKind::payment, 7, 0, "USD", 1, 0));
    const auto t = acc.totals();
    ASSERT_EQ(t.tokens.size(), 3u);
    EXPECT_EQ(t.tokens[0].chain_id, 137u);
    EXPECT_EQ(t.tokens[1].token, "0xA");
    const auto& b = t.tokens[2];
    EXPECT_EQ(b.chain_id, 80002u);
    EXPECT_EQ(b.token, "0xB");
    EXPECT_EQ(b.payments, 1u);
    EXPECT_EQ(b.refunds, 1u);
    EXPECT_EQ(b.paid, 1000);
    EXPECT_EQ(b.refunded, 400);
    EXPECT_EQ(b.amount, 600);
    EXPECT_EQ(b.fees, 10);
    EXPECT_EQ(b.net, 590);
    ASSERT_EQ(t.fiat.size(), 2u);
    EXPECT_EQ(t.fiat[0].currency, "THB");
    EXPECT_EQ(t.fiat[0].rows, 2u);
    EXPECT_EQ(t.fiat[0].amount, 3513 - 1405);
    EXPECT_EQ(t.fiat[0].fees, 35);
    EXPECT_EQ(t.fiat[0].net, 3513 - 35 - 1405);
    EXPECT_EQ(t.fiat[1].currency, "USD");
    EXPECT_TRUE(TotalsAccumulator{}.totals().tokens.empty());
}

}  // namespace
}  // namespace duepay::domain::reports
