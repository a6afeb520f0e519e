// Routes of the REST API against in-memory doubles of its ports (no Pistache, no servers).
#include "api/http/charges_api.hpp"

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "api/http/charge_list.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/create2.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/postgres/idempotency_store.hpp"
#include "infra/postgres/rate_limiter.hpp"
#include "infra/random/key_material.hpp"
#include "tests/doubles/api_ports.hpp"

namespace duepay::api {
namespace {

constexpr const char* kTestKey = "dp_test_unit";
constexpr const char* kLiveKey = "dp_live_unit";

const char* kChains = R"({"chains":[
 {"chainId":80002,"name":"amoy","network":"testnet","rpcUrl":"http://x","transferRail":true,"feeBps":100,
  "router":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0","depositFactory":"0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  "forwarderInitCodeHash":"0x83ea636e1a7c5ea12df9fdbfbc95e938d35dc623aa2849608e73092fcdeca678","graceSeconds":120,
  "defaultToken":"USDT","tokens":[{"symbol":"USDT","name":"t","address":"0x5FbDB2315678afecb367f032d93F642f64180aa3","decimals":6}]},
 {"chainId":137,"name":"polygon","network":"mainnet","rpcUrl":"http://y","transferRail":false,"feeBps":50,
  "router":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0","defaultToken":"USDC",
  "tokens":[{"symbol":"USDC","name":"c","address":"0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512","decimals":6}]}]})";

using domain::events::PaymentMode;
using doubles::FakeIdempotency;
using doubles::FakeKeys;
using doubles::FakeLimiter;
using doubles::FakeLister;
using doubles::FakeLog;
using doubles::FakeReader;
using doubles::FakeWaiter;

class ChargesApiTest : public ::testing::Test {
  protected:
    ChargesApiTest()
        : chains_(infra::config::ChainRegistry::parse(kChains).value()),
          signer_(infra::crypto::Secp256k1Signer::from_hex(
                      "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
                      .value()) {
        keys_.add(kTestKey, doubles::key_owner(kTestKey, "prj_a", Mode::test));
        keys_.add(kLiveKey, doubles::key_owner(kLiveKey, "prj_a", Mode::live));
        ApiDeps deps;
        deps.keys = &keys_;
        deps.charges = &reader_;
        deps.waiter = &waiter_;
        deps.log = &log_;
        deps.chains = &chains_;
        deps.signer = &signer_;
        deps.checkout_url = "https://pay.example";
        deps.now_ms = [] { return std::int64_t{1'800'000'000'000}; };
        deps.new_invoice_id = [] {
            domain::InvoiceId id;
            id.bytes.fill(0x42);
            return id;
        };
        deps.new_event_id = [] { return std::string("0b8a4c1e-1c1f-4d2e-8a9b-0c1d2e3f4a5b"); };
        deps.idempotency = &idempotency_;
        deps.limiter = &limiter_;
        deps_ = deps;
        api_ = std::make_unique<ChargesApi>(std::move(deps));
    }

    // Every create gets a new invoice id and event id (so a test can tell a re-append of the same
    // event from a new charge).
    void use_counting_ids() {
        auto deps = deps_;
        deps.new_invoice_id = [n = std::make_shared<int>(0)] {
            domain::InvoiceId id;
            id.bytes.fill(0x10);
            id.bytes[31] = static_cast<std::uint8_t>(++*n);
            return id;
        };
        deps.new_event_id = [n = std::make_shared<int>(0)] {
            return "0b8a4c1e-1c1f-4d2e-8a9b-0c1d2e3f4a" + std::to_string(10 + ++*n);
        };
        api_ = std::make_unique<ChargesApi>(std::move(deps));
    }

    ApiResponse call(const std::string& method, const std::string& path,
                     const std::string& body = "", const char* key = kTestKey,
                     const std::optional<std::string>& idempotency_key = std::nullopt) {
        ApiRequest request;
        request.method = method;
        request.path = path;
        request.body = body;
        if (key != nullptr) request.headers["x-api-key"] = key;
        if (idempotency_key) request.headers["idempotency-key"] = *idempotency_key;
        std::optional<ApiResponse> out;
        int calls = 0;
        api_->handle(request, [&](ApiResponse r) {
            ++calls;
            out = std::move(r);
        });
        EXPECT_EQ(calls, 1) << "the responder must be called exactly once";
        return out.value_or(ApiResponse{});
    }

    static rapidjson::Document json(const ApiResponse& r) {
        rapidjson::Document d;
        d.Parse(r.body.c_str());
        EXPECT_FALSE(d.HasParseError()) << r.body;
        return d;
    }

    static std::string code_of(const ApiResponse& r) {
        auto d = json(r);
        EXPECT_FALSE(d["success"].GetBool());
        EXPECT_TRUE(d["data"].IsNull());
        EXPECT_TRUE(d["error"].IsString());
        return d["meta"]["code"].GetString();
    }

    FakeKeys keys_;
    FakeReader reader_;
    FakeWaiter waiter_;
    FakeLog log_;
    FakeIdempotency idempotency_;
    FakeLimiter limiter_;
    infra::config::ChainRegistry chains_;
    infra::crypto::Secp256k1Signer signer_;
    ApiDeps deps_;
    std::unique_ptr<ChargesApi> api_;
};

const std::string kId = [] {
    std::string s = "0x";
    for (int i = 0; i < 32; ++i) s += "42";
    return s;
}();

TEST_F(ChargesApiTest, CreateAppendsChargeCreatedKeyedByInvoiceAndAnswers201WithTheSpecShape) {
    auto r = call("POST", "/v1/invoices",
                  R"({"chainId":80002,"amount":"1500000","reference":"order-1"})");
    ASSERT_EQ(r.status, 201) << r.body;
    ASSERT_EQ(log_.records.size(), 1u);
    EXPECT_EQ(log_.records[0].key, kId);
    EXPECT_EQ(waiter_.waited, std::vector<std::string>{kId});

    auto event = domain::events::decode_event(log_.records[0].value);
    ASSERT_TRUE(event.ok()) << event.error().message;
    const auto& created = std::get<domain::events::ChargeCreated>(event->data);
    EXPECT_EQ(event->project_id, "prj_a");
    EXPECT_EQ(event->chain_id.value, 80002u);
    EXPECT_TRUE(created.amount.value == 1500000u);
    EXPECT_EQ(created.deadline, 1'800'000'000u + 900u);  // the project's payment window
    EXPECT_EQ(created.payment_mode, domain::events::PaymentMode::both);
    EXPECT_EQ(created.fee_bps, 100u);
    ASSERT_TRUE(created.deposit_address.has_value());
    const auto& chain = *chains_.find(domain::ChainId{80002});
    const auto salt = domain::evm::deposit_salt(event->invoice_id, created.merchant, 100);
    EXPECT_EQ(
        *created.deposit_address,
        domain::evm::create2_address(chain.deposit_factory, salt, chain.forwarder_init_code_hash));

    auto d = json(r);
    ASSERT_TRUE(d["success"].GetBool());
    const auto& data = d["data"];
    EXPECT_EQ(std::string(data["invoiceId"].GetString()), kId);
    EXPECT_EQ(data["chainId"].GetUint64(), 80002u);
    EXPECT_EQ(std::string(data["mode"].GetString()), "both");
    EXPECT_EQ(std::string(data["checkoutUrl"].GetString()), "https://pay.example/c/" + kId);
    EXPECT_TRUE(data.HasMember("depositAddress"));
    EXPECT_EQ(std::string(data["amount"].GetString()), "1500000");
    EXPECT_EQ(std::string(data["deadline"].GetString()), "1800000900");
    EXPECT_EQ(std::string(data["reference"].GetString()), "order-1");
    ASSERT_TRUE(data.HasMember("intent"));
    ASSERT_TRUE(data.HasMember("signature"));

    // The signature recovers to the service signer over the EIP-712 digest of the returned intent.
    domain::evm::PaymentIntent intent{event->invoice_id,
                                      created.merchant,
                                      created.token,
                                      created.amount,
                                      100,
                                      domain::uint256(created.deadline)};
    const auto digest =
        domain::evm::intent_digest(domain::evm::Eip712Domain{chain.chain_id, chain.router}, intent);
    domain::evm::Signature sig;
    auto bytes = domain::from_hex_fixed<65>(data["signature"].GetString());
    ASSERT_TRUE(bytes.has_value());
    sig.bytes = *bytes;
    auto signer = infra::crypto::recover_signer(digest, sig);
    ASSERT_TRUE(signer.ok());
    EXPECT_EQ(*signer, signer_.address());
}

TEST_F(ChargesApiTest, ShapeRuleWalletHasNoDepositAddressTransferHasNoIntent) {
    auto wallet = json(
        call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"1","paymentMode":"wallet"})"));
    EXPECT_FALSE(wallet["data"].HasMember("depositAddress"));
    EXPECT_TRUE(wallet["data"].HasMember("intent"));
    auto transfer = json(
        call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"1","paymentMode":"transfer"})"));
    EXPECT_TRUE(transfer["data"].HasMember("depositAddress"));
    EXPECT_FALSE(transfer["data"].HasMember("intent"));
    EXPECT_FALSE(transfer["data"].HasMember("signature"));
}

