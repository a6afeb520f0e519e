// Every row of the IANA special-purpose address registries (data/, see its README) against the
// address classes: the first and the last address of each block. A block the registry calls not
// globally reachable (False, N/A, or empty for a terminated row) must never be global for us; a
// block it calls globally reachable must be listed below with what we do and why.
#include <arpa/inet.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <fstream>
#include <map>
#include <set>
#include <sstream>
#include <string>
#include <vector>

#include "domain/webhooks/endpoint_url.hpp"

namespace dw = duepay::domain::webhooks;
using AC = dw::AddressClass;

namespace {

using Row = std::vector<std::string>;

// RFC 4180: quoted cells may hold commas, doubled quotes and line breaks.
std::vector<Row> read_csv(const std::string& path) {
    std::ifstream in(path, std::ios::binary);
    EXPECT_TRUE(in) << "cannot read " << path;
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    std::vector<Row> rows;
    Row row;
    std::string cell;
    bool quoted = false;
    for (std::size_t i = 0; i < text.size(); ++i) {
        const char c = text[i];
        if (quoted) {
            if (c == '"' && i + 1 < text.size() && text[i + 1] == '"') {
                cell += '"';
                ++i;
            } else if (c == '"') {
                quoted = false;
            } else {
                cell += c;
            }
        } else if (c == '"') {
            quoted = true;
        } else if (c == ',') {
            row.push_back(std::move(cell));
            cell.clear();
        } else if (c == '\n' || c == '\r') {
            if (c == '\r' && i + 1 < text.size() && text[i + 1] == '\n') ++i;
            row.push_back(std::move(cell));
            cell.clear();
            rows.push_back(std::move(row));
            row.clear();
        } else {
            cell += c;
        }
    }
    EXPECT_FALSE(quoted) << path << ": unterminated quote";
    if (!cell.empty() || !row.empty()) {
        row.push_back(std::move(cell));
        rows.push_back(std::move(row));
    }
    return rows;
}

std::string trim(std::string s) {
    const auto b = s.find_first_not_of(" \t");
    const auto e = s.find_last_not_of(" \t");
    return b == std::string::npos ? "" : s.substr(b, e - b + 1);
}

// "False [1]" -> "False", "192.0.0.0/24 [2]" -> "192.0.0.0/24".
std::string without_footnote(const std::string& s) { return trim(s.substr(0, s.find('['))); }

std::vector<std::string> blocks_of(const std::string& cell) {
    std::vector<std::string> out;
    std::stringstream in(cell);
    for (std::string b; std::getline(in, b, ',');) out.push_back(without_footnote(b));
    return out;
}

struct Range {
    std::vector<std::uint8_t> first, last;
};

// "a.b.c.d/n" or "x::y/n": the block's first and last address.
Range range_of(const std::string& block) {
    const auto slash = block.find('/');
    EXPECT_NE(slash, std::string::npos) << block;
    const auto text = block.substr(0, slash);
    const int bits = std::stoi(block.substr(slash + 1));
    const bool v6 = text.find(':') != std::string::npos;
    std::vector<std::uint8_t> bytes(v6 ? 16 : 4);
    EXPECT_EQ(::inet_pton(v6 ? AF_INET6 : AF_INET, text.c_str(), bytes.data()), 1) << block;
    Range r{bytes, bytes};
    for (std::size_t i = 0; i < bytes.size(); ++i) {
        const int keep = std::clamp(bits - static_cast<int>(i) * 8, 0, 8);
        const auto mask = static_cast<std::uint8_t>(0xff00 >> keep);
        r.first[i] = bytes[i] & mask;
        r.last[i] = static_cast<std::uint8_t>(bytes[i] | static_cast<std::uint8_t>(~mask));
    }
    return r;
}

AC classify(const std::vector<std::uint8_t>& a) {
    if (a.size() == 4) return dw::classify_ipv4({a[0], a[1], a[2], a[3]});
    std::array<std::uint8_t, 16> b{};
    std::copy(a.begin(), a.end(), b.begin());
    return dw::classify_ipv6(b);
}

std::string show(const std::vector<std::uint8_t>& a) {
    char buf[INET6_ADDRSTRLEN] = {};
    ::inet_ntop(a.size() == 4 ? AF_INET : AF_INET6, a.data(), buf, sizeof buf);
    return buf;
}

// The rows the registry calls globally reachable, and what we do with each: `global` is whether
// the first and last address of the block are global for us.
struct Deliberate {
    bool global;
    const char* why;
};
const std::map<std::string, Deliberate> kGloballyReachable = {
    // IPv4
    {"192.0.0.9/32",
     {false,
      "PCP anycast, inside 192.0.0.0/24 which we refuse whole: an anycast service address is "
      "answered by the nearest instance, possibly one on our own network"}},
    {"192.0.0.10/32", {false, "TURN anycast: as 192.0.0.9"}},
    {"192.31.196.0/24", {false, "AS112 anycast sinks: the nearest instance answers"}},
    {"192.52.193.0/24", {false, "AMT relay anycast: the nearest instance answers"}},
    {"192.175.48.0/24", {false, "AS112 direct delegation anycast: as 192.31.196.0/24"}},
    // IPv6
    {"64:ff9b::/96",
     {false,
      "NAT64: judged by the IPv4 address it carries; the first (0.0.0.0) and last "
      "(255.255.255.255) are not global, while 64:ff9b::8.8.8.8 is (NatAndTunnelForms)"}},
    {"2001:1::1/128", {false, "PCP anycast, as 192.0.0.9; the rest of 2001::/23 is refused"}},
    {"2001:1::2/128", {false, "TURN anycast, as 192.0.0.10"}},
    {"2001:1::3/128", {false, "DNS-SD registration anycast: the nearest instance answers"}},
    {"2001:3::/32", {false, "AMT relay anycast, as 192.52.193.0/24"}},
    {"2001:4:112::/48", {false, "AS112 anycast, as 192.31.196.0/24"}},
    {"2001:20::/28", {false, "ORCHIDv2: identifiers, not locators; no receiver is there"}},
    {"2001:30::/28", {false, "drone entity tags: identifiers, not locators"}},
    {"2620:4f:8000::/48", {false, "AS112 direct delegation anycast, as 192.175.48.0/24"}},
};

void check_registry(const std::string& file, std::size_t min_rows) {
    const auto rows = read_csv(std::string(DUEPAY_IANA_REGISTRY_DIR) + "/" + file);
    ASSERT_GT(rows.size(), min_rows) << file;
    const Row header = rows.front();
    ASSERT_EQ(header.size(), 10u) << file;
    ASSERT_EQ(header[0], "Address Block");
    ASSERT_EQ(header[8], "Globally Reachable");
    std::size_t checked = 0;
    for (std::size_t i = 1; i < rows.size(); ++i) {
        const auto& row = rows[i];
        ASSERT_EQ(row.size(), 10u) << file << " row " << i;
        const auto reachable = without_footnote(row[8]);
        ASSERT_TRUE(reachable == "True" || reachable == "False" || reachable == "N/A" ||
                    (reachable.empty() && row[4] != "N/A"))
            << file << ": " << row[0] << " has Globally Reachable '" << row[8] << "'";
        for (const auto& block : blocks_of(row[0])) {
            bool want_global = false;
            std::string why = "registry: Globally Reachable ";
            why += reachable.empty() ? "empty (terminated " + row[4] + ")" : reachable;
            if (reachable == "True") {
                const auto it = kGloballyReachable.find(block);
                ASSERT_NE(it, kGloballyReachable.end())
                    << block << " (" << row[1]
                    << ") is globally reachable in the registry and not in kGloballyReachable: "
                       "decide what we do with it and why";
                want_global = it->second.global;
                why = it->second.why;
            }
            const auto r = range_of(block);
            for (const auto& a : {r.first, r.last}) {
                const auto c = classify(a);
                if (want_global) {
                    EXPECT_EQ(c, AC::global) << block << " " << show(a) << ": " << why;
                } else {
                    EXPECT_NE(c, AC::global)
                        << block << " " << show(a) << " (" << row[1] << "): " << why;
                    EXPECT_FALSE(dw::may_connect(c, false)) << block << " " << show(a);
                }
                ++checked;
            }
        }
    }
    EXPECT_GE(checked, 2 * min_rows);
}

TEST(SpecialPurposeRegistry, Ipv4EveryRow) {
    check_registry("iana-ipv4-special-registry-1.csv", 25);
}

TEST(SpecialPurposeRegistry, Ipv6EveryRow) {
    check_registry("iana-ipv6-special-registry-1.csv", 24);
}

// Every documented difference names a row that is still in the registry.
TEST(SpecialPurposeRegistry, EveryDeliberateDifferenceIsARow) {
    std::set<std::string> seen;
    for (const char* file :
         {"iana-ipv4-special-registry-1.csv", "iana-ipv6-special-registry-1.csv"}) {
        for (const auto& row : read_csv(std::string(DUEPAY_IANA_REGISTRY_DIR) + "/" + file)) {
            for (const auto& b : blocks_of(row[0])) seen.insert(b);
        }
    }
    for (const auto& [block, d] : kGloballyReachable) EXPECT_TRUE(seen.count(block)) << block;
}

// The parser: footnote marks, two blocks in a cell, a quoted cell over two lines.
TEST(SpecialPurposeRegistry, ParsesTheRegistryForm) {
    EXPECT_EQ(without_footnote("False [1]"), "False");
    EXPECT_EQ(without_footnote("N/A [3]"), "N/A");
    EXPECT_EQ(blocks_of("192.0.0.170/32, 192.0.0.171/32"),
              (std::vector<std::string>{"192.0.0.170/32", "192.0.0.171/32"}));
    EXPECT_EQ(blocks_of("2002::/16 [3]"), std::vector<std::string>{"2002::/16"});
    const auto r = range_of("2001::/23");
    EXPECT_EQ(show(r.first), "2001::");
    EXPECT_EQ(show(r.last), "2001:1ff:ffff:ffff:ffff:ffff:ffff:ffff");
    const auto v4 = range_of("198.18.0.0/15");
    EXPECT_EQ(show(v4.last), "198.19.255.255");
}

}  // namespace
