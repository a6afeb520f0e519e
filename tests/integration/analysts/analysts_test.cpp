// The analysts' surface against the real stack (label integration): a synthetic history of 400
// charges (analysts_events_producer) on a fresh topic, projected by a real `duepay projector`;
// then `duepay events export` (JSON Lines into DuckDB, CSV, filters, --since/--until by Kafka's
// offsets for times) and `duepay charge history --at` at the instants around a payment.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <fstream>
#include <future>
#include <pqxx/pqxx>
#include <sstream>
#include <thread>

#include "domain/events/event.hpp"
#include "infra/kafka/kafka_event_log.hpp"
#include "infra/kafka/topic_admin.hpp"
#include "tests/integration/pipeline/pipeline_support.hpp"

namespace duepay::tests {
namespace {

constexpr int kCharges = 400;                         // 900 events
constexpr std::int64_t kStartMs = 1'793'491'200'000;  // 2026-11-01T00:00:00Z

std::string read_file(const std::string& path) {
    std::ifstream in(path);
    std::stringstream s;
    s << in.rdbuf();
    return s.str();
}

template <class T>
T value(pqxx::transaction_base& tx, const std::string& sql, const std::string& param) {
    return tx.exec_params1(sql, param)[0].as<T>();
}

std::size_t count_lines(const std::string& text) {
    return static_cast<std::size_t>(std::count(text.begin(), text.end(), '\n'));
}

class AnalystsTest : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        std::string missing;
        auto env = stack_env(missing);
        if (!env) return;
        env_ = new StackEnv(*env);
        const auto suffix = unique_suffix();
        topic_ = new std::string("duepay.test.analysts." + suffix);
        project_ = new std::string("prj_analysts_" + suffix);
        infra::kafka::ensure_topic(env->kafka_bootstrap, *topic_, 3, std::chrono::seconds(20));
        std::string out;
        const int rc = run_command(
            {DUEPAY_PRODUCER, "--topic", *topic_, "--project", *project_, "--charges",
             std::to_string(kCharges), "--start-ms", std::to_string(kStartMs), "--span-days", "3"},
            {}, out, std::chrono::seconds(60));
        ASSERT_EQ(rc, 0) << out;
        // Between the two appends: the record time that splits the topic for --since/--until.
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        split_ms_ = std::chrono::duration_cast<std::chrono::milliseconds>(
                        std::chrono::system_clock::now().time_since_epoch())
                        .count();
        std::this_thread::sleep_for(std::chrono::milliseconds(1100));
        ASSERT_EQ(run_command({DUEPAY_PRODUCER, "--topic", *topic_, "--project",
                               *project_ + "_late", "--charges", "4"},
                              {}, out, std::chrono::seconds(60)),
                  0)
            << out;
        projector_ = new Process({duepay_binary(), "projector", "--topic", *topic_, "--group",
                                  "duepay-test-analysts-" + suffix},
                                 {}, "/tmp/duepay-analysts-projector-" + suffix + ".log");
        const bool projected = wait_until(
            [&] {
                pqxx::connection c(env_->database_url);
                pqxx::read_transaction tx(c);
                return value<int>(tx, "select count(*) from charge_events where topic = $1",
                                  *topic_) == 900 + 9;
            },
            std::chrono::seconds(60));
        ASSERT_TRUE(projected) << projector_->log();
    }
    static void TearDownTestSuite() {
        if (projector_ != nullptr) {
            EXPECT_EQ(projector_->stop(), 0);
        }
        delete projector_;
        delete env_;
        delete topic_;
        delete project_;
        projector_ = nullptr;
        env_ = nullptr;
    }
    void SetUp() override {
        if (env_ == nullptr) GTEST_SKIP() << "integration stack not configured (var/dev.env)";
    }

    // Runs `duepay events export ARGS --out FILE`; returns the file's content.
    static std::string export_events(std::vector<std::string> args) {
        const auto path = "/tmp/duepay-analysts-export-" + unique_suffix();
        std::vector<std::string> argv{duepay_binary(), "events", "export", "--topic",
                                      *topic_,         "--out",  path};
        argv.insert(argv.end(), args.begin(), args.end());
        std::string out;
        EXPECT_EQ(run_command(argv, {}, out, std::chrono::seconds(60)), 0) << out;
        EXPECT_NE(out.find("export: "), std::string::npos) << "no progress on stderr: " << out;
        auto text = read_file(path);
        std::remove(path.c_str());
        return text;
    }

    static rapidjson::Document history(const std::string& invoice, const std::string& at) {
        std::vector<std::string> argv{duepay_binary(), "charge", "history", invoice};
        if (!at.empty()) {
            argv.push_back("--at");
            argv.push_back(at);
        }
        std::string out;
        EXPECT_EQ(run_command(argv, {}, out, std::chrono::seconds(20)), 0) << out;
        rapidjson::Document d;
        d.Parse(out.c_str());
        EXPECT_FALSE(d.HasParseError()) << out;
        return d;
    }