TEST_F(ChargesApiTest, BothFallsBackToWalletOnAChainWithoutTransferRail) {
    auto r = call("POST", "/v1/invoices", R"({"chainId":137,"amount":"5"})", kLiveKey);
    ASSERT_EQ(r.status, 201) << r.body;
    auto d = json(r);
    EXPECT_EQ(std::string(d["data"]["mode"].GetString()), "wallet");
    EXPECT_FALSE(d["data"].HasMember("depositAddress"));
    auto t = call("POST", "/v1/invoices",
                  R"({"chainId":137,"amount":"5","paymentMode":"transfer"})", kLiveKey);
    EXPECT_EQ(t.status, 400);
    EXPECT_EQ(code_of(t), "transfer_rail_unavailable");
}

TEST_F(ChargesApiTest, KeyModeMustMatchTheNetworkAndNothingIsAppended) {
    auto a = call("POST", "/v1/invoices", R"({"chainId":137,"amount":"5"})", kTestKey);
    EXPECT_EQ(a.status, 400);
    EXPECT_EQ(code_of(a), "key_mode_mismatch");
    auto b = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})", kLiveKey);
    EXPECT_EQ(b.status, 400);
    EXPECT_EQ(code_of(b), "key_mode_mismatch");
    EXPECT_TRUE(log_.records.empty());
}

