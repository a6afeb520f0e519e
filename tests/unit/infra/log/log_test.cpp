// The logfmt log (ADR 0130): one line per record, fields in a fixed order, every value that is not
// a plain word quoted and escaped, the level threshold, DUEPAY_LOG_LEVEL.
#include "infra/log/log.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <string>
#include <vector>

#include "infra/config/env.hpp"

namespace duepay::infra::log {
namespace {

class Captured : public ::testing::Test {
  protected:
    void SetUp() override {
        set_sink([this](std::string_view line) { lines_.emplace_back(line); });
        set_level(Level::info);
    }
    void TearDown() override {
        set_sink({});
        set_level(Level::info);
        unsetenv("DUEPAY_LOG_LEVEL");
    }
    std::vector<std::string> lines_;
};

TEST(LogFormat, EscapesControlCharactersQuotesAndNonAscii) {
    EXPECT_EQ(escape_value("/v1/charges/0xab"), "/v1/charges/0xab");
    EXPECT_EQ(escape_value("a\nb\r\x1b[31m"), "a\\x0ab\\x0d\\x1b[31m");
    EXPECT_EQ(escape_value(R"(x" status=200 y\)"), R"(x\" status=200 y\\)");
    EXPECT_EQ(escape_value("\xe0\xb8\x81\x7f"), "\\xe0\\xb8\\x81\\x7f");
    EXPECT_EQ(escape_value(std::string("a\0b", 3)), "a\\x00b");
    EXPECT_EQ(escape_value(std::string(10, 'p'), 4), "pppp...");
}

TEST(LogFormat, BareWordsStayBareEverythingElseIsQuoted) {
    EXPECT_EQ(format_value("req_1.retry-2"), "req_1.retry-2");
    EXPECT_EQ(format_value("127.0.0.1:8080/x@y+z"), "127.0.0.1:8080/x@y+z");
    EXPECT_EQ(format_value(""), "\"\"");
    EXPECT_EQ(format_value("two words"), "\"two words\"");
    EXPECT_EQ(format_value("k=v"), "\"k=v\"");
    EXPECT_EQ(format_value("a\"b"), "\"a\\\"b\"");
}

TEST(LogFormat, OneLineTimestampLevelRoleFieldsMessage) {
    const auto at = std::chrono::system_clock::time_point(std::chrono::milliseconds(1795447251123));
    const std::string line =
        format_line(at, Level::warn, "projector", {{"invoice_id", "inv_1"}, {"n", "3"}},
                    "row deferred\nts=forged level=error");
    EXPECT_EQ(line,
              "ts=2026-11-23T15:20:51.123Z level=warn role=projector invoice_id=inv_1 n=3 "
              "msg=\"row deferred\\x0ats=forged level=error\"\n");
    EXPECT_EQ(line.find('\n'), line.size() - 1);
}

TEST_F(Captured, RecordsBelowTheThresholdAreDropped) {
    constexpr Logger log{"api"};
    log.debug() << "not shown";
    log.info().with("request_id", "r1") << "shown " << 42;
    set_level(Level::error);
    log.warn() << "not shown either";
    log.error() << "failure";
    ASSERT_EQ(lines_.size(), 2u);
    EXPECT_NE(lines_[0].find(" level=info role=api request_id=r1 msg=\"shown 42\"\n"),
              std::string::npos)
        << lines_[0];
    EXPECT_NE(lines_[1].find(" level=error role=api msg=failure\n"), std::string::npos)
        << lines_[1];
}

TEST_F(Captured, LevelFromTheEnvironment) {
    setenv("DUEPAY_LOG_LEVEL", "WARN", 1);
    init_from_env();
    EXPECT_EQ(current_level(), Level::warn);
    setenv("DUEPAY_LOG_LEVEL", "debug", 1);
    init_from_env();
    EXPECT_EQ(current_level(), Level::debug);
    setenv("DUEPAY_LOG_LEVEL", "", 1);
    init_from_env();
    EXPECT_EQ(current_level(), Level::info);
    setenv("DUEPAY_LOG_LEVEL", "loud", 1);
    EXPECT_THROW(init_from_env(), config::ConfigError);
}

}  // namespace
}  // namespace duepay::infra::log
