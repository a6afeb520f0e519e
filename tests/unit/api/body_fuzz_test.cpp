// Hostile bodies, up to the 64 KB body limit, through every REST route that reads a JSON body: the
// create, webhook endpoints (create, update), the project (PATCH), the key roll, the payout wallet
// (challenge, verify) and refunds, each over its port doubles. The generator makes what an
// attacker sends: nesting to the full size (arrays, objects, both), nesting just under and over
// the limit, long strings of every escape, thousands of keys, repeated names (plain, escaped,
// nested, last of thousands), huge numbers, and byte mutations of valid bodies.
//
// Every answer must be the envelope: a 2xx, or a 4xx whose meta.code is set (never a 5xx, never a
// crash). Where the generator knows the input's defect, the code must be that defect's:
// json_too_deep past 32 levels, duplicate_field for a repeated name in otherwise valid JSON.
// The run prints how many inputs it tried and the slowest (route, kind, microseconds); it never
// fails on time. DUEPAY_FUZZ_SEED and DUEPAY_FUZZ_CASES change the seed and the count (the long
// run of bench/RESULTS.md).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <cstdlib>
#include <functional>
#include <iostream>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "api/http/account_api.hpp"
#include "api/http/refunds_api.hpp"
#include "api/http/webhooks_api.hpp"
#include "tests/unit/api/charges_api_fixture.hpp"

namespace duepay::api::test {
namespace {

constexpr std::size_t kBodyLimit = 64 * 1024;  // the HTTP edge's max_body_bytes

enum class Defect { none, too_deep, duplicate, unknown };

struct Input {
    std::string kind;
    std::string body;
    Defect defect = Defect::unknown;
};

struct NoHistory final : ChargeHistory {
    std::vector<std::string> events(const std::string&) override { return {}; }
};

class BodyFuzz : public ChargesApiTest {
  protected:
    BodyFuzz() {
        accounts_.projects["prj_a"] = doubles::project_view("prj_a");
        WebhooksApiDeps w;
        w.endpoints = &endpoints_;
        w.allow_insecure = true;  // no DNS in a unit test
        w.now_ms = [] { return std::int64_t{1'800'000'000'000}; };
        webhooks_ = std::make_unique<WebhooksApi>(std::move(w));
        account_ = std::make_unique<AccountApi>(AccountApiDeps{&accounts_, &key_cache_});
        RefundsApiDeps r;
        r.charges = &reader_;
        r.history = &history_;
        r.log = &log_;
        r.now_ms = [] { return std::int64_t{1'800'000'000'000}; };
        refunds_ = std::make_unique<RefundsApi>(std::move(r));
        surface_ = std::make_unique<Surface>(key_cache_, *api_, *webhooks_, *account_, *refunds_);
    }

