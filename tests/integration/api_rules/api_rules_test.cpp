// One test per rule of the REST API (docs/product.md; docs/api.md, docs/api-errors.md), over real
// HTTP against `duepay dev` (api + projector) on a fresh topic of the real stack (var/dev.env).
// Each failure is checked for its HTTP status, the envelope {success:false,data:null,error:<msg>},
// meta.code and the x-request-id header; each success for the shape of the charge on create.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <pqxx/pqxx>
#include <string>
#include <vector>

#include "tests/integration/pipeline/dev_server_suite.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kTwoPow256 =
    "115792089237316195423570985008687907853269984665640564039457584007913129639936";
constexpr const char* kTwoPow256Minus1 =
    "115792089237316195423570985008687907853269984665640564039457584007913129639935";
// anvil's dev account #1 is the demo project's payout wallet; #2 is somebody else.
constexpr const char* kDemoPayout = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
constexpr const char* kOtherAddress = "0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC";

rapidjson::Document parse(const std::string& body) {
    rapidjson::Document d;
    d.Parse(body.c_str());
    return d;
}

class ApiRules : public DevServerSuite<ApiRules> {
  public:
    static constexpr const char* kServerName = "rules";

  protected:
    HttpResponse create(const std::string& body) const {
        return http("POST", url("/v1/invoices"),
                    {{"x-api-key", *key_}, {"content-type", "application/json"}}, body);
    }
    // A create that must succeed; returns its data.
    rapidjson::Document created(const std::string& body) const {
        auto r = create(body);
        EXPECT_EQ(r.status, 201) << body << " -> " << r.body;
        auto d = parse(r.body);
        rapidjson::Document data;
        if (r.status == 201 && d.IsObject() && d.HasMember("data"))
            data.CopyFrom(d["data"], data.GetAllocator());
        return data;
    }
};

const std::string kZeroId = "0x" + std::string(64, '0');

// --- authentication (docs/product.md, Keys and modes) ---

TEST_F(ApiRules, MissingKeyIs401WithTheExactMessage) {
    auto r = http("POST", url("/v1/invoices"), {{"content-type", "application/json"}},
                  R"({"chainId":80002,"amount":"1"})");
    expect_error_envelope(r, 401, "invalid_api_key");
    EXPECT_EQ(std::string(parse(r.body)["error"].GetString()), "invalid API key");
    auto read = http("GET", url("/v1/charges/" + kZeroId + "/status"), {});
    expect_error_envelope(read, 401, "invalid_api_key");
}

TEST_F(ApiRules, UnknownKeyIs401InEitherHeader) {
    for (const auto& headers :
         {std::map<std::string, std::string>{{"x-api-key", "dp_test_" + std::string(48, 'a')}},
          std::map<std::string, std::string>{{"Authorization", "Bearer dp_test_nope"}}}) {
        auto r = http("GET", url("/v1/charges/" + kZeroId), headers);
        expect_error_envelope(r, 401, "invalid_api_key");
        EXPECT_EQ(std::string(parse(r.body)["error"].GetString()), "invalid API key");
    }
}

TEST_F(ApiRules, BearerAndXApiKeyAreBothAccepted) {
    auto r = http("POST", url("/v1/invoices"),
                  {{"Authorization", "Bearer " + *key_}, {"content-type", "application/json"}},
                  R"({"chainId":80002,"amount":"1000","paymentMode":"wallet"})");
    ASSERT_EQ(r.status, 201) << r.body;
    const std::string id = parse(r.body)["data"]["invoiceId"].GetString();
    auto by_header = http("GET", url("/v1/charges/" + id + "/status"), {{"x-api-key", *key_}});
    EXPECT_EQ(by_header.status, 200) << by_header.body;
    auto by_bearer = http("GET", url("/v1/charges/" + id), {{"Authorization", "Bearer " + *key_}});
    EXPECT_EQ(by_bearer.status, 200) << by_bearer.body;
}

// --- create: price ---

TEST_F(ApiRules, AmountAndFiatBothOrNeitherIs400) {
    expect_error_envelope(create(R"({"chainId":80002})"), 400, "amount_or_fiat_required");
    expect_error_envelope(
        create(R"({"chainId":80002,"amount":"1000","fiat":{"currency":"USD","amount":"1.00"}})"),
        400, "amount_or_fiat_required");
}

