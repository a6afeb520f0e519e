// Schema evolution over the real stack (label integration; ADR 0199): a topic
// holding version 1 and version 2 of charge.paid is projected by the real projector loop and
// rebuilt by the real replay into the same read model rows. This build has no version 2 yet, so
// the test passes its own version table (tests/support/paid_v2.hpp) to run_projector and
// run_replay, the one place the decoder takes it from (ProjectorSettings::versions,
// ReplaySettings::versions; the binary has no switch for it). Without that table, this build's
// projector quarantines a version 2 record with the version message instead of misreading it.
// Each test has its own database (every migration applied) and its own topic.
#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <pqxx/pqxx>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "consumers/analysts/replay.hpp"
#include "consumers/roles/projector.hpp"
#include "domain/hex.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/kafka/topic_admin.hpp"
#include "infra/random/random.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"
#include "tests/support/paid_v2.hpp"

namespace duepay::tests {
namespace {

namespace ev = domain::events;
using Record = std::pair<std::string, std::string>;  // key (the invoice id), value (the JSON)

constexpr int kPairs = 3;  // charges paid in the old form, each with a twin paid in the new form

struct Charge {
    std::string invoice_id;
    paid_v2::Stream stream;
};

Charge new_charge(const std::string& tag) {
    const domain::InvoiceId invoice{infra::random::random_bytes<32>()};
    return {domain::to_hex(invoice),
            paid_v2::stream(invoice, "prj_schema_v2", tag, infra::random::random_bytes<32>())};
}

std::int64_t count(const std::string& url, const std::string& sql) {
    pqxx::connection c(url);
    pqxx::read_transaction tx(c);
    return tx.exec1(sql)[0].as<std::int64_t>();
}

// What the read model says of a charge: the fields the paid event decides.
std::string row_of(const std::string& url, const std::string& table, const std::string& id) {
    pqxx::connection c(url);
    pqxx::read_transaction tx(c);
    auto r = tx.exec_params(
        "select status || ' ' || amount_confirmed || ' ' || updated_at::text "
        "|| ' ' || jsonb_array_length(timeline) from " +
            table + " where invoice_id = $1",
        id);
    return r.empty() ? "<none>" : r[0][0].as<std::string>();
}

class SchemaVersionsTest : public ::testing::Test {
  protected:
    void SetUp() override {
        std::string missing;
        auto env = stack_env(missing);
        if (!env) GTEST_SKIP() << "integration stack not configured: " << missing;
        env_ = *env;
        const auto suffix = unique_suffix();
        db_name_ = "duepay_schema_v2_" + std::to_string(getpid());
        url_ = create_database(env_, db_name_);
        topic_ = "duepay.schema-v2-test." + suffix;
        group_ = "schema-v2-" + suffix;
        infra::kafka::ensure_topic(env_.kafka_bootstrap, topic_, 3, std::chrono::seconds(30));
    }
    void TearDown() override {
        if (!db_name_.empty()) drop_database(env_, db_name_);
    }

    void produce(const std::vector<Record>& records) {
        infra::kafka::ProducerSettings settings;
        settings.bootstrap = env_.kafka_bootstrap;
        settings.topic = topic_;
        infra::kafka::KafkaEventLog log(settings);
        std::atomic<int> acked{0};
        for (const auto& [key, value] : records) {
            log.append_async({key, value}, [&](ports::AppendResult r) {
                if (r.ok()) ++acked;
            });
        }
        EXPECT_EQ(log.flush(std::chrono::seconds(20)), 0);
        ASSERT_EQ(acked.load(), static_cast<int>(records.size()));
    }

    // The projector loop on the test's topic until `done` holds (30 s at most); its exit code.
    int project_until(const ev::SchemaVersions* versions, const std::function<bool()>& done) {
        consumers::ProjectorSettings s;
        s.bootstrap = env_.kafka_bootstrap;
        s.topic = topic_;
        s.group_id = group_;
        s.database_url = url_;
        s.versions = versions;
        std::atomic<bool> stop{false};
        int rc = -1;
        std::thread loop([&] { rc = consumers::run_projector(s, stop); });
        const bool reached = wait_until(done, std::chrono::seconds(30));
        stop = true;
        loop.join();
        EXPECT_TRUE(reached) << "the projector did not get there within 30 s";
        return rc;
    }

