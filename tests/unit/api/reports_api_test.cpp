// GET /v1/reports/settlements (api/http/reports_api.hpp) over the in-memory SettlementReports
// double: the parameters and their refusals, the CSV (RFC 4180) and JSON bodies drained from the
// streamed answer page by page, the totals summed from the rows sent, a store that fails; the
// stream's reader of the next page: many pages in order, a failed page ending the body after the
// pages before it, and a stream abandoned mid-body that stops and joins its reader.
#include "api/http/reports_api.hpp"

#include <gtest/gtest.h>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <vector>

#include "domain/json.hpp"
#include "tests/doubles/settlement_reports.hpp"

namespace duepay::api {
namespace {

ports::SettlementLine line(int i, const std::string& kind, const std::string& amount,
                           const std::string& fee) {
    ports::SettlementLine l;
    l.invoice_id = "0x" + std::string(62, 'a') + (i < 10 ? "0" : "") + std::to_string(i);
    l.kind = kind;
    l.tx_hash = "0x" + std::string(63, 'b') + std::to_string(i % 10);
    l.log_index = i;
    l.project_id = "prj_a";
    l.mode = "test";
    l.chain_id = 80002;
    l.token = "0x1111111111111111111111111111111111111111";
    l.token_symbol = "USDT";
    l.token_decimals = 6;
    l.block_number = 100 + static_cast<std::uint64_t>(i);
    l.confirmed_us = 1'795'000'000'000'000LL + i * 1'000'000LL;
    l.confirmed_at = domain::events::format_rfc3339_millis_utc(l.confirmed_us / 1000);
    l.reference = "order, \"" + std::to_string(i) + "\"";
    l.metadata_json = R"({"k":"v, w"})";
    l.amount = amount;
    l.fee = fee;
    l.net = std::to_string(std::stoll(amount) - std::stoll(fee));
    l.fiat_currency = "THB";
    l.fiat_rate = "35.125";
    l.fiat_amount = "35.13";
    l.fiat_fee = "0.35";
    l.fiat_net = "34.78";
    if (kind == "refund") {
        l.refund_id = "rf_" + std::to_string(i);
        l.fiat_amount = "-35.13";
        l.fiat_fee = "0.00";
        l.fiat_net = "-35.13";
    }
    return l;
}

ApiRequest get(const std::string& query) {
    ApiRequest r;
    r.method = "GET";
    r.path = "/v1/reports/settlements";
    r.query = query;
    return r;
}

std::string drain(ApiResponse& r) {
    std::string body = r.body;
    if (!r.stream) return body;
    for (int i = 0; i < 10000; ++i) {
        std::string part;  // as the edge does: each call fills a part of its own
        const bool more = r.stream(part);
        body += part;
        if (!more) return body;
    }
    ADD_FAILURE() << "the producer never ended";
    return body;
}

class Reports : public ::testing::Test {
  protected:
    doubles::FakeSettlementReports store;
    const domain::ProjectId project{"prj_a"};
    void SetUp() override {
        for (int i = 0; i < 5; ++i)
            store.lines.push_back(i == 3 ? line(i, "refund", "-1000000", "0")
                                         : line(i, "payment", "1000000", "10000"));
        auto other = line(7, "payment", "5", "0");
        other.project_id = "prj_b";
        store.lines.push_back(other);
        auto live = line(8, "payment", "5", "0");
        live.mode = "live";
        store.lines.push_back(live);
    }
    ApiResponse report(const std::string& query, std::size_t page_rows = 2) {
        auto parsed = parse_settlement_request(get(query));
        if (auto* refused = std::get_if<ApiResponse>(&parsed)) return *refused;
        return settlement_report(store, project, domain::events::Mode::test,
                                 std::get<SettlementRequest>(parsed), page_rows);
    }
};

std::string code_of(const ApiResponse& r) {
    const auto at = r.body.find("\"code\":\"");
    return at == std::string::npos ? "" : r.body.substr(at + 8, r.body.find('"', at + 8) - at - 8);
}

TEST_F(Reports, RefusesBadParametersInTheEnvelope) {
    const std::pair<const char*, const char*> cases[] = {
        {"to=2026-12-01", "invalid_from"},
        {"from=yesterday&to=2026-12-01", "invalid_from"},
        {"from=2026-11-01", "invalid_to"},
        {"from=2026-11-01&to=2026-13-01", "invalid_to"},
        {"from=2026-11-01&to=2026-11-01", "invalid_period"},
        {"from=2026-12-01&to=2026-11-01", "invalid_period"},
        {"from=2025-11-01&to=2026-11-03", "invalid_period"},
        {"from=2026-11-01&to=2026-12-01&format=xml", "invalid_format"},
        {"from=2026-11-01&to=2026-12-01&limit=5", "unknown_field"},
        {"from=2026-11-01%00&to=2026-12-01", "invalid_from"},
    };
    for (const auto& [query, code] : cases) {
        const auto r = report(query);
        EXPECT_EQ(r.status, 400) << query;
        EXPECT_EQ(code_of(r), code) << query;
        EXPECT_FALSE(r.stream) << query;
    }
    EXPECT_EQ(store.pages.load(), 0u);
    // 366 days exactly is allowed.
    EXPECT_EQ(report("from=2024-01-01&to=2025-01-01").status, 200);
}

TEST_F(Reports, CsvIsRfc4180AndStreamedPageByPage) {
    auto r = report("from=2026-11-01T00:00:00Z&to=2027-01-01&format=csv", 2);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-type"], "text/csv; charset=utf-8");
    EXPECT_EQ(r.headers["content-disposition"],
              "attachment; filename=\"duepay-settlements-prj_a-test-2026-11-01-2027-01-01.csv\"");
    ASSERT_TRUE(r.stream);
    // The first page is read before the answer; the second may already be being read ahead.
    EXPECT_GE(store.pages.load(), 1u);
    EXPECT_LE(store.pages.load(), 2u);
    const auto body = drain(r);
    EXPECT_EQ(store.pages.load(), 3u);  // 2 + 2 + 1 rows
    EXPECT_EQ(body.rfind(settlement_csv_header(), 0), 0u);
    EXPECT_EQ(settlement_csv_header().substr(0, 30), "kind,invoice_id,reference,meta");
    std::string expected = settlement_csv_header();
    for (int i = 0; i < 5; ++i)
        append_settlement_csv(expected, store.lines[static_cast<std::size_t>(i)]);
    EXPECT_EQ(body, expected);
    // One payment row, field by field: quoted where RFC 4180 says, amounts with all decimals.
    EXPECT_NE(body.find("payment,0x" + std::string(62, 'a') +
                        "00,\"order, \"\"0\"\"\","
                        "\"{\"\"k\"\":\"\"v, w\"\"}\",80002,"
                        "0x1111111111111111111111111111111111111111,USDT,6,"),
              std::string::npos)
        << body;
    EXPECT_NE(body.find(",1.000000,1000000,0.010000,10000,0.990000,990000,THB,35.125,35.13,0.35,"
                        "34.78,\r\n"),
              std::string::npos)
        << body;
    EXPECT_NE(body.find(",-1.000000,-1000000,0.000000,0,-1.000000,-1000000,THB,35.125,-35.13,"
                        "0.00,-35.13,rf_3\r\n"),
              std::string::npos)
        << body;
    // Another project's row and the other mode's are not there.
    EXPECT_EQ(body.find(std::string(62, 'a') + "07"), std::string::npos);
    EXPECT_EQ(body.find(std::string(62, 'a') + "08"), std::string::npos);
}

TEST_F(Reports, JsonHasTheRowsThenTheTotalsOfTheRowsSent) {
    auto r = report("from=2026-11-01&to=2027-01-01", 3);
    ASSERT_EQ(r.status, 200);
    EXPECT_EQ(r.headers["content-type"], "application/json");
    const auto body = drain(r);
    rapidjson::Document d;
    ASSERT_EQ(domain::json::parse(d, body).refusal, domain::json::Refusal::none) << body;
    EXPECT_TRUE(d["success"].GetBool());
    ASSERT_EQ(d["data"].Size(), 5u);
    const auto& refund = d["data"][3];
    EXPECT_STREQ(refund["kind"].GetString(), "refund");
    EXPECT_STREQ(refund["amount"].GetString(), "-1.000000");
    EXPECT_STREQ(refund["amountUnits"].GetString(), "-1000000");
    EXPECT_STREQ(refund["fiat"]["amount"].GetString(), "-35.13");
    EXPECT_STREQ(refund["metadata"]["k"].GetString(), "v, w");
    const auto& totals = d["totals"];
    EXPECT_EQ(totals["rows"].GetUint64(), 5u);
    EXPECT_STREQ(totals["from"].GetString(), "2026-11-01T00:00:00.000Z");
    ASSERT_EQ(totals["tokens"].Size(), 1u);
    const auto& t = totals["tokens"][0];
    EXPECT_EQ(t["payments"].GetUint64(), 4u);
    EXPECT_EQ(t["refunds"].GetUint64(), 1u);
    EXPECT_STREQ(t["paidUnits"].GetString(), "4000000");
    EXPECT_STREQ(t["refundedUnits"].GetString(), "1000000");
    EXPECT_STREQ(t["amount"].GetString(), "3.000000");
    EXPECT_STREQ(t["feeUnits"].GetString(), "40000");
    EXPECT_STREQ(t["netUnits"].GetString(), "2960000");
    ASSERT_EQ(totals["fiat"].Size(), 1u);
    EXPECT_STREQ(totals["fiat"][0]["amount"].GetString(), "105.39");  // 4 x 35.13 - 35.13
    EXPECT_STREQ(totals["fiat"][0]["net"].GetString(), "103.99");     // 4 x 34.78 - 35.13
    EXPECT_TRUE(d["error"].IsNull());
    // An empty period is a valid, empty report.
    auto none = report("from=2020-01-01&to=2020-02-01");
    const auto empty = drain(none);
    EXPECT_NE(empty.find(R"("data":[],"totals":{)"), std::string::npos) << empty;
}

TEST_F(Reports, AStoreThatFailsFailsTheAnswerOrItsBody) {
    store.fail_from_page = 0;
    EXPECT_THROW((void)report("from=2026-11-01&to=2027-01-01"), ports::StoreUnavailable);
    store.pages = 0;
    store.fail_from_page = 1;
    auto r = report("from=2026-11-01&to=2027-01-01&format=csv", 2);
    ASSERT_TRUE(r.stream);
    std::string body;
    EXPECT_THROW(
        {
            while (r.stream(body)) {
            }
        },
        ports::StoreUnavailable);
}

// `count` rows of prj_a in test mode, invoice ids in the report's order (confirmed_us rises).
std::vector<ports::SettlementLine> many(int count) {
    std::vector<ports::SettlementLine> out;
    for (int i = 0; i < count; ++i) {
        auto l = line(i, "payment", "1000000", "10000");
        const auto n = std::to_string(i);
        l.invoice_id = "0x" + std::string(64 - n.size(), '0') + n;
        out.push_back(std::move(l));
    }
    return out;
}

// The invoice id of each CSV record after the header (no field of these rows holds a CRLF; the
// kind, first, holds no comma).
std::vector<std::string> invoice_ids(const std::string& csv) {
    std::vector<std::string> out;
    std::size_t at = csv.find("\r\n") + 2;  // past the header
    while (at < csv.size()) {
        const auto end = csv.find("\r\n", at);
        const auto comma = csv.find(',', at);
        out.push_back(csv.substr(comma + 1, csv.find(',', comma + 1) - comma - 1));
        if (end == std::string::npos) break;
        at = end + 2;
    }
    return out;
}

// Runs `f` on a thread of its own; true when it returned within `limit`. A test that fails this
// leaves the thread behind rather than hang.
template <class F>
bool returns_within(std::chrono::milliseconds limit, F f) {
    std::promise<void> done;
    auto returned = done.get_future();
    std::thread([f = std::move(f), done = std::move(done)]() mutable {
        f();
        done.set_value();
    }).detach();
    return returned.wait_for(limit) == std::future_status::ready;
}

// Polls `condition` every 10 ms for up to 5 s.
template <class C>
bool eventually(C condition) {
    for (int i = 0; i < 500 && !condition(); ++i)
        std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return condition();
}

TEST_F(Reports, ManyPagesArriveWholeAndInOrder) {
    store.lines = many(250);
    auto r = report("from=2026-11-01&to=2027-01-01&format=csv", 7);
    const auto ids = invoice_ids(drain(r));
    ASSERT_EQ(ids.size(), 250u);
    for (std::size_t i = 0; i < ids.size(); ++i)
        ASSERT_EQ(ids[i], store.lines[i].invoice_id) << "row " << i;
    EXPECT_EQ(store.pages.load(), 36u);  // 35 full pages of 7, then a short one of 5
    EXPECT_EQ(store.reading.load(), 0);
}

TEST_F(Reports, AFailedPageEndsTheBodyAfterThePagesBeforeIt) {
    store.lines = many(250);
    store.fail_from_page = 4;  // pages 0 to 3 are read: 28 rows
    auto r = report("from=2026-11-01&to=2027-01-01&format=csv", 7);
    ASSERT_TRUE(r.stream);
    std::string body = r.body;
    EXPECT_THROW(
        {
            while (r.stream(body)) {
            }
        },
        ports::StoreUnavailable);
    const auto ids = invoice_ids(body);
    ASSERT_EQ(ids.size(), 28u);
    EXPECT_EQ(ids.back(), store.lines[27].invoice_id);
    // Nothing is read after the failure.
    r.stream = nullptr;
    EXPECT_EQ(store.pages.load(), 5u);
    EXPECT_EQ(store.reading.load(), 0);
}

TEST_F(Reports, AStreamAbandonedWhileItsNextPageWaitsStopsItsReader) {
    // Pages of 500 rows (far more than one part of the body): after the first part, the reader
    // has read page 2 and waits for the writer to take it.
    store.lines = many(3000);
    auto r = report("from=2026-11-01&to=2027-01-01&format=csv", 500);
    std::string body = r.body;
    ASSERT_TRUE(r.stream(body));
    ASSERT_TRUE(eventually([&] { return store.pages.load() == 2 && store.reading.load() == 0; }));
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    EXPECT_EQ(store.pages.load(), 2u) << "read ahead of more than one page";
    // The client goes away: the edge drops the producer.
    EXPECT_TRUE(returns_within(std::chrono::seconds(5), [s = std::move(r.stream)]() mutable {
        s = nullptr;
    })) << "the stream did not stop its reader";
    EXPECT_EQ(store.pages.load(), 2u);
    EXPECT_EQ(store.reading.load(), 0);
}

TEST_F(Reports, AStreamAbandonedDuringARead) {
    store.lines = many(3000);
    store.hold_from_page = 1;  // the read ahead of page 2 waits for release()
    auto r = report("from=2026-11-01&to=2027-01-01&format=csv", 500);
    std::string body = r.body;
    ASSERT_TRUE(r.stream(body));
    ASSERT_TRUE(eventually([&] { return store.reading.load() == 1; }));
    std::promise<void> dropped;
    auto gone = dropped.get_future();
    std::thread drop([s = std::move(r.stream), &dropped]() mutable {
        s = nullptr;
        dropped.set_value();
    });
    // The stream waits for the read in progress (its thread is joined, not left to run on) ...
    EXPECT_EQ(gone.wait_for(std::chrono::milliseconds(300)), std::future_status::timeout);
    store.release();
    // ... and then ends without reading another page.
    EXPECT_EQ(gone.wait_for(std::chrono::seconds(5)), std::future_status::ready);
    if (gone.wait_for(std::chrono::seconds(0)) == std::future_status::ready) {
        drop.join();
    } else {
        drop.detach();
    }
    EXPECT_EQ(store.pages.load(), 2u);
    EXPECT_EQ(store.reading.load(), 0);
}

}  // namespace
}  // namespace duepay::api