TEST_F(ApiRules, InvalidAmountFormsAre400) {
    for (const std::string& amount : std::vector<std::string>{
             R"("-1")", R"("+1")", R"("1.5")", R"("1e6")", R"("0")", R"("01")", R"("")", R"(" 1")",
             R"("0x10")", std::string("\"") + kTwoPow256 + "\"", "1000", "1.5"}) {
        expect_error_envelope(create(R"({"chainId":80002,"amount":)" + amount + "}"), 400,
                              "invalid_amount");
    }
}

TEST_F(ApiRules, TheLargestUint256AmountIsAccepted) {
    auto data = created(std::string(R"({"chainId":80002,"paymentMode":"transfer","amount":")") +
                        kTwoPow256Minus1 + "\"}");
    ASSERT_TRUE(data.IsObject());
    EXPECT_EQ(std::string(data["amount"].GetString()), kTwoPow256Minus1);
}

TEST_F(ApiRules, UnsupportedFiatCurrencyIs400) {
    expect_error_envelope(create(R"({"chainId":80002,"fiat":{"currency":"EUR","amount":"10.00"}})"),
                          400, "invalid_fiat_currency");
    expect_error_envelope(create(R"({"chainId":80002,"fiat":{"currency":"thb","amount":"10.00"}})"),
                          400, "invalid_fiat_currency");
}

// --- create: chain, token, key mode ---

TEST_F(ApiRules, UnsupportedChainIs400) {
    expect_error_envelope(create(R"({"chainId":1,"amount":"1000"})"), 400, "unsupported_chain");
    expect_error_envelope(create(R"({"chainId":"80002","amount":"1000"})"), 400,
                          "invalid_chain_id");
}

TEST_F(ApiRules, UnsupportedTokenIs400) {
    expect_error_envelope(create(R"({"chainId":80002,"amount":"1000","token":"DOGE"})"), 400,
                          "unsupported_token");
}

TEST_F(ApiRules, TestKeyOnAMainnetIs400KeyModeMismatch) {
    expect_error_envelope(create(R"({"chainId":137,"amount":"1000"})"), 400, "key_mode_mismatch");
}

// --- create: options ---

TEST_F(ApiRules, ExpiresInSecondsOutOfRangeOrNotAnIntegerIs400) {
    for (const char* e : {"0", "86401", "1.5", "-1", R"("60")", "true"}) {
        expect_error_envelope(
            create(std::string(R"({"chainId":80002,"amount":"1000","expiresInSeconds":)") + e +
                   "}"),
            400, "invalid_expires_in");
    }
}

TEST_F(ApiRules, ReferenceOver255CharactersIs400And255IsEchoed) {
    expect_error_envelope(
        create(R"({"chainId":80002,"amount":"1000","reference":")" + std::string(256, 'r') + "\"}"),
        400, "invalid_reference");
    const std::string reference = std::string(254, 'r') + "9";
    auto data = created(R"({"chainId":80002,"amount":"1000","paymentMode":"wallet","reference":")" +
                        reference + "\"}");
    ASSERT_TRUE(data.IsObject());
    EXPECT_EQ(std::string(data["reference"].GetString()), reference);
}

TEST_F(ApiRules, ReturnUrlThatIsNotHttpsOrHasUserinfoIs400) {
    for (const char* u :
         {"http://shop.example/thanks", "ftp://shop.example/x", "shop.example", "https://",
          "http://localhost.evil.example", "http://127.0.0.1@evil.example",
          "https://a:b@shop.example/", "http://127.0.0.1.evil.example/x"}) {
        expect_error_envelope(
            create(std::string(R"({"chainId":80002,"amount":"1000","returnUrl":")") + u + "\"}"),
            400, "invalid_return_url");
    }
}

TEST_F(ApiRules, MerchantOtherThanThePayoutWalletIs403) {
    expect_error_envelope(create(std::string(R"({"chainId":80002,"amount":"1000","merchant":")") +
                                 kOtherAddress + "\"}"),
                          403, "merchant_mismatch");
    expect_error_envelope(create(R"({"chainId":80002,"amount":"1000","merchant":"0x1234"})"), 400,
                          "invalid_address");
    auto data = created(
        std::string(R"({"chainId":80002,"amount":"1000","paymentMode":"wallet","merchant":")") +
        kDemoPayout + "\"}");
    ASSERT_TRUE(data.IsObject());
    EXPECT_EQ(std::string(data["intent"]["merchant"].GetString()), kDemoPayout);
}

