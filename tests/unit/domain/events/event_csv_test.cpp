// The CSV form of `duepay events export`: the documented columns in order, each type's cells, and
// RFC 4180 quoting of free text.
#include "domain/events/event_csv.hpp"

#include <gtest/gtest.h>

#include "tests/unit/domain/events/examples.hpp"

namespace duepay::domain::events {
namespace {

std::vector<std::string> split_line(const std::string& line) {
    std::vector<std::string> cells(1);
    bool quoted = false;
    for (std::size_t i = 0; i < line.size(); ++i) {
        const char c = line[i];
        if (quoted && c == '"' && i + 1 < line.size() && line[i + 1] == '"') {
            cells.back() += '"';
            ++i;
        } else if (c == '"') {
            quoted = !quoted;
        } else if (c == ',' && !quoted) {
            cells.emplace_back();
        } else if (c != '\n' || quoted) {
            cells.back() += c;
        }
    }
    return cells;
}

TEST(EventCsv, HeaderNamesTheDocumentedColumns) {
    EXPECT_EQ(csv_header(),
              "partition,offset,id,type,schemaVersion,invoiceId,projectId,mode,chainId,occurredAt,"
              "token,amount,txHash,logIndex,blockNumber,rail,from,confirmedTotal,reference,"
              "paymentMode,metadata,exception,actorKind,actor,note\n");
}

TEST(EventCsv, CreatedCarriesTheMetadataAsAJsonCell) {
    auto created = examples::all().front();
    std::string plain;
    append_csv_row(plain, created, 0, 1);
    EXPECT_EQ(split_line(plain).at(20), "");  // none: an empty cell
    std::get<ChargeCreated>(created.data).metadata = {{"order_id", "A-1"}, {"note", "x,y"}};
    std::string row;
    append_csv_row(row, created, 0, 1);
    EXPECT_EQ(split_line(row).at(20), R"({"note":"x,y","order_id":"A-1"})") << row;
}

TEST(EventCsv, ResolutionCarriesItsExceptionActorAndQuotedNote) {
    const auto resolved = examples::all().at(13);
    ASSERT_EQ(event_type(resolved), ExceptionResolved::kType);
    std::string row;
    append_csv_row(row, resolved, 0, 9);
    const auto cells = split_line(row);
    ASSERT_EQ(cells.size(), 25u) << row;
    EXPECT_EQ(cells[21], "partial");
    EXPECT_EQ(cells[22], "wallet");
    EXPECT_EQ(cells[23], "0x" + std::string(40, 'a'));
    EXPECT_EQ(cells[24], "Buyer pays the rest by bank transfer, \"INV-7\".\nChecked: ok");
    EXPECT_NE(row.find(R"("Buyer pays the rest by bank transfer, ""INV-7"".)"), std::string::npos);
}

TEST(EventCsv, EveryTypeGivesOneRowOfTheHeaderWidth) {
    const auto width = split_line(csv_header()).size();
    for (const auto& event : examples::all()) {
        std::string row;
        append_csv_row(row, event, 2, 41);
        ASSERT_EQ(row.back(), '\n');
        const auto cells = split_line(row);
        EXPECT_EQ(cells.size(), width) << row;
        EXPECT_EQ(cells[0], "2");
        EXPECT_EQ(cells[1], "41");
        EXPECT_EQ(cells[3], event_type(event));
        EXPECT_EQ(cells[9], event.occurred_at);
    }
}

TEST(EventCsv, PaidCarriesThePaymentAndTheTotal) {
    const auto events = examples::all();
    std::string row;
    append_csv_row(row, events[4], 0, 7);  // charge.paid
    const auto cells = split_line(row);
    EXPECT_EQ(cells[10], to_hex(examples::addr(0x33).bytes));  // token
    EXPECT_EQ(cells[11], "10073743");                          // amount
    EXPECT_EQ(cells[12], to_hex(examples::hash(102)));         // txHash
    EXPECT_EQ(cells[13], "3");
    EXPECT_EQ(cells[14], "102");
    EXPECT_EQ(cells[15], "wallet");
    EXPECT_EQ(cells[17], "10073743");  // confirmedTotal
    EXPECT_EQ(cells[18], "");          // no reference on a payment
}

TEST(EventCsv, FreeTextIsQuoted) {
    auto created = examples::all().front();
    std::get<ChargeCreated>(created.data).reference = "a,b \"c\"\nd";
    std::string row;
    append_csv_row(row, created, 0, 0);
    EXPECT_NE(row.find(R"("a,b ""c""
d")"),
              std::string::npos)
        << row;
    EXPECT_EQ(split_line(row)[18], "a,b \"c\"\nd");
    EXPECT_EQ(split_line(row)[19], "both");
}

}  // namespace
}  // namespace duepay::domain::events