TEST_F(ChargesApiTest, ValidationErrorsHaveStableCodes) {
    const std::pair<const char*, const char*> cases[] = {
        {R"({"amount":"5"})", "invalid_chain_id"},
        {R"({"chainId":1,"amount":"5"})", "unsupported_chain"},
        {R"({"chainId":80002})", "amount_or_fiat_required"},
        {R"({"chainId":80002,"amount":"5","fiat":{"currency":"USD","amount":"1"}})",
         "amount_or_fiat_required"},
        {R"({"chainId":80002,"amount":"0"})", "invalid_amount"},
        {R"({"chainId":80002,"amount":"1.5"})", "invalid_amount"},
        {R"({"chainId":80002,"amount":5})", "invalid_amount"},
        {R"({"chainId":80002,"fiat":{"currency":"EUR","amount":"1"}})", "invalid_fiat_currency"},
        {R"({"chainId":80002,"amount":"5","token":"DAI"})", "unsupported_token"},
        {R"({"chainId":80002,"amount":"5","paymentMode":"card"})", "invalid_payment_mode"},
        {R"({"chainId":80002,"amount":"5","expiresInSeconds":0})", "invalid_expires_in"},
        {R"({"chainId":80002,"amount":"5","expiresInSeconds":86401})", "invalid_expires_in"},
        {R"({"chainId":80002,"amount":"5","returnUrl":"ftp://x"})", "invalid_return_url"},
        {R"([1,2])", "invalid_json"},
    };
    for (const auto& [body, code] : cases) {
        auto r = call("POST", "/v1/invoices", body);
        EXPECT_EQ(r.status, 400) << body;
        EXPECT_EQ(code_of(r), code) << body;
    }
    auto long_ref = std::string(R"({"chainId":80002,"amount":"5","reference":")") +
                    std::string(256, 'r') + "\"}";
    EXPECT_EQ(code_of(call("POST", "/v1/invoices", long_ref)), "invalid_reference");
    auto ok_ref = std::string(R"({"chainId":80002,"amount":"5","reference":")") +
                  std::string(255, 'r') + "\"}";
    EXPECT_EQ(call("POST", "/v1/invoices", ok_ref).status, 201);
    EXPECT_EQ(log_.records.size(), 1u);
}

TEST_F(ChargesApiTest, NulAndInvalidUtf8AnywhereAre400InvalidStringAndNothingIsAppended) {
    const std::vector<std::string> bodies = {
        R"({"chainId":80002,"amount":"1000\u00009"})",  // not 1000: strings are read in full
        R"({"chainId":80002,"amount":"5","reference":"a\u0000b"})",
        R"({"chainId":80002,"amount":"5","returnUrl":"https://shop.example/\u0000"})",
        R"({"chainId":80002,"amount":"5","token":"USDT\u0000"})",
        R"({"chainId":80002,"amount":"5","extra":{"deep":["\u0000"]}})",
        std::string(R"({"chainId":80002,"amount":"5","reference":"order-)") + "\xff" + "\"}",
        std::string("{\"chainId\":80002,\"amount\":\"5\",\"reference\":\"\xed\xa0\x80\"}"),
        std::string("{\"chainId\":80002,\"amount\":\"5\",\"ref\xc0\xaf\":\"x\"}"),
    };
    for (const auto& body : bodies) {
        auto r = call("POST", "/v1/invoices", body);
        EXPECT_EQ(r.status, 400) << body;
        EXPECT_EQ(code_of(r), "invalid_string") << body;
        EXPECT_EQ(r.body.find('\xff'), std::string::npos);
    }
    EXPECT_TRUE(log_.records.empty());
}

TEST_F(ChargesApiTest, ReferenceLengthCountsCharactersNotBytes) {
    std::string thai;
    for (int i = 0; i < 100; ++i) thai += "\xe0\xb8\x81";  // 100 characters, 300 bytes
    auto r = call("POST", "/v1/invoices",
                  R"({"chainId":80002,"amount":"5","reference":")" + thai + "\"}");
    ASSERT_EQ(r.status, 201) << r.body;
    auto event = domain::events::decode_event(log_.records.at(0).value);
    ASSERT_TRUE(event.ok());
    EXPECT_EQ(std::get<domain::events::ChargeCreated>(event->data).reference, thai);
    std::string emoji;
    for (int i = 0; i < 256; ++i) emoji += "\xf0\x9f\x98\x80";
    EXPECT_EQ(code_of(call("POST", "/v1/invoices",
                           R"({"chainId":80002,"amount":"5","reference":")" + emoji + "\"}")),
              "invalid_reference");
}

TEST_F(ChargesApiTest, MetadataIsCarriedInTheEventAndEchoedByTheCreate) {
    auto r = call("POST", "/v1/invoices",
                  R"({"chainId":80002,"amount":"5","metadata":{"order_id":"A-1","cust":"c 9"}})");
    ASSERT_EQ(r.status, 201) << r.body;
    auto event = domain::events::decode_event(log_.records.at(0).value);
    ASSERT_TRUE(event.ok()) << event.error().message;
    const domain::events::Metadata expected{{"cust", "c 9"}, {"order_id", "A-1"}};
    EXPECT_EQ(std::get<domain::events::ChargeCreated>(event->data).metadata, expected);
    EXPECT_NE(r.body.find(R"("metadata":{"cust":"c 9","order_id":"A-1"})"), std::string::npos)
        << r.body;
    // None: null, {} or absent all give {} in the answer and no field in the event.
    for (const char* none : {R"(,"metadata":null)", R"(,"metadata":{})", ""}) {
        log_.records.clear();
        auto plain = call("POST", "/v1/invoices",
                          std::string(R"({"chainId":80002,"amount":"5")") + none + "}");
        ASSERT_EQ(plain.status, 201) << plain.body;
        EXPECT_NE(plain.body.find(R"("metadata":{})"), std::string::npos) << plain.body;
        EXPECT_EQ(log_.records.at(0).value.find("metadata"), std::string::npos);
    }
}

TEST_F(ChargesApiTest, InvalidMetadataIs400AndNothingIsAppended) {
    std::string many;
    for (int i = 0; i < 21; ++i) {
        if (i != 0) many += ',';
        many += "\"k";
        many += std::to_string(i);
        many += "\":\"v\"";
    }
    std::string thai501;
    for (int i = 0; i < 501; ++i) thai501 += "\xe0\xb8\x81";
    const std::string bad[] = {
        R"("metadata":"order-1")",
        R"("metadata":["a"])",
        R"("metadata":{"n":1})",
        R"("metadata":{"n":null})",
        R"("metadata":{"n":{"x":"y"}})",
        R"("metadata":{"bad key":"v"})",
        R"("metadata":{"":"v"})",
        R"("metadata":{")" + std::string(41, 'k') + R"(":"v"})",
        R"("metadata":{"a":"1","a":"2"})",
        R"("metadata":{"v":")" + std::string(501, 'v') + R"("})",
        R"("metadata":{"v":")" + thai501 + R"("})",
        R"("metadata":{)" + many + "}",
    };
    for (const auto& field : bad) {
        auto r = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5",)" + field + "}");
        EXPECT_EQ(r.status, 400) << field;
        EXPECT_EQ(code_of(r), "invalid_metadata") << field.substr(0, 80);
    }
    EXPECT_TRUE(log_.records.empty());
    // The bounds themselves are accepted: 20 keys, a 40-character key, 500 characters (1,500
    // bytes).
    std::string twenty;
    for (int i = 0; i < 19; ++i) {
        twenty += "\"k";
        twenty += std::to_string(i);
        twenty += "\":\"v\",";
    }
    twenty += "\"" + std::string(40, 'k') + "\":\"" + thai501.substr(3) + "\"";
    auto ok = call("POST", "/v1/invoices",
                   R"({"chainId":80002,"amount":"5","metadata":{)" + twenty + "}}");
    EXPECT_EQ(ok.status, 201) << ok.body.substr(0, 200);
}