    static StackEnv* env_;
    static std::string* topic_;
    static std::string* project_;
    static std::int64_t split_ms_;
    static Process* projector_;
};

StackEnv* AnalystsTest::env_ = nullptr;
std::string* AnalystsTest::topic_ = nullptr;
std::string* AnalystsTest::project_ = nullptr;
std::int64_t AnalystsTest::split_ms_ = 0;
Process* AnalystsTest::projector_ = nullptr;

TEST_F(AnalystsTest, JsonLinesExportInDuckDbAgreesWithThePostgresReadModel) {
    const auto jsonl = export_events({"--project", *project_});
    EXPECT_EQ(count_lines(jsonl), 900u);
    const auto path = "/tmp/duepay-analysts-duckdb-" + unique_suffix() + ".jsonl";
    std::ofstream(path) << jsonl;
    std::string duck;
    const int rc = run_command({DUEPAY_VENV_PYTHON, DUEPAY_DUCKDB_SCRIPT, path}, {}, duck,
                               std::chrono::seconds(60));
    std::remove(path.c_str());
    ASSERT_EQ(rc, 0) << duck;
    // The same figure from the read model: each paid charge's confirmed amount, per token and UTC
    // day of its paid timeline entry.
    pqxx::connection c(env_->database_url);
    pqxx::read_transaction tx(c);
    const auto rows = tx.exec_params(
        "select lower(token), to_char(((select (e->>'at')::timestamptz from "
        "jsonb_array_elements(timeline) e where e->>'status' = 'paid' limit 1)) at time zone "
        "'UTC', 'YYYY-MM-DD') as day, sum(amount_confirmed)::text, count(*) from charges "
        "where project_id = $1 and status = 'paid' group by 1, 2 order by 2, 1",
        *project_);
    ASSERT_GE(rows.size(), 6u);  // 2 tokens over at least 3 days
    rapidjson::Document d;
    d.Parse(duck.c_str());
    ASSERT_TRUE(d.IsArray()) << duck;
    ASSERT_EQ(d.Size(), rows.size()) << duck;
    int paid = 0;
    for (rapidjson::SizeType i = 0; i < d.Size(); ++i) {
        EXPECT_EQ(std::string(d[i]["token"].GetString()), rows[i][0].as<std::string>());
        EXPECT_EQ(std::string(d[i]["day"].GetString()), rows[i][1].as<std::string>());
        EXPECT_EQ(std::string(d[i]["volume"].GetString()), rows[i][2].as<std::string>());
        EXPECT_EQ(d[i]["charges"].GetInt(), rows[i][3].as<int>());
        paid += rows[i][3].as<int>();
    }
    EXPECT_EQ(paid, kCharges / 2);
}

TEST_F(AnalystsTest, CsvExportFiltersByTypeAndInvoice) {
    const auto csv = export_events({"--format", "csv", "--type", "charge.paid"});
    ASSERT_EQ(csv.rfind("partition,offset,id,type,", 0), 0u) << csv.substr(0, 200);
    // 200 paid charges of the main project and 2 of the late one, plus the header.
    EXPECT_EQ(count_lines(csv), 1u + kCharges / 2 + 2);
    EXPECT_EQ(csv.find(",charge.created,"), std::string::npos);

    pqxx::connection c(env_->database_url);
    pqxx::read_transaction tx(c);
    const auto invoice = value<std::string>(
        tx,
        "select invoice_id from charges where project_id = $1 and status = 'paid' "
        "order by invoice_id limit 1",
        *project_);
    const auto one = export_events({"--invoice", invoice});
    EXPECT_EQ(count_lines(one), 3u) << one;  // created, detected, paid
    EXPECT_NE(one.find("\"type\":\"charge.paid\""), std::string::npos);
}

TEST_F(AnalystsTest, SinceAndUntilSplitTheTopicByRecordTime) {
    const auto at = domain::events::format_rfc3339_millis_utc(split_ms_);
    const auto before = export_events({"--until", at});
    const auto after = export_events({"--since", at});
    EXPECT_EQ(count_lines(before), 900u);
    EXPECT_EQ(count_lines(after), 9u);  // 4 charges: pending, paid, paid, expired
    EXPECT_EQ(after.find(*project_ + "\""), std::string::npos);
    EXPECT_NE(after.find(*project_ + "_late\""), std::string::npos);
}