// --- reads ---

TEST_F(ApiRules, UnknownChargeIs404OnBothReadRoutes) {
    expect_error_envelope(http("GET", url("/v1/charges/" + kZeroId), {{"x-api-key", *key_}}), 404,
                          "charge_not_found");
    expect_error_envelope(
        http("GET", url("/v1/charges/" + kZeroId + "/status"), {{"x-api-key", *key_}}), 404,
        "charge_not_found");
    expect_error_envelope(http("GET", url("/v1/charges/0x12/status"), {{"x-api-key", *key_}}), 400,
                          "invalid_invoice_id");
}

// --- routing and transport ---

TEST_F(ApiRules, UnknownRouteIs404) {
    expect_error_envelope(http("GET", url("/v1/nowhere"), {{"x-api-key", *key_}}), 404,
                          "route_not_found");
    expect_error_envelope(
        http("POST", url("/v2/invoices"), {{"content-type", "application/json"}}, "{}"), 404,
        "route_not_found");
}

TEST_F(ApiRules, WrongMethodIs405WithAllow) {
    auto get_invoices = http("GET", url("/v1/invoices"), {{"x-api-key", *key_}});
    expect_error_envelope(get_invoices, 405, "method_not_allowed");
    EXPECT_EQ(get_invoices.headers["allow"], "POST");
    auto delete_charge = http("DELETE", url("/v1/charges/" + kZeroId), {{"x-api-key", *key_}});
    expect_error_envelope(delete_charge, 405, "method_not_allowed");
    EXPECT_EQ(delete_charge.headers["allow"], "GET");
}

TEST_F(ApiRules, ACreateThatIsNotJsonIs415) {
    const std::string body = R"({"chainId":137,"amount":"1"})";
    expect_error_envelope(http("POST", url("/v1/invoices"),
                               {{"x-api-key", *key_}, {"content-type", "text/plain"}}, body),
                          415, "unsupported_media_type");
    // libcurl sends application/x-www-form-urlencoded when no content-type is given.
    expect_error_envelope(http("POST", url("/v1/invoices"), {{"x-api-key", *key_}}, body), 415,
                          "unsupported_media_type");
    // Parameters and case do not matter: this one reaches validation (and fails there, creating
    // nothing).
    expect_error_envelope(
        http("POST", url("/v1/invoices"),
             {{"x-api-key", *key_}, {"content-type", "Application/JSON; charset=utf-8"}}, body),
        400, "key_mode_mismatch");
}

TEST_F(ApiRules, ABodyOver64KiBIs413WithTheEnvelope) {
    // The JSON is valid and would fail validation (key mode); padded with spaces to the size
    // wanted.
    const std::string head = R"({"chainId":137,"amount":"1")";
    auto padded = [&](std::size_t size) {
        return head + std::string(size - head.size() - 1, ' ') + "}";
    };
    const std::map<std::string, std::string> headers{
        {"x-api-key", *key_}, {"content-type", "application/json"}, {"x-request-id", "it-413"}};
    auto at_limit = http("POST", url("/v1/invoices"), headers, padded(64 * 1024));
    expect_error_envelope(at_limit, 400, "key_mode_mismatch");
    auto over = http("POST", url("/v1/invoices"), headers, padded(64 * 1024 + 1));
    expect_error_envelope(over, 413, "payload_too_large");
    EXPECT_EQ(over.headers["x-request-id"], "it-413");
    auto far_over = http("POST", url("/v1/invoices"), headers, padded(512 * 1024));
    expect_error_envelope(far_over, 413, "payload_too_large");
    // Before authentication too: the size is a transport rule.
    expect_error_envelope(
        http("POST", url("/v1/invoices"), {{"content-type", "application/json"}}, padded(70000)),
        413, "payload_too_large");
}

TEST_F(ApiRules, MalformedJsonIs400) {
    for (const char* body :
         {R"({"chainId":80002,"amount":)", "[1,2]", "", "null", "{'chainId':80002}"}) {
        expect_error_envelope(create(body), 400, "invalid_json");
    }
}

