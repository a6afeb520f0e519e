// Seeded fuzzing of POST /v1/invoices (ADR 0043): at least 10,000 create bodies —
// random and mutated valid ones: NULs, invalid UTF-8, overlong forms, surrogates, huge numbers, odd
// JSON types, long strings, Thai, emoji, byte flips — through validation -> event -> decode ->
// projection row. Every answer is either a 4xx with a code (and no invalid byte echoed), or a 201
// whose appended event decodes, re-encodes byte for byte, and maps to a storable row; a 201 only
// for a body whose every string is storable text, with the amount and reference taken in full.
// DUEPAY_FUZZ_SEED picks another seed, DUEPAY_FUZZ_CASES another count.
#include <gtest/gtest.h>
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>

#include <cstdlib>
#include <iostream>
#include <random>

#include "api/http/charges_api.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"
#include "projections/charges/charge_projection.hpp"
#include "tests/doubles/api_ports.hpp"
#include "tests/unit/api/surface.hpp"

namespace duepay::api {
namespace {

namespace ev = domain::events;

constexpr const char* kKey = "dp_test_fuzz";

const char* kChains = R"({"chains":[
 {"chainId":80002,"name":"amoy","network":"testnet","rpcUrl":"http://x","transferRail":true,"feeBps":100,
  "router":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0","depositFactory":"0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  "forwarderInitCodeHash":"0x83ea636e1a7c5ea12df9fdbfbc95e938d35dc623aa2849608e73092fcdeca678","graceSeconds":120,
  "defaultToken":"USDT","tokens":[{"symbol":"USDT","name":"t","address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}]}]})";

class FixedRate final : public ports::RateSource {
  public:
    ports::Quote quote(domain::money::FiatCurrency, std::string_view, domain::ChainId) override {
        ports::Quote q;
        q.fiat_per_token = domain::money::parse_rate("35.5").value();
        q.source = "fixed";
        q.updated_at = q.read_at =
            std::chrono::system_clock::time_point(std::chrono::seconds(1'800'000'000));
        return q;
    }
};

// Pieces the generator splices into bodies.
const std::vector<std::string> kStrings = {
    "order-1",
    "",
    "a\\u0000b",
    "\\u0000",
    "1000\\u00009",
    std::string("x\xff"),
    std::string("\xc0\xaf"),
    std::string("\xe0\x80\xaf"),
    std::string("\xed\xa0\x80"),
    std::string("\xf4\x90\x80\x80"),
    std::string("\xf8\x88\x80\x80\x80"),
    std::string("ok\xe0\xb8"),
    "\\ud800",
    "\\udc00",
    "\\ud83d\\ude00",
    "\xe0\xb8\x81\xe0\xb8\xb2\xe0\xb8\xa3",
    "\xf0\x9f\x98\x80",
    "https://shop.example/r",
    "http://localhost:3000/x",
    "https://shop.example/\\u0000",
    "USDT",
    "USDT\\u0000",
    "wallet",
    "transfer",
    "both",
    "wallet\\u0000",
    "THB",
    "USD",
    "350.00",
    "1.005",
    "1500000",
    "0",
    "-1",
    "01",
    "1e6",
    " 1",
    "1000\\u0000",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C8",
    "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
    "0x70997970C51812dc3A010C7d01b50e0d17dc79C\\u0000",
    "\\\\",
    "\\\"",
    "\\n\\t",
    "\\u001f",
    "\\u007f",
    "115792089237316195423570985008687907853269984665640564039457584007913129639935",
    "115792089237316195423570985008687907853269984665640564039457584007913129639936"};
const std::vector<std::string> kScalars = {"true",
                                           "false",
                                           "null",
                                           "[]",
                                           "{}",
                                           "0",
                                           "-0",
                                           "1",
                                           "-1",
                                           "1.5",
                                           "1e400",
                                           "-1e400",
                                           "18446744073709551615",
                                           "18446744073709551616",
                                           "80002",
                                           "137",
                                           "86400",
                                           "86401",
                                           "3600",
                                           "[\"a\"]",
                                           "{\"a\":1}",
                                           "99999999999999999999999999999999999999"};
const std::vector<std::string> kFields = {
    "chainId",   "amount",           "fiat",     "token", "paymentMode", "reference",
    "returnUrl", "expiresInSeconds", "merchant", "note"};

std::string pick(std::mt19937_64& rng, const std::vector<std::string>& v) {
    return v[std::uniform_int_distribution<std::size_t>(0, v.size() - 1)(rng)];
}

std::string random_text(std::mt19937_64& rng, std::size_t max_units) {
    static const std::vector<std::string> kUnits = {"a",
                                                    "Z",
                                                    "0",
                                                    " ",
                                                    "-",
                                                    "\xe0\xb8\x81",
                                                    "\xf0\x9f\x98\x80",
                                                    "\xc3\xa9",
                                                    "\\u0000",
                                                    "\\u00e9",
                                                    std::string("\xff"),
                                                    std::string("\x80"),
                                                    "\\ud800",
                                                    "/",
                                                    ":"};
    const std::size_t n = std::uniform_int_distribution<std::size_t>(0, max_units)(rng);
    std::string s;
    for (std::size_t i = 0; i < n; ++i) s += pick(rng, kUnits);
    return s;
}

std::string value_for(std::mt19937_64& rng, const std::string& field) {
    switch (std::uniform_int_distribution<int>(0, 9)(rng)) {
        case 0:
            return pick(rng, kScalars);
        case 1:
            return "\"" +
                   random_text(rng, std::uniform_int_distribution<int>(0, 1)(rng) ? 20 : 400) +
                   "\"";
        case 2:
            return "\"" +
                   std::string(std::uniform_int_distribution<std::size_t>(250, 2100)(rng), 'r') +
                   "\"";
        case 3:
            if (field == "fiat") {
                return R"({"currency":")" + pick(rng, kStrings) + R"(","amount":")" +
                       pick(rng, kStrings) + "\"}";
            }
            [[fallthrough]];
        default:
            return "\"" + pick(rng, kStrings) + "\"";
    }
}

// A valid body, then 0-3 fields replaced, removed or added, then sometimes raw byte mutations.
std::string generate(std::mt19937_64& rng) {
    std::vector<std::pair<std::string, std::string>> members = {{"chainId", "80002"}};
    if (std::uniform_int_distribution<int>(0, 4)(rng) == 0) {
        members.emplace_back("fiat", R"({"currency":"THB","amount":"350.00"})");
    } else {
        members.emplace_back("amount", "\"1500000\"");
    }
    if (std::uniform_int_distribution<int>(0, 1)(rng))
        members.emplace_back("reference", "\"order-42\"");
    if (std::uniform_int_distribution<int>(0, 2)(rng) == 0) {
        members.emplace_back("returnUrl", "\"https://shop.example/done\"");
    }
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
        members.emplace_back("paymentMode", "\"wallet\"");
    if (std::uniform_int_distribution<int>(0, 3)(rng) == 0)
        members.emplace_back("expiresInSeconds", "600");
    const int edits = std::uniform_int_distribution<int>(0, 3)(rng);
    for (int e = 0; e < edits; ++e) {
        const std::string field = pick(rng, kFields);
        auto it = std::find_if(members.begin(), members.end(),
                               [&](const auto& m) { return m.first == field; });
        const int op = std::uniform_int_distribution<int>(0, 9)(rng);
        if (op == 0 && it != members.end()) {
            members.erase(it);
        } else if (op == 1) {
            members.emplace_back(field, value_for(rng, field));  // a duplicate member
        } else if (op == 2) {
            members.emplace_back(random_text(rng, 6), value_for(rng, field));  // odd member name
        } else if (it != members.end()) {
            it->second = value_for(rng, field);
        } else {
            members.emplace_back(field, value_for(rng, field));
        }
    }
    std::string body = "{";
    for (std::size_t i = 0; i < members.size(); ++i) {
        if (i > 0) body += ",";
        body += "\"" + members[i].first + "\":" + members[i].second;
    }
    body += "}";
    if (std::uniform_int_distribution<int>(0, 5)(rng) == 0) {  // raw byte mutations
        const int flips = std::uniform_int_distribution<int>(1, 4)(rng);
        for (int f = 0; f < flips && !body.empty(); ++f) {
            const auto at = std::uniform_int_distribution<std::size_t>(0, body.size() - 1)(rng);
            const auto byte = static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
            switch (std::uniform_int_distribution<int>(0, 2)(rng)) {
                case 0:
                    body[at] = byte;
                    break;
                case 1:
                    body.insert(body.begin() + static_cast<std::ptrdiff_t>(at), byte);
                    break;
                default:
                    body.erase(at, 1);
                    break;
            }
        }
    }
    return body;
}

// The oracle for a 201: the body is JSON whose every string (names too) is storable text.
bool all_strings_storable(const rapidjson::Value& v) {
    if (v.IsString()) return domain::is_storable_text({v.GetString(), v.GetStringLength()});
    if (v.IsObject()) {
        for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
            if (!domain::is_storable_text({it->name.GetString(), it->name.GetStringLength()}))
                return false;
            if (!all_strings_storable(it->value)) return false;
        }
    }
    if (v.IsArray()) {
        for (const auto& e : v.GetArray()) {
            if (!all_strings_storable(e)) return false;
        }
    }
    return true;
}

TEST(CreateFuzz, EveryBodyIsA4xxWithACodeOrAnEventThatRoundTripsAndProjects) {
    const char* seed_env = std::getenv("DUEPAY_FUZZ_SEED");
    const std::uint64_t seed = seed_env != nullptr ? std::stoull(seed_env) : 20261123;
    const char* cases_env = std::getenv("DUEPAY_FUZZ_CASES");
    const int cases = cases_env != nullptr ? std::stoi(cases_env) : 12000;
    std::cout << "[ fuzz ] seed " << seed << ", " << cases
              << " cases (DUEPAY_FUZZ_SEED, DUEPAY_FUZZ_CASES)\n";
    std::mt19937_64 rng(seed);

    doubles::FakeKeys keys;
    keys.add(kKey, doubles::key_owner("key_fuzz", "prj_fuzz", Mode::test));
    doubles::FakeReader rows;  // none: no create resumes here
    doubles::FakeWaiter waiter;
    doubles::FakeLog log;
    FixedRate rates;
    auto chains = infra::config::ChainRegistry::parse(kChains).value();
    std::uint64_t counter = 0;
    doubles::FakeLister lister;
    ApiDeps deps;
    deps.charges = &rows;
    deps.lister = &lister;
    deps.waiter = &waiter;
    deps.log = &log;
    deps.chains = &chains;
    deps.signer = nullptr;  // no intent signature: the fuzz is about the event, not the signer
    deps.checkout_url = "https://pay.example";
    deps.now_ms = [] { return std::int64_t{1'800'000'000'000}; };
    deps.new_invoice_id = [&] {
        domain::InvoiceId id{};
        for (int i = 0; i < 8; ++i)
            id.bytes[static_cast<std::size_t>(24 + i)] =
                static_cast<std::uint8_t>(counter >> (8 * i));
        return id;
    };
    deps.new_event_id = [&] { return "fuzz-" + std::to_string(counter); };
    deps.rates = &rates;
    ChargesApi api(std::move(deps));
    test::Surface surface(keys, api);

    std::map<long, int> statuses;
    std::map<std::string, int> codes;
    for (int i = 0; i < cases; ++i) {
        ++counter;
        const std::string body = generate(rng);
        const std::string where = "case " + std::to_string(i) + " seed " + std::to_string(seed) +
                                  " body " + domain::escape_for_log(body, 400);
        ApiRequest request;
        request.method = "POST";
        request.path = "/v1/invoices";
        request.body = body;
        request.headers["x-api-key"] = kKey;
        request.headers["content-type"] = "application/json";
        const std::size_t appended_before = log.records.size();
        std::optional<ApiResponse> response;
        surface.handle(request, [&](ApiResponse r) { response = std::move(r); });
        ASSERT_TRUE(response.has_value()) << where;
        ++statuses[response->status];
        ASSERT_TRUE(domain::is_valid_utf8(response->body))
            << "the answer echoes invalid bytes: " << where;
        rapidjson::Document answer;
        answer.Parse(response->body.data(), response->body.size());
        ASSERT_FALSE(answer.HasParseError()) << where;
        if (response->status != 201) {
            ASSERT_GE(response->status, 400) << where;
            ASSERT_LT(response->status, 500) << response->body << " " << where;
            ASSERT_EQ(log.records.size(), appended_before)
                << "a refused create appended: " << where;
            ASSERT_TRUE(answer["meta"].IsObject() && answer["meta"]["code"].IsString()) << where;
            const std::string code = answer["meta"]["code"].GetString();
            ASSERT_FALSE(code.empty()) << where;
            ++codes[code];
            continue;
        }
        ASSERT_EQ(log.records.size(), appended_before + 1) << where;
        const std::string& bytes = log.records.back().value;
        auto event = ev::decode_event(bytes);
        ASSERT_TRUE(event.ok()) << event.error().message << " " << where;
        ASSERT_EQ(ev::encode_event(*event), bytes) << "not byte-exact: " << where;
        const std::span<const ev::Event> one(&event.value(), 1);
        const auto row = projections::charges::project_charge(one);
        ASSERT_TRUE(row.has_value()) << where;
        ASSERT_TRUE(projections::charges::row_is_storable(*row)) << where;
        // What was accepted is what was sent, in full: strict JSON, storable strings, the amount
        // and the reference byte for byte (a NUL never cuts a string short).
        rapidjson::Document strict;
        strict.Parse<rapidjson::kParseValidateEncodingFlag>(body.data(), body.size());
        ASSERT_FALSE(strict.HasParseError())
            << rapidjson::GetParseError_En(strict.GetParseError()) << " " << where;
        ASSERT_TRUE(all_strings_storable(strict)) << where;
        const auto& created = std::get<ev::ChargeCreated>(event->data);
        if (strict.HasMember("amount") && strict["amount"].IsString()) {
            EXPECT_EQ(domain::money::to_string(created.amount),
                      std::string(strict["amount"].GetString(), strict["amount"].GetStringLength()))
                << where;
        }
        if (strict.HasMember("reference") && strict["reference"].IsString()) {
            ASSERT_TRUE(created.reference.has_value()) << where;
            EXPECT_EQ(*created.reference, std::string(strict["reference"].GetString(),
                                                      strict["reference"].GetStringLength()))
                << where;
            EXPECT_LE(domain::utf8_code_points(*created.reference), 255u) << where;
        }
    }
    for (const auto& [status, n] : statuses)
        std::cout << "[ fuzz ] HTTP " << status << ": " << n << "\n";
    for (const auto& [code, n] : codes) std::cout << "[ fuzz ] " << code << ": " << n << "\n";
    // The generator must reach both outcomes and the new refusal.
    EXPECT_GT(statuses[201], cases / 20);
    EXPECT_GT(codes["invalid_string"], cases / 50);
    EXPECT_GT(codes["invalid_json"], 0);
}

}  // namespace
}  // namespace duepay::api
