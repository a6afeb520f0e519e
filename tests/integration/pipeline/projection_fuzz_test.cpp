// The integration variant of create_fuzz_test (ADR 0043): seeded charge.created records with odd
// text (NUL, invalid UTF-8, surrogates, Thai, emoji, long), huge chain ids and raw byte mutations
// go through the projector's apply_batch on the real Postgres. Every record ends up exactly once:
// either applied (its row holds the text byte for byte) or quarantined at its offset, and the pure
// model (decode, re-encode, row_is_storable) predicts which: what the API admits, Postgres stores.
// DUEPAY_FUZZ_SEED picks another seed.
#include <gtest/gtest.h>

#include <iostream>
#include <limits>
#include <pqxx/pqxx>
#include <random>

#include "domain/events/event_json.hpp"
#include "infra/postgres/charge_store.hpp"
#include "projections/charges/charge_projection.hpp"
#include "projections/charges/charge_projector.hpp"
#include "tests/integration/pipeline/event_stream.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

namespace ev = domain::events;

std::string random_text(std::mt19937_64& rng) {
    static const std::vector<std::string> kUnits = {"a",
                                                    "Z",
                                                    "0",
                                                    " ",
                                                    "/",
                                                    "\xe0\xb8\x81",
                                                    "\xf0\x9f\x98\x80",
                                                    "\xc3\xa9",
                                                    std::string(1, '\0'),
                                                    "\xff",
                                                    "\x80",
                                                    "\xc0\xaf",
                                                    "\xed\xa0\x80",
                                                    "\xf4\x90\x80\x80",
                                                    "\\",
                                                    "\"",
                                                    "\x01"};
    const int n = std::uniform_int_distribution<int>(
        1, std::uniform_int_distribution<int>(0, 9)(rng) == 0 ? 300 : 12)(rng);
    std::string s;
    for (int i = 0; i < n; ++i) {
        // Mostly storable text, so both outcomes are common.
        const bool odd = std::uniform_int_distribution<int>(0, 29)(rng) == 0;
        s += odd ? kUnits[std::uniform_int_distribution<std::size_t>(8, kUnits.size() - 1)(rng)]
                 : kUnits[std::uniform_int_distribution<std::size_t>(0, 7)(rng)];
    }
    return s;
}

TEST(ProjectionFuzz, EveryRecordIsAppliedOrQuarantinedAsThePureModelPredicts) {
    DUEPAY_REQUIRE_STACK(env);
    const char* seed_env = std::getenv("DUEPAY_FUZZ_SEED");
    const std::uint64_t seed = seed_env != nullptr ? std::stoull(seed_env) : 20261123;
    std::cout << "[ fuzz ] seed " << seed << " (DUEPAY_FUZZ_SEED)\n";
    std::mt19937_64 rng(seed);
    const std::string tag = "pfuzz-" + unique_suffix();
    const std::string topic = "duepay.test." + tag;
    const std::string group = "duepay-test-" + tag;
    constexpr int kCases = 400;
    const auto stream = make_event_stream(kCases, tag);

    std::vector<infra::kafka::ConsumedMessage> messages;
    std::vector<bool> predicted_ok;
    for (int i = 0; i < kCases; ++i) {
        auto event = ev::decode_event(stream[static_cast<std::size_t>(i) * 5].value).value();
        auto& created = std::get<ev::ChargeCreated>(event.data);
        switch (std::uniform_int_distribution<int>(0, 5)(rng)) {
            case 0:
                created.return_url = "https://shop.example/" + random_text(rng);
                break;
            case 1:
                created.token_symbol = random_text(rng);
                break;
            case 2:
                event.chain_id = domain::ChainId{std::numeric_limits<std::uint64_t>::max() - 1};
                break;
            default:
                created.reference = random_text(rng);
                break;
        }
        std::string bytes = ev::encode_event(event);
        if (std::uniform_int_distribution<int>(0, 9)(rng) == 0) {
            bytes[std::uniform_int_distribution<std::size_t>(0, bytes.size() - 1)(rng)] =
                static_cast<char>(std::uniform_int_distribution<int>(0, 255)(rng));
        }
        // The model: decodes, re-encodes byte for byte, maps to a storable row.
        bool ok = false;
        if (auto back = ev::decode_event(bytes)) {
            const std::span<const ev::Event> one(&back.value(), 1);
            const auto row = projections::charges::project_charge(one);
            ok = ev::encode_event(*back) == bytes && row &&
                 projections::charges::row_is_storable(*row);
        }
        infra::kafka::ConsumedMessage m;
        m.topic = topic;
        m.partition = 0;
        m.offset = i;
        m.key = stream[static_cast<std::size_t>(i) * 5].key;
        m.value = bytes;
        messages.push_back(std::move(m));
        predicted_ok.push_back(ok);
    }

    pqxx::connection conn(env.database_url);
    infra::postgres::prepare_charge_statements(conn);
    std::size_t quarantined = 0;
    for (std::size_t start = 0; start < messages.size(); start += 50) {
        const std::vector<infra::kafka::ConsumedMessage> batch(
            messages.begin() + static_cast<std::ptrdiff_t>(start),
            messages.begin() + static_cast<std::ptrdiff_t>(start + 50));
        pqxx::work tx(conn);
        quarantined += projections::charges::apply_batch(tx, group, batch).quarantined;
        tx.commit();
    }

    pqxx::read_transaction tx(conn);
    std::size_t applied = 0, expected_ok = 0;
    for (std::size_t i = 0; i < messages.size(); ++i) {
        const auto& m = messages[i];
        const bool in_quarantine =
            !tx.exec_params(
                   "select 1 from quarantined_events where consumer_group = $1 and \"offset\" = $2",
                   group, m.offset)
                 .empty();
        const auto row = tx.exec_params(
            "select reference, return_url, token_symbol from charges where invoice_id = $1", m.key);
        const std::string where = "case " + std::to_string(i) + " seed " + std::to_string(seed);
        EXPECT_NE(in_quarantine, !row.empty()) << "applied and quarantined, or neither: " << where;
        EXPECT_EQ(!row.empty(), predicted_ok[i]) << "the model and Postgres disagree: " << where;
        expected_ok += predicted_ok[i] ? 1 : 0;
        if (row.empty()) continue;
        ++applied;
        const auto event = ev::decode_event(m.value).value();
        const auto& created = std::get<ev::ChargeCreated>(event.data);
        EXPECT_EQ(row[0][0].is_null() ? std::optional<std::string>() : row[0][0].as<std::string>(),
                  created.reference)
            << where;
        EXPECT_EQ(row[0][1].is_null() ? std::optional<std::string>() : row[0][1].as<std::string>(),
                  created.return_url)
            << where;
    }
    const auto next =
        tx.exec_params1(
              "select next_offset from consumer_offsets where group_id = $1 and topic = $2", group,
              topic)[0]
            .as<long long>();
    std::cout << "[ fuzz ] " << applied << " applied, " << quarantined << " quarantined of "
              << kCases << "\n";
    EXPECT_EQ(next, kCases);
    EXPECT_EQ(applied + quarantined, static_cast<std::size_t>(kCases));
    EXPECT_EQ(applied, expected_ok);
    EXPECT_GT(applied, static_cast<std::size_t>(kCases / 4));
    EXPECT_GT(quarantined, static_cast<std::size_t>(kCases / 10));
}

}  // namespace
}  // namespace duepay::tests
