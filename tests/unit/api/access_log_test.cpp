// The access log escapes what a client chose: no forged lines, fields or terminal escapes.
#include "api/http/access_log.hpp"

#include <gtest/gtest.h>

namespace duepay::api {
namespace {

TEST(AccessLog, EscapesControlCharactersQuotesAndNonAscii) {
    EXPECT_EQ(escape_log_value("/v1/charges/0xab"), "/v1/charges/0xab");
    EXPECT_EQ(escape_log_value("a\nb\r\x1b[31m"), "a\\x0ab\\x0d\\x1b[31m");
    EXPECT_EQ(escape_log_value(R"(x" status=200 y\)"), R"(x\" status=200 y\\)");
    EXPECT_EQ(escape_log_value("\xe0\xb8\x81\x7f"), "\\xe0\\xb8\\x81\\x7f");
    EXPECT_EQ(escape_log_value(std::string("a\0b", 3)), "a\\x00b");
    EXPECT_EQ(escape_log_value(std::string(10, 'p'), 4), "pppp...");
}

TEST(AccessLog, OneLineWithQuotedFieldsWhateverThePath) {
    const std::string line =
        access_log_line("req_1", "GET", "/x\napi request_id=forged status=200\" z", 404,
                        std::chrono::milliseconds(3));
    EXPECT_EQ(line,
              "api request_id=req_1 method=\"GET\" path=\"/x\\x0aapi request_id=forged "
              "status=200\\\" z\" "
              "status=404 latency_ms=3.00\n");
    EXPECT_EQ(line.find('\n'), line.size() - 1);
}

}  // namespace
}  // namespace duepay::api
