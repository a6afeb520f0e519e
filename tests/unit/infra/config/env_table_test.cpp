// The one table of environment variables (infra/config/env_table.hpp) against what reads it, what
// `duepay --help` prints and what docs/operations.md ("Environment") lists: every row is in the
// docs with its default, the docs list no variable the table lacks, and the reading functions
// refuse a name outside the table or a default that differs from it.
#include "infra/config/env_table.hpp"

#include <gtest/gtest.h>
#include <stdlib.h>

#include <fstream>
#include <map>
#include <regex>
#include <set>
#include <sstream>
#include <string>

#include "infra/config/env.hpp"

namespace duepay::infra::config {
namespace {

// The rows of the "## Environment" section of docs/operations.md: name -> the row's text.
std::map<std::string, std::string> documented() {
    std::ifstream in(std::string(DUEPAY_SOURCE_DIR) + "/docs/operations.md");
    EXPECT_TRUE(in.good());
    std::map<std::string, std::string> rows;
    bool inside = false;
    const std::regex row(R"(^\| `([A-Z0-9_<a-zA-Z>]+)` \|(.*)$)");
    for (std::string line; std::getline(in, line);) {
        if (line.starts_with("## ")) inside = line == "## Environment";
        std::smatch m;
        if (inside && std::regex_match(line, m, row)) rows[m[1]] = m[2];
    }
    return rows;
}

TEST(EnvTable, NamesAreUniqueAndSorted) {
    std::string last;
    for (const auto& v : env_table()) {
        EXPECT_LT(last, std::string(v.name)) << "rows out of order or repeated at " << v.name;
        last = std::string(v.name);
        EXPECT_FALSE(v.meaning.empty()) << v.name;
        EXPECT_FALSE(v.roles.empty()) << v.name;
    }
    EXPECT_GT(env_table().size(), 40u);
}

TEST(EnvTable, DocsListEveryRowWithItsDefaultAndNothingElse) {
    const auto docs = documented();
    ASSERT_FALSE(docs.empty()) << "docs/operations.md has no \"## Environment\" table";
    for (const auto& v : env_table()) {
        const auto it = docs.find(std::string(v.name));
        ASSERT_NE(it, docs.end()) << v.name << " is missing from docs/operations.md";
        if (v.kind == EnvVar::Kind::required) {
            EXPECT_NE(it->second.find("required"), std::string::npos) << v.name;
        } else if (v.kind == EnvVar::Kind::defaulted && !v.fallback.empty()) {
            EXPECT_NE(it->second.find("`" + std::string(v.fallback) + "`"), std::string::npos)
                << v.name << ": docs/operations.md does not give its default " << v.fallback;
        }
    }
    for (const auto& [name, _] : docs) {
        EXPECT_NE(find_env_var(name), nullptr) << name << " is documented but not in the table";
    }
}

TEST(EnvTable, HelpShowsEveryRowWithItsDefault) {
    const auto help = env_help();
    for (const auto& v : env_table()) {
        EXPECT_NE(help.find("  " + std::string(v.name) + " ("), std::string::npos) << v.name;
        if (v.kind == EnvVar::Kind::defaulted && !v.fallback.empty()) {
            EXPECT_NE(
                help.find(std::string(v.name) + " (default: " + std::string(v.fallback) + ")"),
                std::string::npos)
                << v.name;
        }
    }
}

TEST(EnvTable, FamiliesMatchTheirMembers) {
    ASSERT_NE(find_env_var("DUEPAY_START_BLOCK_137"), nullptr);
    EXPECT_EQ(find_env_var("DUEPAY_START_BLOCK_137")->name, "DUEPAY_START_BLOCK_<chainId>");
    ASSERT_NE(find_env_var("DUEPAY_KAFKA_SECURITY_PROTOCOL"), nullptr);
    EXPECT_EQ(find_env_var("DUEPAY_KAFKA_"), nullptr);
    EXPECT_EQ(find_env_var("DUEPAY_NO_SUCH_THING"), nullptr);
}

TEST(EnvTable, ReadingRefusesANameOutsideTheTableOrAnotherDefault) {
    ::setenv("DUEPAY_NO_SUCH_THING", "1", 1);
    EXPECT_THROW(env_or("DUEPAY_NO_SUCH_THING", ""), ConfigError);
    EXPECT_THROW(require_env("DUEPAY_NO_SUCH_THING"), ConfigError);
    ::unsetenv("DUEPAY_NO_SUCH_THING");
    ::unsetenv("DUEPAY_API_THREADS");
    EXPECT_EQ(env_int_or("DUEPAY_API_THREADS", 2, 1, 64), 2);
    EXPECT_THROW(env_int_or("DUEPAY_API_THREADS", 3, 1, 64), ConfigError);
    ::unsetenv("DUEPAY_TOPIC");
    EXPECT_EQ(env_or("DUEPAY_TOPIC", "duepay.charge-events.v1"), "duepay.charge-events.v1");
    EXPECT_THROW(env_or("DUEPAY_TOPIC", "other"), ConfigError);
    // An optional row has no single default: each reader says what unset means.
    ::unsetenv("DUEPAY_CHECKOUT_URL");
    EXPECT_EQ(env_or("DUEPAY_CHECKOUT_URL", ""), "");
    ::setenv("DUEPAY_START_BLOCK_80002", "17", 1);
    EXPECT_EQ(env_int_or("DUEPAY_START_BLOCK_80002", 0, 0, 1LL << 62), 17);
    ::unsetenv("DUEPAY_START_BLOCK_80002");
}

}  // namespace
}  // namespace duepay::infra::config