TEST_F(ChargesApiTest, MerchantMustEqualThePayoutWalletAndAWalletMustBeSet) {
    auto r = call(
        "POST", "/v1/invoices",
        R"({"chainId":80002,"amount":"5","merchant":"0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC"})");
    EXPECT_EQ(r.status, 403);
    EXPECT_EQ(code_of(r), "merchant_mismatch");
    auto same = call(
        "POST", "/v1/invoices",
        R"({"chainId":80002,"amount":"5","merchant":"0x70997970c51812dc3a010c7d01b50e0d17dc79c8"})");
    EXPECT_EQ(same.status, 201);
}

TEST_F(ChargesApiTest, NoPayoutWalletIs409AndNothingIsAppended) {
    for (auto& [hash, owner] : keys_.owners) owner.payout_address.reset();
    auto r = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})");
    EXPECT_EQ(r.status, 409);
    EXPECT_EQ(code_of(r), "payout_wallet_not_set");
    EXPECT_TRUE(log_.records.empty());
}

TEST_F(ChargesApiTest, MissingOrUnknownKeyIs401WithTheSpecMessage) {
    for (const char* key : {static_cast<const char*>(nullptr), "dp_test_nope"}) {
        auto r = call("GET", "/v1/charges/" + kId + "/status", "", key);
        EXPECT_EQ(r.status, 401);
        EXPECT_EQ(json(r)["error"].GetString(), std::string("invalid API key"));
        EXPECT_EQ(code_of(r), "invalid_api_key");
    }
}

TEST_F(ChargesApiTest, BearerHeaderIsAcceptedAndKeyLookupsAreCached) {
    reader_.rows[kId] = ChargeView{};
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].status = "pending";
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/charges/" + kId + "/status";
    request.headers["authorization"] = std::string("Bearer ") + kTestKey;
    int status = 0;
    api_->handle(request, [&](ApiResponse r) { status = r.status; });
    EXPECT_EQ(status, 200);
    api_->handle(request, [&](ApiResponse r) { status = r.status; });
    EXPECT_EQ(keys_.lookups, 1);
}

TEST_F(ChargesApiTest, UnknownRouteIs404AndWrongMethodIs405WithAllow) {
    auto a = call("GET", "/v2/nothing");
    EXPECT_EQ(a.status, 404);
    EXPECT_EQ(code_of(a), "route_not_found");
    auto b = call("GET", "/v1/invoices");
    EXPECT_EQ(b.status, 405);
    EXPECT_EQ(b.headers["allow"], "POST");
    EXPECT_EQ(code_of(b), "method_not_allowed");
    auto c = call("DELETE", "/v1/charges/" + kId);
    EXPECT_EQ(c.status, 405);
    EXPECT_EQ(c.headers["allow"], "GET");
}

TEST_F(ChargesApiTest, MalformedJsonIs400InvalidJson) {
    auto r = call("POST", "/v1/invoices", "{\"chainId\":");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(code_of(r), "invalid_json");
}

TEST_F(ChargesApiTest, LogUnavailableIs503WithRetryAfterAndNoWait) {
    log_.outcome = infra::kafka::AppendStatus::not_persisted;
    auto r = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "event_log_unavailable");
    EXPECT_EQ(json(r)["meta"]["retryAfterMs"].GetInt64(), 1000);
    EXPECT_TRUE(waiter_.waited.empty());
    log_.outcome = infra::kafka::AppendStatus::possibly_persisted;
    auto u = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})");
    EXPECT_EQ(u.status, 503);
    EXPECT_EQ(code_of(u), "event_log_outcome_unknown");
}

TEST_F(ChargesApiTest, DurableButNotYetProjectedStillAnswers201) {
    waiter_.projected = false;
    EXPECT_EQ(call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})").status, 201);
}

TEST_F(ChargesApiTest, ReadsAreScopedToTheKeysProject) {
    ChargeView row;
    row.invoice_id = kId;
    row.project_id = ProjectId{"prj_other"};
    row.mode = Mode::test;
    row.status = "paid";
    reader_.rows[kId] = row;
    auto a = call("GET", "/v1/charges/" + kId + "/status");
    EXPECT_EQ(a.status, 404);
    EXPECT_EQ(code_of(a), "charge_not_found");
    EXPECT_EQ(call("GET", "/v1/charges/" + kId).status, 404);
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    auto b = call("GET", "/v1/charges/" + kId + "/status");
    ASSERT_EQ(b.status, 200);
    EXPECT_EQ(b.body, R"({"success":true,"data":{"invoiceId":")" + kId +
                          R"(","status":"paid"},"error":null})");
    auto upper = "0x" + std::string(64, 'F');
    EXPECT_EQ(code_of(call("GET", "/v1/charges/" + upper + "/status")), "charge_not_found");
    EXPECT_EQ(code_of(call("GET", "/v1/charges/0x1234/status")), "invalid_invoice_id");
}