    doubles::FakeWebhookEndpoints endpoints_;
    doubles::FakeAccounts accounts_;
    NoHistory history_;
    std::unique_ptr<WebhooksApi> webhooks_;
    std::unique_ptr<AccountApi> account_;
    std::unique_ptr<RefundsApi> refunds_;
};

struct Route {
    const char* method;
    const char* path;
    std::string valid;  // a body the route accepts (or refuses only on its content)
};

const std::vector<Route>& routes() {
    static const std::vector<Route> r = {
        {"POST", "/v1/invoices",
         R"({"chainId":80002,"amount":"1000000","reference":"order-1","metadata":{"a":"b"}})"},
        {"POST", "/v1/webhook-endpoints",
         R"({"url":"http://127.0.0.1:9/hook","events":["invoice.paid"],"description":"d"})"},
        {"PATCH", "/v1/webhook-endpoints/we_1", R"({"description":"d","enabled":true})"},
        {"PATCH", "/v1/project", R"({"name":"Acme","paymentWindowSeconds":900})"},
        {"POST", "/v1/api-keys/roll", R"({"expiresInSeconds":0})"},
        {"POST", "/v1/payout-wallet/challenge",
         R"({"address":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8"})"},
        {"POST", "/v1/payout-wallet/verify", R"({"challengeId":"wch_1","signature":"0x00"})"},
        {"POST",
         "/v1/charges/0x4242424242424242424242424242424242424242424242424242424242424242/refunds",
         R"({"txHash":"0x00"})"},
    };
    return r;
}

// The pieces of strings: every JSON escape, invalid ones, and raw bytes of every UTF-8 class.
const std::vector<std::string> kEscapes = {
    "\\\"",
    "\\\\",
    "\\/",
    "\\b",
    "\\f",
    "\\n",
    "\\r",
    "\\t",
    "\\u0000",
    "\\u0041",
    "\\u00e9",
    "\\u0e01",
    "\\ud83d\\ude00",
    "\\ud800",
    "\\udc00",
    "\\uffff",
    "\\u",
    "\\u12",
    "\\x",
    "\\",
    "a",
    "\xe0\xb8\x81",
    "\xf0\x9f\x98\x80",
    "\xff",
    "\xc0\xaf",
    "\xed\xa0\x80",
    std::string(1, '\0'),
};

std::string repeat_to(std::string_view unit, std::size_t size) {
    std::string out;
    out.reserve(size);
    while (out.size() + unit.size() <= size) out += unit;
    return out;
}

// An input of each kind the generator knows, sized by `rng`; `valid` is the route's body.
Input generate(std::mt19937_64& rng, const std::string& valid) {
    auto pick = [&](std::size_t n) { return static_cast<std::size_t>(rng() % n); };
    const std::string head = valid.substr(0, valid.size() - 1);  // valid without its closing }
    switch (pick(13)) {
        case 12:  // the route's own valid body: the path past validation runs too
            return {"valid", valid, Defect::none};
        case 0: {  // arrays as deep as the body allows, under a member
            const std::size_t depth = 1 + pick((kBodyLimit - head.size() - 16) / 2);
            return {"deep arrays",
                    head + R"(,"x":)" + std::string(depth, '[') + std::string(depth, ']') + "}",
                    depth + 1 > 32 ? Defect::too_deep : Defect::unknown};
        }
        case 1: {  // objects as deep as the body allows
            const std::size_t depth = 1 + pick((kBodyLimit - head.size() - 16) / 6);
            std::string body = head + R"(,"x":)";
            for (std::size_t i = 0; i < depth; ++i) body += R"({"a":)";
            body += "1" + std::string(depth, '}') + "}";
            return {"deep objects", body, depth + 1 > 32 ? Defect::too_deep : Defect::unknown};
        }
        case 2: {  // around the limit: 30..34 levels of both kinds, closed properly
            const std::size_t depth = 30 + pick(5);
            std::string open, close;
            for (std::size_t i = 0; i < depth; ++i) {
                if (pick(2) == 0) {
                    open += "[";
                    close.insert(0, "]");
                } else {
                    open += R"({"k":)";
                    close.insert(0, "}");
                }
            }
            // The root object is level 1: the innermost value sits at depth + 1.
            return {"near the limit", head + R"(,"x":)" + open + "0" + close + "}",
                    depth + 1 > 32 ? Defect::too_deep : Defect::unknown};
        }
        case 3: {  // a long string of one escape or byte class
            const auto& unit = kEscapes[pick(kEscapes.size())];
            return {
                "long string",
                head + R"(,"reference":")" + repeat_to(unit, kBodyLimit - head.size() - 20) + "\"}",
                Defect::unknown};
        }
        case 4: {  // thousands of distinct keys
            std::string body = "{";
            for (std::size_t i = 0; body.size() < kBodyLimit - 40; ++i)
                body.append("\"k").append(std::to_string(i)).append("\":1,");
            body.back() = '}';
            return {"many keys", body, Defect::unknown};
        }
        case 5: {  // thousands of keys, the last one repeating one of them
            std::string body = "{";
            std::size_t n = 0;
            for (; body.size() < kBodyLimit - 80; ++n)
                body.append("\"k").append(std::to_string(n)).append("\":1,");
            body.append("\"k").append(std::to_string(pick(n))).append("\":2}");
            return {"many keys, one repeated", body, Defect::duplicate};
        }
        case 6: {  // a route's own member given twice, last value different
            return {"repeated member", head + "," + valid.substr(1), Defect::duplicate};
        }
        case 7: {  // a repeated name spelled with an escape, or repeated one level down
            if (pick(2) == 0) {
                return {"repeated via escape", R"({"\u0061mount":"1","amount":"2"})",
                        Defect::duplicate};
            }
            return {"repeated nested",
                    head + R"(,"fiat":{"currency":"USD","amount":"1.00","currency":"THB"}})",
                    Defect::duplicate};
        }
        case 8: {  // huge numbers
            const std::string digits = repeat_to("9", kBodyLimit / 2);
            const char* forms[] = {"", "-", "0.", "1e", "1e-"};
            return {"huge number", head + R"(,"chainId":)" + forms[pick(5)] + digits + "}",
                    Defect::unknown};
        }
        case 9: {  // many empty containers side by side (wide, not deep)
            return {"wide",
                    head + R"(,"x":[)" + repeat_to("[],{},", kBodyLimit - head.size() - 16) + "0]}",
                    Defect::unknown};
        }
        case 10: {  // unclosed nesting up to the limit of the body (a syntax error when short)
            return {"unclosed", head + R"(,"x":)" + std::string(kBodyLimit - head.size() - 8, '['),
                    Defect::too_deep};
        }
        default: {  // byte mutations of the valid body
            std::string body = valid;
            const std::size_t edits = 1 + pick(8);
            for (std::size_t i = 0; i < edits && !body.empty(); ++i) {
                const std::size_t at = pick(body.size());
                switch (pick(4)) {
                    case 0:
                        body[at] = static_cast<char>(rng());
                        break;
                    case 1:
                        body.erase(at, 1);
                        break;
                    case 2:
                        body.insert(at, kEscapes[pick(kEscapes.size())]);
                        break;
                    default:
                        body.insert(at, body.substr(at, pick(body.size() - at + 1)));
                }
            }
            return {"mutated", body.substr(0, kBodyLimit), Defect::unknown};
        }
    }
}

std::string meta_code(const ApiResponse& r) {
    rapidjson::Document d;
    d.Parse(r.body.c_str());
    if (d.HasParseError() || !d.IsObject() || !d.HasMember("meta") || !d["meta"].IsObject() ||
        !d["meta"].HasMember("code") || !d["meta"]["code"].IsString()) {
        return "";
    }
    return d["meta"]["code"].GetString();
}

TEST_F(BodyFuzz, EveryBodyRouteAnswersEveryHostileBodyInTheEnvelope) {
    const char* seed_env = std::getenv("DUEPAY_FUZZ_SEED");
    const char* cases_env = std::getenv("DUEPAY_FUZZ_CASES");
    const std::uint64_t seed = seed_env ? std::strtoull(seed_env, nullptr, 10) : 20261127;
    const std::size_t cases = cases_env ? std::strtoull(cases_env, nullptr, 10) : 2400;
    std::mt19937_64 rng(seed);

    struct Slowest {
        double us = 0;
        std::string what;
    } slowest;
    std::size_t tried = 0, deep = 0, duplicate = 0, ok = 0;
    struct PerKind {
        std::size_t n = 0;
        double total_us = 0, max_us = 0;
    };
    std::map<std::string, PerKind> kinds;
    for (std::size_t i = 0; i < cases; ++i) {
        const auto& route = routes()[i % routes().size()];
        const auto input = generate(rng, route.valid);
        ASSERT_LE(input.body.size(), kBodyLimit) << input.kind;
        const auto start = std::chrono::steady_clock::now();
        const auto r = call(route.method, route.path, input.body);
        const double us =
            std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start)
                .count();
        ++tried;
        auto& k = kinds[input.kind];
        ++k.n;
        k.total_us += us;
        k.max_us = std::max(k.max_us, us);
        if (us > slowest.us) {
            slowest = {us, std::string(route.method) + " " + route.path + " (" + input.kind + ", " +
                               std::to_string(input.body.size()) + " bytes)"};
        }
        SCOPED_TRACE(std::string(route.method) + " " + route.path + " " + input.kind + " #" +
                     std::to_string(i));
        ASSERT_TRUE(r.status >= 200 && r.status < 500) << r.status << " " << r.body;
        if (r.status >= 300) {
            ASSERT_FALSE(meta_code(r).empty()) << r.body;
        } else {
            ++ok;
        }
        if (input.defect == Defect::too_deep) {
            ++deep;
            EXPECT_EQ(r.status, 400);
            EXPECT_EQ(meta_code(r), "json_too_deep") << r.body.substr(0, 200);
        } else if (input.defect == Defect::duplicate) {
            ++duplicate;
            EXPECT_EQ(r.status, 400);
            EXPECT_EQ(meta_code(r), "duplicate_field") << r.body.substr(0, 200);
        }
    }
    std::cout << "[body fuzz] seed " << seed << ": " << tried << " bodies over " << routes().size()
              << " routes, none crashed; " << deep << " too deep, " << duplicate
              << " with a repeated name, " << ok << " accepted; slowest " << slowest.us
              << " us: " << slowest.what << "\n";
    for (const auto& [kind, k] : kinds) {
        std::cout << "[body fuzz]   " << kind << ": " << k.n << " bodies, mean "
                  << k.total_us / static_cast<double>(k.n) << " us, max " << k.max_us << " us\n";
    }
    EXPECT_GT(deep, 0u);
    EXPECT_GT(duplicate, 0u);
}

