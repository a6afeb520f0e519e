// No poison event on the real stack (ADR 0043): one request or one record can no longer stop or
// silently drop anything. The API refuses NUL and invalid UTF-8 in any string with a 400 and
// appends nothing; records that reach the topic anyway (produced straight onto it) are quarantined
// by the projector, which moves on: a charge created after them on the SAME partition (the topic
// has one) reads 200 at once; `duepay admin quarantine list|retry` shows and replays them.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <limits>
#include <pqxx/pqxx>

#include "domain/events/event_json.hpp"
#include "domain/text.hpp"
#include "tests/integration/pipeline/dev_server_suite.hpp"
#include "tests/integration/pipeline/event_stream.hpp"

namespace duepay::tests {
namespace {

namespace ev = domain::events;

class Poison : public DevServerSuite<Poison> {
  public:
    static constexpr const char* kServerName = "poison";
    static constexpr int kPartitions = 1;  // every record on the same partition

  protected:
    HttpResponse create(const std::string& body) {
        return http("POST", url("/v1/invoices"),
                    {{"x-api-key", *key_}, {"content-type", "application/json"}}, body);
    }
    std::size_t topic_size() {
        return read_topic(env_->kafka_bootstrap, server_->topic,
                          std::numeric_limits<std::size_t>::max(), std::chrono::seconds(3))
            .size();
    }
    std::string error_message(const HttpResponse& r) {
        rapidjson::Document d;
        d.Parse(r.body.data(), r.body.size());
        return d.IsObject() && d.HasMember("error") && d["error"].IsString()
                   ? d["error"].GetString()
                   : "";
    }
    int admin(const std::vector<std::string>& args, std::string& out) {
        std::vector<std::string> argv{duepay_binary(), "admin", "quarantine"};
        argv.insert(argv.end(), args.begin(), args.end());
        return run_command(argv, {}, out, std::chrono::seconds(30));
    }
};

TEST_F(Poison, NulInAnyStringIs400WithTheFieldNamedAndNothingIsAppended) {
    const auto before = topic_size();
    const std::string base = R"("chainId":80002,"expiresInSeconds":600)";
    const std::vector<std::pair<std::string, std::string>> cases{
        {R"({)" + base + R"(,"amount":"1000","reference":"a\u0000b"})", "reference"},
        {R"({)" + base + R"(,"amount":"1000","returnUrl":"https://shop.example/\u0000x"})",
         "returnUrl"},
        // Read through a char* this was "1000": a string is its full length, never up to a NUL.
        {R"({)" + base + R"(,"amount":"1000\u00009"})", "amount"},
        {R"({)" + base + R"(,"amount":"1000","token":"USDT\u0000evil"})", "token"},
        {R"({)" + base + R"(,"amount":"1000","paymentMode":"wallet\u0000"})", "paymentMode"},
        {R"({)" + base + R"(,"fiat":{"currency":"USD","amount":"1.00\u0000"}})", "fiat.amount"},
        {R"({)" + base + R"(,"amount":"1000","note":["ok","x\u0000"]})", "note[1]"},
        {R"({)" + base + R"(,"amount":"1000","ref\u0000erence":"x"})", "a member name"},
    };
    for (const auto& [body, field] : cases) {
        auto r = create(body);
        expect_error_envelope(r, 400, "invalid_string");
        EXPECT_NE(error_message(r).find(field), std::string::npos) << r.body;
    }
    EXPECT_EQ(topic_size(), before) << "a refused create appended an event";
    ASSERT_TRUE(server_->process->alive()) << server_->process->log();
}

TEST_F(Poison, InvalidUtf8Is400WithoutEchoAndReferenceLengthIsInCharacters) {
    const auto before = topic_size();
    for (const std::string& bad :
         {std::string("order-\xff"), std::string("order-\xc0\xaf"),  // overlong '/'
          std::string("order-\xed\xa0\x80"),                         // a surrogate
          std::string("order-\xf4\x90\x80\x80"),                     // above U+10FFFF
          std::string("order-\xe0\xb8")}) {                          // truncated
        auto r = create(R"({"chainId":80002,"amount":"1000","reference":")" + bad + R"("})");
        expect_error_envelope(r, 400, "invalid_string");
        EXPECT_TRUE(domain::is_valid_utf8(r.body)) << "the answer echoes invalid bytes";
        EXPECT_NE(error_message(r).find("reference"), std::string::npos) << r.body;
    }
    EXPECT_EQ(topic_size(), before);

    // 100 Thai characters are 300 bytes and a valid reference; 256 characters are not.
    std::string thai;
    for (int i = 0; i < 100; ++i) thai += "\xe0\xb8\x81";  // U+0E01 THAI CHARACTER KO KAI
    auto ok = create(R"({"chainId":80002,"amount":"1000","reference":")" + thai + R"("})");
    ASSERT_EQ(ok.status, 201) << ok.body;
    rapidjson::Document d;
    d.Parse(ok.body.data(), ok.body.size());
    const std::string id = d["data"]["invoiceId"].GetString();
    auto read = http("GET", url("/v1/charges/" + id), {{"x-api-key", *key_}});
    ASSERT_EQ(read.status, 200) << read.body;
    rapidjson::Document rd;
    rd.Parse(read.body.data(), read.body.size());
    EXPECT_EQ(
        std::string(rd["data"]["reference"].GetString(), rd["data"]["reference"].GetStringLength()),
        thai);
    std::string too_long;
    for (int i = 0; i < 256; ++i) too_long += "\xe0\xb8\x81";
    expect_error_envelope(
        create(R"({"chainId":80002,"amount":"1000","reference":")" + too_long + R"("})"), 400,
        "invalid_reference");
    // Emoji are 4-byte characters: 255 of them fit.
    std::string emoji;
    for (int i = 0; i < 255; ++i) emoji += "\xf0\x9f\x98\x80";
    EXPECT_EQ(create(R"({"chainId":80002,"amount":"1000","reference":")" + emoji + R"("})").status,
              201);
}

TEST_F(Poison, PoisonRecordsOnTheTopicAreQuarantinedAndThePartitionMovesOn) {
    const std::string tag = "poison-" + unique_suffix();
    const auto good_a = make_event_stream(1, tag + "-a");
    const auto good_b = make_event_stream(1, tag + "-b");
    // 1. bytes that do not decode; 2. what the API appended before ADR 0043 (a NUL in reference:
    // decodes no more); 3. a decodable event Postgres refuses (chain id beyond bigint: SQLSTATE
    // 22003).
    auto created = ev::decode_event(good_a.front().value).value();
    auto nul = created;
    nul.id = "poison-nul-" + tag;
    std::get<ev::ChargeCreated>(nul.data).reference = std::string("a\0b", 3);
    auto huge = created;
    huge.id = "poison-huge-" + tag;
    huge.invoice_id.bytes[31] ^= 0x5a;
    huge.chain_id = domain::ChainId{std::numeric_limits<std::uint64_t>::max()};
    ASSERT_TRUE(ev::decode_event(ev::encode_event(huge)).ok());
    std::vector<ports::LogRecord> records = good_a;
    const std::size_t first_poison = records.size() + topic_size();
    records.push_back({"poison-key", std::string("\xff\xfe{not json\0", 12)});
    records.push_back({good_a.front().key, ev::encode_event(nul)});
    records.push_back({good_a.front().key, ev::encode_event(huge)});
    records.insert(records.end(), good_b.begin(), good_b.end());
    ASSERT_EQ(produce_all(env_->kafka_bootstrap, server_->topic, records), records.size());

    // A charge created after the poison on the same partition reads 200 promptly.
    const auto started = std::chrono::steady_clock::now();
    auto r = create(R"({"chainId":80002,"amount":"777","reference":"after-poison"})");
    ASSERT_EQ(r.status, 201) << r.body << "\n" << server_->process->log();
    rapidjson::Document d;
    d.Parse(r.body.data(), r.body.size());
    const std::string id = d["data"]["invoiceId"].GetString();
    EXPECT_TRUE(wait_until(
        [&] {
            return http("GET", url("/v1/charges/" + id), {{"x-api-key", *key_}}).status == 200;
        },
        std::chrono::seconds(3)))
        << server_->process->log();
    EXPECT_LT(std::chrono::steady_clock::now() - started, std::chrono::seconds(4))
        << "creates slowed by the poison";

    // The good events around the poison are applied (same batch or not), the poison is not.
    pqxx::connection conn(env_->database_url);
    pqxx::read_transaction tx(conn);
    for (const auto* stream : {&good_a, &good_b}) {
        const auto row =
            tx.exec_params("select status from charges where invoice_id = $1", stream->front().key);
        ASSERT_EQ(row.size(), 1u) << stream->front().key;
    }
    EXPECT_TRUE(
        tx.exec_params("select 1 from charge_events where event_id in ($1, $2)", nul.id, huge.id)
            .empty());
    const auto q = tx.exec_params(
        "select \"offset\", error, octet_length(value) from quarantined_events where "
        "consumer_group = $1 "
        "order by \"offset\"",
        server_->group);
    ASSERT_EQ(q.size(), 3u);
    for (std::size_t i = 0; i < 3; ++i) EXPECT_EQ(q[i][0].as<std::size_t>(), first_poison + i);
    EXPECT_NE(q[0][1].as<std::string>().find("not valid JSON"), std::string::npos)
        << q[0][1].as<std::string>();
    EXPECT_EQ(q[0][2].as<int>(), 12) << "the raw bytes are kept byte for byte";
    EXPECT_NE(q[1][1].as<std::string>().find("data.reference"), std::string::npos)
        << q[1][1].as<std::string>();
    EXPECT_NE(q[2][1].as<std::string>().find("22003"), std::string::npos)
        << q[2][1].as<std::string>();
    tx.commit();

    // admin quarantine list shows them; retry reports the error again (the code did not change).
    std::string out;
    ASSERT_EQ(admin({"list", "--group", server_->group}, out), 0) << out;
    rapidjson::Document list;
    list.Parse(out.data(), out.size());
    ASSERT_TRUE(list.IsObject() && list.HasMember("entries")) << out;
    ASSERT_EQ(list["entries"].Size(), 3u) << out;
    EXPECT_EQ(list["entries"][0]["offset"].GetInt64(), static_cast<std::int64_t>(first_poison));
    EXPECT_EQ(std::string(list["entries"][0]["valueHex"].GetString()).substr(0, 6), "0xfffe");
    const auto huge_id = list["entries"][2]["id"].GetInt64();
    EXPECT_EQ(admin({"retry", std::to_string(huge_id)}, out), 1) << out;
    EXPECT_NE(out.find("retry_failed"), std::string::npos) << out;
    ASSERT_TRUE(server_->process->alive()) << server_->process->log();
}

TEST_F(Poison, RetryReappliesAQuarantinedEventThroughTheProjection) {
    // A record quarantined by an older, stricter build: valid today, so a retry applies it.
    const auto stream = make_event_stream(1, "retry-" + unique_suffix());
    std::int64_t id = 0;
    {
        pqxx::connection conn(env_->database_url);
        pqxx::work tx(conn);
        id = tx.exec_params1(
                   "insert into quarantined_events (consumer_group, topic, partition, \"offset\", "
                   "value, error) "
                   "values ($1, $2, 0, 1000000, convert_to($3, 'UTF8'), 'older build refused it') "
                   "returning id",
                   server_->group, server_->topic, stream.front().value)[0]
                 .as<std::int64_t>();
        tx.commit();
    }
    std::string out;
    ASSERT_EQ(admin({"retry", std::to_string(id)}, out), 0) << out;
    EXPECT_NE(out.find(R"("status":"resolved")"), std::string::npos) << out;
    pqxx::connection conn(env_->database_url);
    pqxx::read_transaction tx(conn);
    EXPECT_EQ(
        tx.exec_params("select 1 from charges where invoice_id = $1", stream.front().key).size(),
        1u);
    EXPECT_FALSE(tx.exec_params1("select resolved_at from quarantined_events where id = $1", id)[0]
                     .is_null());
    // Resolved rows leave the default list.
    std::string listed;
    ASSERT_EQ(admin({"list", "--group", server_->group}, listed), 0);
    EXPECT_EQ(listed.find("\"id\":" + std::to_string(id) + ","), std::string::npos) << listed;
}

}  // namespace
}  // namespace duepay::tests