TEST_F(ChargesApiTest, ReadsAreScopedToTheKeysModeAsCreatesAre) {
    ChargeView row;
    row.invoice_id = kId;
    row.project_id = ProjectId{"prj_a"};
    row.mode = Mode::live;
    row.chain_id = domain::ChainId{137};
    row.status = "pending";
    reader_.rows[kId] = row;
    for (const std::string& path : {"/v1/charges/" + kId, "/v1/charges/" + kId + "/status"}) {
        auto test_read = call("GET", path, "", kTestKey);
        EXPECT_EQ(test_read.status, 404) << path;
        EXPECT_EQ(code_of(test_read), "charge_not_found") << path;
    }
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status", "", kLiveKey).status, 200);
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].chain_id = domain::ChainId{80002};
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status", "", kTestKey).status, 200);
    auto live_read = call("GET", "/v1/charges/" + kId, "", kLiveKey);
    EXPECT_EQ(live_read.status, 404);
    EXPECT_EQ(code_of(live_read), "charge_not_found");
}

TEST_F(ChargesApiTest, ReturnUrlIsParsedLiveKeysGetHttpsOnly) {
    for (const char* url :
         {"http://localhost.evil.example", "http://127.0.0.1@evil.example",
          "https://user:pw@shop.example/", "https://shop.example\\\\@evil.example"}) {
        auto r = call("POST", "/v1/invoices",
                      std::string(R"({"chainId":80002,"amount":"5","returnUrl":")") + url + "\"}");
        EXPECT_EQ(r.status, 400) << url;
        EXPECT_EQ(code_of(r), "invalid_return_url") << url;
    }
    auto dev = call("POST", "/v1/invoices",
                    R"({"chainId":80002,"amount":"5","returnUrl":"http://localhost:3000/done"})");
    EXPECT_EQ(dev.status, 201) << dev.body;
    auto live_http =
        call("POST", "/v1/invoices",
             R"({"chainId":137,"amount":"5","returnUrl":"http://localhost:3000/done"})", kLiveKey);
    EXPECT_EQ(live_http.status, 400);
    EXPECT_EQ(code_of(live_http), "invalid_return_url");
    auto live_https =
        call("POST", "/v1/invoices",
             R"({"chainId":137,"amount":"5","returnUrl":"https://shop.example/done"})", kLiveKey);
    EXPECT_EQ(live_https.status, 201) << live_https.body;
}

// ---- Idempotency-Key, rate limit and quota on the create path (DESIGN 4, docs/limits.md) ----

constexpr const char* kBody = R"({"chainId":80002,"amount":"5"})";

TEST_F(ChargesApiTest, AMalformedIdempotencyKeyIs400AndReachesNothing) {
    for (const std::string& bad :
         {std::string(), std::string("has space"), std::string(256, 'k'), std::string("k\x7f")}) {
        auto r = call("POST", "/v1/invoices", kBody, kTestKey, bad);
        EXPECT_EQ(r.status, 400) << "key of " << bad.size() << " chars";
        EXPECT_EQ(code_of(r), "invalid_idempotency_key");
    }
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, std::string(255, '~')).status, 201);
    EXPECT_EQ(idempotency_.begins, 1);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(log_.records.size(), 1u);
}

TEST_F(ChargesApiTest, AReplayIsTheStored201ByteForByteAndCostsNoToken) {
    auto first = call("POST", "/v1/invoices", kBody, kTestKey, "order-7");
    ASSERT_EQ(first.status, 201) << first.body;
    EXPECT_EQ(idempotency_.completes, 1);
    EXPECT_EQ(idempotency_.abandons, 0);
    const auto& stored = idempotency_.rows.at("prj_a/order-7").response;
    ASSERT_TRUE(stored.has_value());
    EXPECT_EQ(stored->status, 201);
    EXPECT_EQ(stored->body, first.body);

    auto again = call("POST", "/v1/invoices", kBody, kTestKey, "order-7");
    EXPECT_EQ(again.status, 201);
    EXPECT_EQ(again.body, first.body);
    EXPECT_EQ(again.headers, first.headers);
    EXPECT_EQ(log_.records.size(), 1u) << "a replay appends nothing";
    EXPECT_EQ(limiter_.takes, 1) << "a replay costs no rate token";
    // Without a key every request is a new charge and takes a token.
    EXPECT_EQ(call("POST", "/v1/invoices", kBody).status, 201);
    EXPECT_EQ(limiter_.takes, 2);
    EXPECT_EQ(log_.records.size(), 2u);
}

TEST_F(ChargesApiTest, AKeyInFlightIs409AndAKeyReusedWithAnotherBodyIs422) {
    const auto fp = infra::postgres::request_fingerprint("POST", "/v1/invoices", kBody);
    idempotency_.rows["prj_a/busy"] = {fp, std::nullopt, std::nullopt, true};
    auto busy = call("POST", "/v1/invoices", kBody, kTestKey, "busy");
    EXPECT_EQ(busy.status, 409);
    EXPECT_EQ(code_of(busy), "idempotency_key_in_use");

    ASSERT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "k1").status, 201);
    auto reused = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"6"})", kTestKey, "k1");
    EXPECT_EQ(reused.status, 422);
    EXPECT_EQ(code_of(reused), "idempotency_key_reused");
    EXPECT_EQ(log_.records.size(), 1u);
    EXPECT_EQ(limiter_.takes, 1) << "neither 409 nor 422 costs a token";
    EXPECT_EQ(idempotency_.rows.count("prj_a/busy"), 1u)
        << "the other request's claim is left alone";
}

TEST_F(ChargesApiTest, TheLimiterGetsTheProjectAndItsPlanAfterTheIdempotencyCheck) {
    ASSERT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "p1").status, 201);
    EXPECT_EQ(limiter_.projects, std::vector<std::string>{"prj_a"});
    EXPECT_EQ(limiter_.plans, std::vector<std::string>{"pro"});
    // Validation failures come first and cost nothing.
    EXPECT_EQ(call("POST", "/v1/invoices", R"({"chainId":80002})", kTestKey, "p2").status, 400);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(idempotency_.begins, 1);
}