// The crash of the past, route by route: 30,000 levels in 60 KB is a 400 json_too_deep, and the
// repeated members that used to be taken silently are refused.
TEST_F(BodyFuzz, TheKnownHostileBodiesAreRefusedOnEveryRoute) {
    const std::string deep = R"({"chainId":80002,"amount":"1","x":)" + std::string(30000, '[') +
                             std::string(30000, ']') + "}";
    for (const auto& route : routes()) {
        SCOPED_TRACE(route.path);
        const auto r = call(route.method, route.path, deep);
        EXPECT_EQ(r.status, 400);
        EXPECT_EQ(meta_code(r), "json_too_deep");
    }
    for (const char* body : {R"({"chainId":80002,"amount":"1","amount":"2"})",
                             R"({"chainId":80002,"chainId":137,"amount":"1"})",
                             R"({"chainId":80002,"amount":"1","metadata":{"a":"1","a":"2"}})"}) {
        const auto r = call("POST", "/v1/invoices", body);
        EXPECT_EQ(r.status, 400) << body;
        EXPECT_EQ(meta_code(r), "duplicate_field") << body;
        EXPECT_EQ(log_.records.size(), 0u) << "nothing is appended for " << body;
    }
    const auto r = call("PATCH", "/v1/project", R"({"name":"First","name":"Second"})");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(meta_code(r), "duplicate_field");
    EXPECT_TRUE(accounts_.updates.empty());
}

}  // namespace
}  // namespace duepay::api::test