TEST_F(AnalystsTest, HistoryFoldsToAnyInstant) {
    pqxx::connection c(env_->database_url);
    pqxx::read_transaction tx(c);
    const auto invoice = value<std::string>(
        tx,
        "select invoice_id from charges where project_id = $1 and status = 'paid' "
        "order by invoice_id desc limit 1",
        *project_);
    const auto times = tx.exec_params(
        "select type, payload->>'occurredAt' from charge_events where invoice_id = $1 "
        "order by \"offset\"",
        invoice);
    ASSERT_EQ(times.size(), 3u);
    const auto created_at = times[0][1].as<std::string>();
    const auto paid_at = times[2][1].as<std::string>();
    const auto ms = [](const std::string& t) { return *domain::events::parse_rfc3339_millis(t); };
    const auto fmt = domain::events::format_rfc3339_millis_utc;

    auto d = history(invoice, fmt(ms(created_at) - 1));
    EXPECT_TRUE(d["status"].IsNull());
    EXPECT_EQ(d["events"].Size(), 0u);
    EXPECT_EQ(d["laterEvents"].GetInt(), 3);

    d = history(invoice, created_at);
    EXPECT_STREQ(d["status"].GetString(), "pending");

    d = history(invoice, fmt(ms(paid_at) - 1));
    EXPECT_STREQ(d["status"].GetString(), "confirming");
    EXPECT_EQ(d["events"].Size(), 2u);
    EXPECT_STREQ(d["amountConfirmed"].GetString(), "0");

    d = history(invoice, paid_at);
    EXPECT_STREQ(d["status"].GetString(), "paid");
    ASSERT_EQ(d["timeline"].Size(), 3u);
    EXPECT_STREQ(d["timeline"][2]["status"].GetString(), "paid");
    EXPECT_EQ(std::string(d["timeline"][2]["at"].GetString()), paid_at);

    d = history(invoice, "");  // now
    EXPECT_STREQ(d["status"].GetString(), "paid");
    EXPECT_EQ(d["events"].Size(), 3u);
    EXPECT_STREQ(d["events"][2]["type"].GetString(), "charge.paid");

    std::string out;
    EXPECT_EQ(run_command({duepay_binary(), "charge", "history", invoice, "--at", "yesterday"}, {},
                          out, std::chrono::seconds(20)),
              2);
    EXPECT_NE(out.find("invalid_time"), std::string::npos) << out;
    EXPECT_EQ(run_command({duepay_binary(), "charge", "history", "0x" + std::string(64, 'e')}, {},
                          out, std::chrono::seconds(20)),
              1);
    EXPECT_NE(out.find("charge_not_found"), std::string::npos) << out;
}

// A record that repeats an event id (a producer retry when a leader moved, a chain fact re-emitted)
// is exported once, and the skip is counted on stderr. On a topic of its own: two charges, then
// the first record appended again byte for byte.
TEST_F(AnalystsTest, ARecordRepeatingAnEventIdIsExportedOnce) {
    const auto topic = "duepay.test.analysts-repeat." + unique_suffix();
    infra::kafka::ensure_topic(env_->kafka_bootstrap, topic, 1, std::chrono::seconds(20));
    std::string out;
    ASSERT_EQ(run_command({DUEPAY_PRODUCER, "--topic", topic, "--project", *project_ + "_repeat",
                           "--charges", "2"},
                          {}, out, std::chrono::seconds(60)),
              0)
        << out;
    const auto records = read_topic(env_->kafka_bootstrap, topic, 1, std::chrono::seconds(10));
    ASSERT_FALSE(records.empty());
    {
        infra::kafka::ProducerSettings settings;
        settings.bootstrap = env_->kafka_bootstrap;
        settings.topic = topic;
        infra::kafka::KafkaEventLog log(settings);
        std::promise<bool> acked;
        log.append_async({records.front().key, records.front().value},
                         [&](ports::AppendResult r) { acked.set_value(r.ok()); });
        ASSERT_TRUE(acked.get_future().get());
    }
    const auto path = "/tmp/duepay-analysts-repeat-" + unique_suffix();
    ASSERT_EQ(run_command({duepay_binary(), "events", "export", "--topic", topic, "--out", path},
                          {}, out, std::chrono::seconds(60)),
              0)
        << out;
    const auto jsonl = read_file(path);
    std::remove(path.c_str());
    const auto in_topic =
        read_topic(env_->kafka_bootstrap, topic, records.size() + 1, std::chrono::seconds(10));
    ASSERT_EQ(in_topic.size(), records.size() + 1);  // the repeat is in the topic ...
    EXPECT_EQ(count_lines(jsonl), records.size());   // ... and not in the export
    EXPECT_NE(out.find("1 records skipped (an event id already read)"), std::string::npos) << out;
}

// A --topic that names no topic is the caller's mistake: unknown_topic, exit 2 (as the other bad
// flags), not an internal error, and nothing written.
TEST_F(AnalystsTest, AnUnknownTopicIsItsOwnCodeAndExit2) {
    const auto topic = "duepay.test.analysts-missing." + unique_suffix();
    const auto path = "/tmp/duepay-analysts-missing-" + unique_suffix();
    std::string out;
    EXPECT_EQ(run_command({duepay_binary(), "events", "export", "--topic", topic, "--out", path},
                          {}, out, std::chrono::seconds(60)),
              2);
    EXPECT_NE(out.find("\"code\":\"unknown_topic\""), std::string::npos) << out;
    EXPECT_NE(out.find(topic), std::string::npos) << out;
    EXPECT_EQ(out.find("internal_error"), std::string::npos) << out;
    EXPECT_FALSE(std::ifstream(path).good());
}

}  // namespace
}  // namespace duepay::tests