TEST_F(ChargesApiTest, RateLimitedIs429WithTheSpecMessageAndRetryAfterAndFreesTheKey) {
    limiter_.decision = {LimitOutcome::rate_limited, 1999, "2026-11-01", 30, ""};
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "rl");
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(code_of(r), "rate_limited");
    auto d = json(r);
    EXPECT_EQ(std::string(d["error"].GetString()), "too many requests — slow down");
    EXPECT_EQ(d["meta"]["retryAfterMs"].GetInt64(), 1999);
    EXPECT_TRUE(log_.records.empty());
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_TRUE(idempotency_.rows.empty()) << "a refused request leaves the key free for the retry";
    EXPECT_TRUE(limiter_.refunds.empty()) << "a refusal took nothing";
    limiter_.decision = {LimitOutcome::allowed, 0, "2026-11-01", 31, ""};
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "rl").status, 201);
}

TEST_F(ChargesApiTest, QuotaExceededIs429MonthlyQuotaExceededWithRetryAfterToNextMonth) {
    limiter_.decision = {LimitOutcome::quota_exceeded, 86'400'000, "2026-11-01", 8000, ""};
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "q");
    EXPECT_EQ(r.status, 429);
    EXPECT_EQ(code_of(r), "monthly_quota_exceeded");
    EXPECT_EQ(json(r)["meta"]["retryAfterMs"].GetInt64(), 86'400'000);
    EXPECT_TRUE(log_.records.empty());
    EXPECT_TRUE(idempotency_.rows.empty());
    EXPECT_TRUE(limiter_.refunds.empty());
}

TEST_F(ChargesApiTest, NotPersistedFreesTheKeyAndRefundsTheQuotaSoTheRetrySucceeds) {
    log_.outcome = infra::kafka::AppendStatus::not_persisted;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "np");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "event_log_unavailable");
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_EQ(idempotency_.completes, 0);
    EXPECT_EQ(limiter_.refunds, std::vector<std::string>{"prj_a@2026-11-01"});
    log_.outcome = infra::kafka::AppendStatus::persisted;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "np");
    EXPECT_EQ(retry.status, 201) << retry.body;
    EXPECT_EQ(limiter_.refunds.size(), 1u);
}

// Issue 9 item 2: an unknown outcome must not let the retry create a second charge.
TEST_F(ChargesApiTest, PossiblyPersistedKeepsTheKeyBoundAndTheRetryAppendsTheSameEvent) {
    use_counting_ids();
    log_.outcome = infra::kafka::AppendStatus::possibly_persisted;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    EXPECT_EQ(code_of(r), "event_log_outcome_unknown");
    EXPECT_EQ(idempotency_.abandons, 0);
    EXPECT_EQ(idempotency_.unlocks, 1);
    ASSERT_EQ(idempotency_.rows.size(), 1u);
    ASSERT_TRUE(idempotency_.rows.begin()->second.prepared);
    EXPECT_TRUE(limiter_.refunds.empty());
    ASSERT_EQ(log_.records.size(), 1u);
    const auto first = log_.records[0];
    EXPECT_EQ(idempotency_.rows.begin()->second.prepared->invoice_id, first.key);
    EXPECT_EQ(idempotency_.rows.begin()->second.prepared->event, first.value);

    // The charge is not in the read model: the retry appends the same bytes (same invoice id,
    // same event id), takes no new token and answers the 201 of that charge.
    log_.outcome = infra::kafka::AppendStatus::persisted;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    ASSERT_EQ(retry.status, 201) << retry.body;
    ASSERT_EQ(log_.records.size(), 2u);
    EXPECT_EQ(log_.records[1].key, first.key);
    EXPECT_EQ(log_.records[1].value, first.value);
    EXPECT_EQ(limiter_.takes, 1);
    EXPECT_EQ(std::string(json(retry)["data"]["invoiceId"].GetString()), first.key);
    // Completed: a third call is a byte-for-byte replay and appends nothing.
    auto replay = call("POST", "/v1/invoices", kBody, kTestKey, "pp");
    EXPECT_EQ(replay.body, retry.body);
    EXPECT_EQ(log_.records.size(), 2u);
}

TEST_F(ChargesApiTest, AResumedRetryThatFindsTheChargeAnswersItsStored201AndAppendsNothing) {
    use_counting_ids();
    log_.outcome = infra::kafka::AppendStatus::possibly_persisted;
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "found").status, 503);
    const auto prepared = idempotency_.rows.begin()->second.prepared.value();
    // The broker did persist it and the projector has it.
    ChargeView row;
    row.invoice_id = prepared.invoice_id;
    row.project_id = ProjectId{"prj_a"};
    row.mode = Mode::test;
    row.status = "pending";
    reader_.rows[prepared.invoice_id] = row;
    auto retry = call("POST", "/v1/invoices", kBody, kTestKey, "found");
    ASSERT_EQ(retry.status, 201) << retry.body;
    EXPECT_NE(retry.body.find(prepared.body), std::string::npos);  // the envelope around it
    EXPECT_EQ(std::string(json(retry)["data"]["invoiceId"].GetString()), prepared.invoice_id);
    EXPECT_EQ(log_.records.size(), 1u);
    EXPECT_EQ(idempotency_.completes, 1);
}

