// POST /v1/invoices through ChargesApi: the 201 and its event, the shape rule, validation codes,
// metadata, the payout wallet, the event log's outcomes (no Pistache, no servers).
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/create2.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/money/token_amount.hpp"
#include "tests/unit/api/charges_api_fixture.hpp"

namespace duepay::api::test {
namespace {

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
        R"("metadata":{"v":")" + std::string(501, 'v') + R"("})",
        R"("metadata":{"v":")" + thai501 + R"("})",
        R"("metadata":{)" + many + "}",
    };
    for (const auto& field : bad) {
        auto r = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5",)" + field + "}");
        EXPECT_EQ(r.status, 400) << field;
        EXPECT_EQ(code_of(r), "invalid_metadata") << field.substr(0, 80);
    }
    // A key given twice is the general rule of every body (docs/api-errors.md duplicate_field).
    auto twice = call("POST", "/v1/invoices",
                      R"({"chainId":80002,"amount":"5","metadata":{"a":"1","a":"2"}})");
    EXPECT_EQ(twice.status, 400);
    EXPECT_EQ(code_of(twice), "duplicate_field");
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

TEST_F(ChargesApiTest, MalformedJsonIs400InvalidJson) {
    auto r = call("POST", "/v1/invoices", "{\"chainId\":");
    EXPECT_EQ(r.status, 400);
    EXPECT_EQ(code_of(r), "invalid_json");
}

TEST_F(ChargesApiTest, LogUnavailableIs503WithRetryAfterAndNoWait) {
    log_.outcome = ports::AppendStatus::not_persisted;
    auto r = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})");
    EXPECT_EQ(r.status, 503);
    EXPECT_EQ(code_of(r), "event_log_unavailable");
    EXPECT_EQ(json(r)["meta"]["retryAfterMs"].GetInt64(), 1000);
    EXPECT_TRUE(waiter_.waited.empty());
    log_.outcome = ports::AppendStatus::possibly_persisted;
    auto u = call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})");
    EXPECT_EQ(u.status, 503);
    EXPECT_EQ(code_of(u), "event_log_outcome_unknown");
}

TEST_F(ChargesApiTest, DurableButNotYetProjectedStillAnswers201) {
    waiter_.projected = false;
    EXPECT_EQ(call("POST", "/v1/invoices", R"({"chainId":80002,"amount":"5"})").status, 201);
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

// ---- Idempotency-Key, rate limit and quota on the create path (docs/limits.md) ----

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

}  // namespace
}  // namespace duepay::api::test