    StackEnv env_;
    std::string db_name_, url_, topic_, group_;
};

TEST_F(SchemaVersionsTest, VersionOneAndTwoOfATypeProjectAndReplayIntoTheSameRows) {
    std::vector<Charge> old_form, new_form;
    std::vector<Record> records;
    for (int i = 0; i < kPairs; ++i) {
        old_form.push_back(new_charge("v1-" + std::to_string(i)));
        new_form.push_back(new_charge("v2-" + std::to_string(i)));
        records.emplace_back(old_form.back().invoice_id, old_form.back().stream.created);
        records.emplace_back(old_form.back().invoice_id, old_form.back().stream.paid_v1);
        records.emplace_back(new_form.back().invoice_id, new_form.back().stream.created);
        records.emplace_back(new_form.back().invoice_id, new_form.back().stream.paid_v2);
    }
    produce(records);
    EXPECT_EQ(project_until(&paid_v2::kVersions,
                            [&] {
                                return count(url_,
                                             "select count(*) from charges where status = "
                                             "'paid'") == 2 * kPairs;
                            }),
              0);
    EXPECT_EQ(count(url_, "select count(*) from quarantined_events"), 0);
    for (int i = 0; i < kPairs; ++i) {
        const auto old_row = row_of(url_, "charges", old_form[i].invoice_id);
        EXPECT_TRUE(old_row.starts_with("paid 10073743 ")) << old_row;
        EXPECT_EQ(old_row, row_of(url_, "charges", new_form[i].invoice_id));
    }
    // The journal keeps each record in the form it was written: the old form stays the old form.
    EXPECT_EQ(count(url_,
                    "select count(*) from charge_events where type = 'charge.paid' and "
                    "payload->>'schemaVersion' = '1' and payload->'data' ? 'total'"),
              kPairs);

    // The replay reads the same topic with the same table into a shadow schema and compares it
    // with the live rows (exit 0: equal; nothing swapped).
    consumers::ReplaySettings r;
    r.bootstrap = env_.kafka_bootstrap;
    r.database_url = url_;
    r.topic = topic_;
    r.schema = "duepay_schema_v2_replay";
    r.live_group = group_;
    r.versions = &paid_v2::kVersions;
    std::atomic<bool> stop{false};
    ASSERT_EQ(consumers::run_replay(r, stop), 0);
    EXPECT_EQ(count(url_,
                    "select count(*) from duepay_schema_v2_replay.charges where status = "
                    "'paid'"),
              2 * kPairs);
    for (int i = 0; i < kPairs; ++i) {
        for (const auto* c : {&old_form[i], &new_form[i]}) {
            EXPECT_EQ(row_of(url_, "duepay_schema_v2_replay.charges", c->invoice_id),
                      row_of(url_, "charges", c->invoice_id));
        }
    }
}

TEST_F(SchemaVersionsTest, ThisBuildQuarantinesAVersionItCannotReadInsteadOfMisreadingIt) {
    const auto c = new_charge("v2-only");
    produce({{c.invoice_id, c.stream.created}, {c.invoice_id, c.stream.paid_v2}});
    EXPECT_EQ(
        project_until(nullptr,
                      [&] { return count(url_, "select count(*) from quarantined_events") == 1; }),
        0);
    pqxx::connection conn(url_);
    pqxx::read_transaction tx(conn);
    const auto q = tx.exec1("select error, convert_from(value, 'UTF8') from quarantined_events");
    EXPECT_NE(q[0].as<std::string>().find("schemaVersion: must be 1"), std::string::npos)
        << q[0].as<std::string>();
    EXPECT_EQ(q[1].as<std::string>(), c.stream.paid_v2);  // the record, byte for byte
    const auto row = row_of(url_, "charges", c.invoice_id);
    EXPECT_FALSE(row.starts_with("paid")) << row;  // the created is applied, the paid is not
    EXPECT_NE(row, "<none>");
}

}  // namespace
}  // namespace duepay::tests