TEST_F(ChargesApiTest, ABoundKeyStaysBoundThroughAFailedResumeAndRefusesAnotherBody) {
    use_counting_ids();
    log_.outcome = infra::kafka::AppendStatus::possibly_persisted;
    EXPECT_EQ(call("POST", "/v1/invoices", kBody, kTestKey, "bound").status, 503);
    const auto first = log_.records[0];
    // A resumed attempt that the log refuses outright: still bound (the first may be durable).
    log_.outcome = infra::kafka::AppendStatus::not_persisted;
    auto again = call("POST", "/v1/invoices", kBody, kTestKey, "bound");
    EXPECT_EQ(code_of(again), "event_log_unavailable");
    EXPECT_EQ(idempotency_.abandons, 0);
    EXPECT_TRUE(limiter_.refunds.empty());
    EXPECT_EQ(idempotency_.rows.size(), 1u);
    // Another body with the key: 422, never a second charge.
    auto other =
        call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"6"})", kTestKey, "bound");
    EXPECT_EQ(code_of(other), "idempotency_key_reused");
    log_.outcome = infra::kafka::AppendStatus::persisted;
    auto ok = call("POST", "/v1/invoices", kBody, kTestKey, "bound");
    ASSERT_EQ(ok.status, 201) << ok.body;
    for (const auto& record : log_.records) EXPECT_EQ(record.value, first.value);
}

TEST_F(ChargesApiTest, AFailureBeforeTheAppendRefundsTheQuota) {
    // No rate source configured: a fiat price is refused after the limiter allowed it.
    auto r =
        call("POST", "/v1/invoices",
             R"({"chainId":80002,"fiat":{"currency":"USD","amount":"1.00"}})", kTestKey, "fiat");
    EXPECT_EQ(r.status, 501);
    EXPECT_EQ(limiter_.refunds, std::vector<std::string>{"prj_a@2026-11-01"});
    EXPECT_TRUE(idempotency_.rows.empty());
}

TEST_F(ChargesApiTest, ADatabaseFailureInTheLimiterIs503AndFreesTheKey) {
    limiter_.fail = true;
    auto r = call("POST", "/v1/invoices", kBody, kTestKey, "db");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "database_unavailable");
    EXPECT_EQ(idempotency_.abandons, 1);
    EXPECT_TRUE(idempotency_.rows.empty());
    EXPECT_TRUE(limiter_.refunds.empty()) << "nothing was taken";
}

TEST(CreationLimits, UnmeteredHasNoLimitAndTheOtherPlansKeepTheirs) {
    const auto limits = infra::postgres::creation_limits_for_plan("unmetered");
    EXPECT_TRUE(limits.unmetered);
    EXPECT_FALSE(limits.monthly_quota.has_value());
    EXPECT_FALSE(infra::postgres::creation_limits_for_plan("free").unmetered);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("free").per_minute, 30);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("free").monthly_quota, 8000);
    EXPECT_EQ(infra::postgres::creation_limits_for_plan("gold").per_minute, 30)
        << "unknown plans get free limits";
}

// GET /v1/charges through the route: the query reaches the lister scoped to the key, one extra
// row decides hasMore, items are full reads without an intent, the cursor names the last item.
TEST_F(ChargesApiTest, TheListRouteAnswersAPageOfFullReadsWithoutIntents) {
    FakeLister lister;
    for (int i = 0; i < 3; ++i) {
        ChargeView row;
        row.invoice_id = std::string("0x").append(63, 'a').append(std::to_string(i));
        row.project_id = ProjectId{"prj_a"};
        row.mode = Mode::test;
        row.chain_id = domain::ChainId{80002};
        row.status = "pending";
        row.payment_mode = PaymentMode::wallet;
        row.amount = "5";
        row.token = "0x5FbDB2315678afecb367f032d93F642f64180aa3";
        row.merchant = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
        row.metadata_json =
            std::string(R"({"order_id": "A-)").append(std::to_string(i)).append("\"}");
        lister.rows.push_back({row, 1'000'000 - i});
    }
    auto deps = deps_;
    deps.lister = &lister;
    ChargesApi api(deps);
    auto get = [&](const std::string& query, const char* key = kTestKey) {
        ApiRequest request;
        request.method = "GET";
        request.path = "/v1/charges";
        request.query = query;
        request.headers["x-api-key"] = key;
        ApiResponse out;
        api.handle(request, [&](ApiResponse r) { out = std::move(r); });
        return out;
    };
    auto page = get("limit=2&status=pending");
    ASSERT_EQ(page.status, 200) << page.body;
    ASSERT_EQ(lister.queries.size(), 1u);
    EXPECT_EQ(lister.queries[0].project_id, ProjectId{"prj_a"});
    EXPECT_EQ(lister.queries[0].mode, Mode::test);
    EXPECT_EQ(lister.queries[0].limit, 3u);  // the page and one more
    EXPECT_EQ(lister.queries[0].status, "pending");
    auto d = json(page);
    const auto& data = d["data"];
    ASSERT_EQ(data["items"].Size(), 2u);
    EXPECT_TRUE(data["hasMore"].GetBool());
    const auto cursor = decode_list_cursor(data["nextCursor"].GetString());
    ASSERT_TRUE(cursor);
    EXPECT_EQ(cursor->created_us, 1'000'000 - 1);
    EXPECT_EQ(cursor->invoice_id, lister.rows[1].charge.invoice_id);
    const auto& item = data["items"][0];
    EXPECT_EQ(std::string(item["invoiceId"].GetString()), lister.rows[0].charge.invoice_id);
    EXPECT_EQ(std::string(item["status"].GetString()), "pending");
    EXPECT_FALSE(item.HasMember("intent"));
    EXPECT_FALSE(item.HasMember("signature"));
    EXPECT_TRUE(item["branding"].IsObject());
    EXPECT_EQ(std::string(item["metadata"]["order_id"].GetString()), "A-0");

    auto last = get("limit=3");
    auto l = json(last);
    EXPECT_EQ(l["data"]["items"].Size(), 3u);
    EXPECT_FALSE(l["data"]["hasMore"].GetBool());
    EXPECT_TRUE(l["data"]["nextCursor"].IsNull());

    EXPECT_EQ(code_of(get("limit=0")), "invalid_limit");
    EXPECT_EQ(code_of(get("refrence=A-1")), "unknown_field");
    EXPECT_EQ(get("", "dp_test_unknown").status, 401);
    EXPECT_EQ(lister.queries.size(), 2u);  // refusals reach no query
    // Without a lister (and for other methods) the route does not exist / is GET only.
    EXPECT_EQ(call("GET", "/v1/charges").status, 404);
    ApiRequest post;
    post.method = "POST";
    post.path = "/v1/charges";
    ApiResponse refused;
    api.handle(post, [&](ApiResponse r) { refused = std::move(r); });
    EXPECT_EQ(refused.status, 405);
    EXPECT_EQ(refused.headers["allow"], "GET");
}