TEST_F(ApiRules, RequestIdIsEchoedWhenWellFormedElseMinted) {
    auto echoed = http("GET", url("/v1/charges/" + kZeroId + "/status"),
                       {{"x-api-key", *key_}, {"x-request-id", "order-42.retry_1"}});
    EXPECT_EQ(echoed.headers["x-request-id"], "order-42.retry_1");
    for (const std::string& bad :
         {std::string("has space"), std::string(129, 'a'), std::string("semi;colon")}) {
        auto minted = http("GET", url("/v1/nowhere"), {{"x-request-id", bad}});
        EXPECT_NE(minted.headers["x-request-id"], bad);
        EXPECT_EQ(minted.headers["x-request-id"].rfind("req_", 0), 0u);
        EXPECT_EQ(minted.headers["x-request-id"].size(), 28u);
    }
    auto a = http("GET", url("/v1/nowhere"), {});
    auto b = http("GET", url("/v1/nowhere"), {});
    EXPECT_NE(a.headers["x-request-id"], b.headers["x-request-id"]);
    // The access log line carries the id.
    EXPECT_TRUE(wait_until(
        [&] {
            return server_->process->log().find("request_id=order-42.retry_1") != std::string::npos;
        },
        std::chrono::seconds(5)));
}

// --- the 201 (docs/product.md, The charge on create) ---

TEST_F(ApiRules, ShapeRuleWalletTransferBoth) {
    const auto now = std::chrono::duration_cast<std::chrono::seconds>(
                         std::chrono::system_clock::now().time_since_epoch())
                         .count();
    for (const std::string mode : {"wallet", "transfer", "both"}) {
        auto data = created(
            R"({"chainId":80002,"amount":"2500000","expiresInSeconds":600,"reference":"shape-)" +
            mode + R"(","paymentMode":")" + mode + "\"}");
        ASSERT_TRUE(data.IsObject()) << mode;
        EXPECT_EQ(std::string(data["mode"].GetString()), mode);
        const bool wallet = mode != "transfer";
        const bool transfer = mode != "wallet";
        EXPECT_EQ(data.HasMember("intent"), wallet) << mode;
        EXPECT_EQ(data.HasMember("signature"), wallet) << mode;
        EXPECT_EQ(data.HasMember("depositAddress"), transfer) << mode;
        const std::string id = data["invoiceId"].GetString();
        EXPECT_EQ(std::string(data["checkoutUrl"].GetString()), server_->base_url + "/c/" + id);
        ASSERT_TRUE(data["amount"].IsString());
        EXPECT_EQ(std::string(data["amount"].GetString()), "2500000");
        ASSERT_TRUE(data["deadline"].IsString()) << "deadline must be a decimal string";
        const long long deadline = std::stoll(data["deadline"].GetString());
        EXPECT_NEAR(static_cast<double>(deadline), static_cast<double>(now + 600), 30.0);
        EXPECT_EQ(std::string(data["reference"].GetString()), "shape-" + mode);
        EXPECT_TRUE(data["feeBps"].IsInt());
        EXPECT_EQ(data["chainId"].GetUint64(), 80002u);
        if (wallet) {
            EXPECT_TRUE(data["intent"]["amount"].IsString());
            EXPECT_TRUE(data["intent"]["deadline"].IsString());
            EXPECT_EQ(std::string(data["intent"]["deadline"].GetString()),
                      std::string(data["deadline"].GetString()));
            EXPECT_EQ(std::string(data["signature"].GetString()).size(), 132u);
        }
    }
}

TEST_F(ApiRules, DefaultExpiryIsTheProjectPaymentWindow) {
    int window = 0;
    {
        pqxx::connection conn(env_->database_url);
        pqxx::work tx(conn);
        window = tx.exec1("select payment_window_seconds from projects where id = 'prj_demo'")[0]
                     .as<int>();
    }
    const auto before = std::chrono::duration_cast<std::chrono::seconds>(
                            std::chrono::system_clock::now().time_since_epoch())
                            .count();
    auto data = created(R"({"chainId":80002,"amount":"1000","paymentMode":"wallet"})");
    ASSERT_TRUE(data.IsObject());
    const long long deadline = std::stoll(data["deadline"].GetString());
    EXPECT_GE(deadline, before + window);
    EXPECT_LE(deadline, before + window + 30);
    EXPECT_TRUE(data["reference"].IsNull()) << "no reference supplied: null";
}

}  // namespace
}  // namespace duepay::tests