// The page is written into one buffer and each item's token address goes through a per-thread
// memo of the last token (docs/adr/0188): items with different tokens, one after another, each
// show their own token's EIP-55 form (or the stored text when it does not parse).
TEST_F(ChargesApiTest, ListItemsWithDifferentTokensEachShowTheirOwnTokenAddress) {
    FakeLister lister;
    const std::vector<std::pair<std::string, std::string>> tokens = {
        {"0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
         "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"},
        {"0x5FbDB2315678afecb367f032d93F642f64180aa3",
         "0x5FbDB2315678afecb367f032d93F642f64180aa3"},
        {"0xnot-an-address", "0xnot-an-address"},
        {"0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
         "0x70997970C51812dc3A010C7d01b50e0d17dc79C8"}};
    ChargeView base;
    base.project_id = ProjectId{"prj_a"};
    base.mode = Mode::test;
    base.chain_id = domain::ChainId{80002};
    base.status = "paid";
    base.payment_mode = PaymentMode::wallet;
    base.amount = "5";
    base.merchant = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";
    for (std::size_t i = 0; i < tokens.size(); ++i) {
        ChargeView row = base;
        row.invoice_id = "0x" + std::string(63, 'b') + std::to_string(i);
        row.token = tokens[i].first;
        lister.rows.push_back({row, 2'000'000 - static_cast<std::int64_t>(i)});
    }
    auto deps = deps_;
    deps.lister = &lister;
    ChargesApi api(deps);
    ApiRequest request;
    request.method = "GET";
    request.path = "/v1/charges";
    request.headers["x-api-key"] = kTestKey;
    ApiResponse page;
    api.handle(request, [&](ApiResponse r) { page = std::move(r); });
    ASSERT_EQ(page.status, 200) << page.body;
    auto d = json(page);
    const auto& items = d["data"]["items"];
    ASSERT_EQ(items.Size(), tokens.size());
    for (rapidjson::SizeType i = 0; i < items.Size(); ++i) {
        EXPECT_EQ(std::string(items[i]["tokenInfo"]["address"].GetString()), tokens[i].second)
            << "item " << i;
        EXPECT_EQ(std::string(items[i]["token"].GetString()), tokens[i].first) << "item " << i;
    }
}

TEST_F(ChargesApiTest, AnUnknownBodyFieldIs400NamingItAndNothingIsAppended) {
    struct Case {
        std::string body;
        std::string named;
    };
    const Case cases[] = {
        {R"({"chainId":80002,"amount":"5","refrence":"order-1"})", "body field refrence "},
        {R"({"chainid":80002,"amount":"5"})", "body field chainid "},
        {R"({"chainId":80002,"fiat":{"currency":"USD","amont":"1.00"}})", "body field fiat.amont "},
        {R"({"chainId":80002,"amount":"5","description":null})", "body field description "},
        {R"({"chainId":80002,"amount":"5","a\u0001b":1})", R"(body field a\\x01b )"},
    };
    for (const auto& c : cases) {
        auto r = call("POST", "/v1/invoices", c.body);
        EXPECT_EQ(r.status, 400) << c.body;
        EXPECT_EQ(code_of(r), "unknown_field") << c.body;
        EXPECT_NE(r.body.find(c.named), std::string::npos) << r.body;
    }
    EXPECT_TRUE(log_.records.empty());
    // Authentication still comes first; every documented field is accepted.
    EXPECT_EQ(call("POST", "/v1/invoices", cases[0].body, nullptr).status, 401);
    auto all =
        call("POST", "/v1/invoices",
             R"({"chainId":80002,"amount":"5","token":"USDT","paymentMode":"both",)"
             R"("reference":"r","returnUrl":"https://shop.example/done",)"
             R"("expiresInSeconds":600,"merchant":"0x70997970C51812dc3A010C7d01b50e0d17dc79C8",)"
             R"("metadata":{"k":"v"}})");
    EXPECT_EQ(all.status, 201) << all.body;
}

TEST_F(ChargesApiTest, AnUnknownQueryParameterIs400OnTheCreateAndTheReads) {
    reader_.rows[kId].invoice_id = kId;
    reader_.rows[kId].project_id = ProjectId{"prj_a"};
    reader_.rows[kId].mode = Mode::test;
    reader_.rows[kId].status = "pending";
    for (const auto& [method, path] : std::vector<std::pair<std::string, std::string>>{
             {"POST", "/v1/invoices"},
             {"GET", "/v1/charges/" + kId},
             {"GET", "/v1/charges/" + kId + "/status"}}) {
        ApiRequest request;
        request.method = method;
        request.path = path;
        request.query = "expand=intent";
        request.body = R"({"chainId":80002,"amount":"5"})";
        request.headers["x-api-key"] = kTestKey;
        ApiResponse out;
        api_->handle(request, [&](ApiResponse r) { out = std::move(r); });
        EXPECT_EQ(out.status, 400) << path;
        EXPECT_EQ(code_of(out), "unknown_field") << path;
        EXPECT_NE(out.body.find("query parameter expand"), std::string::npos) << out.body;
    }
    EXPECT_TRUE(log_.records.empty());
    EXPECT_EQ(call("GET", "/v1/charges/" + kId + "/status").status, 200);
}

}  // namespace
}  // namespace duepay::api
