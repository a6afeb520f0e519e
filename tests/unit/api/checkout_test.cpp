// The hosted checkout's pure rules (view, JSON, page, return URL, language) and its routes with
// an in-memory reader: escaping, 404s, 429, CSP, assets. The browser behaviour is covered by
// tests/e2e/checkout.test.mjs in real Chromium.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include "api/checkout/checkout_page.hpp"
#include "api/checkout/checkout_routes.hpp"
#include "api/checkout/checkout_view.hpp"
#include "domain/evm/address.hpp"
#include "domain/evm/eip712.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "infra/error.hpp"
#include "infra/qr/qr_svg.hpp"

namespace duepay::api::checkout {
namespace {

const char* kChains = R"({"chains":[
 {"chainId":80002,"name":"Polygon Amoy","network":"testnet","rpcUrl":"http://10.0.0.1:8545",
  "publicRpcUrl":"https://rpc.example","explorerUrl":"https://explorer.example/","transferRail":true,
  "feeBps":100,"confirmations":3,"router":"0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0",
  "depositFactory":"0xCf7Ed3AccA5a467e9e704C703E8D87F634fB0Fc9",
  "forwarderInitCodeHash":"0x83ea636e1a7c5ea12df9fdbfbc95e938d35dc623aa2849608e73092fcdeca678",
  "defaultToken":"USDT","tokens":[{"symbol":"USDT","name":"Tether USD","decimals":6,
  "address":"0x5FbDB2315678afecb367f032d93F642f64180aa3"}]}]})";

const std::string kId = "0x" + std::string(64, 'a');
const std::string kDeposit = "0x70997970C51812dc3A010C7d01b50e0d17dc79C8";

domain::Address addr(std::string_view eip55) { return domain::evm::parse_address(eip55).value(); }

ChargeView charge(Status status = Status::pending, PaymentMode mode = PaymentMode::both) {
    ChargeView row;
    row.invoice_id = kId;
    row.project_id = ProjectId{"prj_secret_id"};
    row.mode = Mode::test;
    row.chain_id = domain::ChainId{80002};
    row.status = status;
    row.amount = domain::TokenAmount{1250000};
    row.token = addr("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    row.token_symbol = "USDT";
    row.token_decimals = 6;
    row.payment_mode = mode;
    row.merchant = addr("0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC");
    row.fee_bps = 100;
    row.deadline = 1900000000;
    row.deposit_address = addr(kDeposit);
    row.reference = "order-7";
    row.return_url = "https://shop.example/done?cart=9#top";
    row.fiat_json = R"({"currency":"THB","amount":"45.50","tokenAmount":"1250000"})";
    return row;
}

class CheckoutTest : public ::testing::Test {
  protected:
    CheckoutTest()
        : chains_(infra::config::ChainRegistry::parse(kChains).value()),
          signer_(infra::crypto::Secp256k1Signer::from_hex(
                      "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d")
                      .value()) {}

    CheckoutView view(const ChargeView& row, std::optional<std::uint64_t> seen = std::nullopt) {
        return build_view(row, chains_.find(domain::ChainId{80002}), branding_, &signer_, seen);
    }

    infra::config::ChainRegistry chains_;
    infra::crypto::Secp256k1Signer signer_;
    Branding branding_{"Acme Coffee", std::nullopt, std::string("#FF6600")};
};

TEST_F(CheckoutTest, ViewCarriesWhatABuyerNeeds) {
    const auto v = view(charge());
    EXPECT_EQ(v.amount_display, "1.25");
    EXPECT_EQ(v.amount_due, "1250000");
    EXPECT_EQ(v.chain_name, "Polygon Amoy");
    EXPECT_EQ(v.explorer_url, "https://explorer.example");
    EXPECT_EQ(v.payment_uri,
              "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@80002/transfer?address=" +
                  kDeposit + "&uint256=1250000");
    EXPECT_EQ(v.fiat_currency, domain::money::FiatCurrency::THB);
    EXPECT_EQ(v.fiat_amount, "45.50");
    EXPECT_EQ(v.confirmations_required, 3u);
    EXPECT_EQ(v.redirect_url,
              "https://shop.example/done?cart=9&invoiceId=" + kId + "&reference=order-7#top");
}

TEST_F(CheckoutTest, WalletRailIsSignedAndEncoded) {
    const auto v = view(charge());
    ASSERT_TRUE(v.wallet);
    EXPECT_EQ(v.wallet->approve.to, "0x5FbDB2315678afecb367f032d93F642f64180aa3");
    EXPECT_EQ(v.wallet->approve.data.substr(0, 10), "0x095ea7b3");
    // approve's spender is the router.
    EXPECT_NE(v.wallet->approve.data.find("9fe46736679d2d9a65f0992f2272de9f3c7fa6e0"),
              std::string::npos);
    EXPECT_EQ(v.wallet->pay.to, "0x9fE46736679d2D9a65F0992F2272dE9f3c7fa6e0");
    EXPECT_EQ(v.wallet->pay.data.substr(0, 10), "0x0b11d21f");
    EXPECT_EQ(v.wallet->pay.data.size(), 2 + 2 * (4 + 11 * 32));
    // The signature inside the pay calldata is the one in the view, and it recovers to our signer.
    EXPECT_NE(v.wallet->pay.data.find(v.wallet->signature.substr(2)), std::string::npos);
    domain::evm::PaymentIntent intent{domain::parse_invoice_id(kId).value(),
                                      charge().merchant,
                                      charge().token,
                                      domain::TokenAmount{1250000},
                                      100,
                                      domain::uint256(1900000000)};
    const auto digest = domain::evm::intent_digest(
        domain::evm::Eip712Domain{domain::ChainId{80002},
                                  chains_.find(domain::ChainId{80002})->router},
        intent);
    auto sig = domain::evm::parse_signature(v.wallet->signature).value();
    EXPECT_EQ(infra::crypto::recover_signer(digest, sig).value(), signer_.address());
}

TEST_F(CheckoutTest, RailsFollowModeAndStatus) {
    EXPECT_FALSE(view(charge(Status::pending, PaymentMode::transfer)).wallet);
    EXPECT_FALSE(view(charge(Status::pending, PaymentMode::wallet)).deposit_address);
    EXPECT_FALSE(view(charge(Status::pending, PaymentMode::wallet)).payment_uri);
    const auto expired = view(charge(Status::expired));
    EXPECT_FALSE(expired.wallet);
    EXPECT_FALSE(expired.payment_uri);
    EXPECT_FALSE(view(charge(Status::paid)).payment_uri);
    auto under = charge(Status::underpaid);
    under.amount_confirmed = domain::TokenAmount{300000};
    const auto u = view(under);
    EXPECT_EQ(u.amount_due, "950000");
    EXPECT_EQ(u.amount_due_display, "0.95");
    EXPECT_FALSE(u.wallet);  // the router takes the whole amount: no wallet rail after a part came
    EXPECT_EQ(u.payment_uri,
              "ethereum:0x5FbDB2315678afecb367f032d93F642f64180aa3@80002/transfer?address=" +
                  kDeposit + "&uint256=950000");
}

TEST_F(CheckoutTest, JsonHasNoProjectInternals) {
    const auto json = checkout_json(view(charge()));
    EXPECT_EQ(json.find("prj_secret_id"), std::string::npos);
    EXPECT_EQ(json.find("10.0.0.1"), std::string::npos);  // the private RPC URL stays private
    rapidjson::Document doc;
    doc.Parse(json.c_str());
    ASSERT_FALSE(doc.HasParseError());
    EXPECT_FALSE(doc.HasMember("projectId"));
    EXPECT_STREQ(doc["status"].GetString(), "pending");
    EXPECT_STREQ(doc["amountDisplay"].GetString(), "1.25");
    EXPECT_STREQ(doc["token"]["symbol"].GetString(), "USDT");
    EXPECT_EQ(doc["token"]["decimals"].GetInt(), 6);
    EXPECT_STREQ(doc["chain"]["rpcUrl"].GetString(), "https://rpc.example");
    EXPECT_STREQ(doc["fiat"]["currency"].GetString(), "THB");
    EXPECT_STREQ(doc["branding"]["projectName"].GetString(), "Acme Coffee");
    EXPECT_EQ(doc["confirmations"]["required"].GetInt(), 3);
    ASSERT_TRUE(doc["wallet"].IsObject());
    EXPECT_STREQ(doc["wallet"]["transactions"][0]["step"].GetString(), "approve");
    EXPECT_STREQ(doc["wallet"]["transactions"][1]["step"].GetString(), "pay");
    EXPECT_STREQ(doc["wallet"]["intent"]["deadline"].GetString(), "1900000000");
    EXPECT_EQ(doc["wallet"]["intent"]["feeBps"].GetInt(), 100);
}

TEST_F(CheckoutTest, TheMerchantsMetadataNeverReachesTheBuyer) {
    auto row = charge();
    row.metadata_json = R"({"customer_email": "buyer@shop.example"})";  // ADR 0160
    const auto v = view(row);
    for (const auto& shown : {checkout_json(v), render_page(v, Lang::en, 1899999000, "", "v")}) {
        EXPECT_EQ(shown.find("customer_email"), std::string::npos);
        EXPECT_EQ(shown.find("buyer@shop.example"), std::string::npos);
        EXPECT_EQ(shown.find("metadata"), std::string::npos);
    }
}

TEST_F(CheckoutTest, ConfirmingShowsNofM) {
    auto row = charge(Status::confirming);
    row.timeline_json =
        R"([{"status":"pending","at":"x","txHash":null},{"status":"confirming","at":"y","txHash":"0xbeef"}])";
    const auto v = view(row, 2);
    EXPECT_EQ(v.tx_url, "https://explorer.example/tx/0xbeef");
    const auto page = render_page(v, Lang::en, 1899999000, "", "v");
    EXPECT_NE(page.find("(2 / 3 confirmations)"), std::string::npos);
    EXPECT_NE(page.find("data-status=\"confirming\""), std::string::npos);
    EXPECT_NE(page.find("href=\"https://explorer.example/tx/0xbeef\""), std::string::npos);
}

TEST(CheckoutReturnUrl, KeepsParamsAndFragment) {
    EXPECT_EQ(append_return_params("https://a.example/x", "0x1", std::string("r 1&2")),
              "https://a.example/x?invoiceId=0x1&reference=r%201%262");
    EXPECT_EQ(append_return_params("https://a.example/x?y=1", "0x1", std::nullopt),
              "https://a.example/x?y=1&invoiceId=0x1");
    EXPECT_EQ(append_return_params("https://a.example/x?#f", "0x1", std::string("r")),
              "https://a.example/x?invoiceId=0x1&reference=r#f");
}

TEST(CheckoutLang, QueryThenAcceptLanguage) {
    EXPECT_EQ(choose_lang("", ""), Lang::en);
    EXPECT_EQ(choose_lang("", "th-TH,th;q=0.9,en;q=0.8"), Lang::th);
    EXPECT_EQ(choose_lang("", "en-US,en;q=0.9,th;q=0.8"), Lang::en);
    EXPECT_EQ(choose_lang("", "de,th;q=0.5"), Lang::th);
    EXPECT_EQ(choose_lang("", "th;q=0.2,en;q=0.7"), Lang::en);
    EXPECT_EQ(choose_lang("en", "th"), Lang::en);
    EXPECT_EQ(choose_lang("th", "en"), Lang::th);
    EXPECT_EQ(choose_lang("xx", "th"), Lang::th);
}

TEST_F(CheckoutTest, PageEscapesMerchantStrings) {
    auto row = charge();
    row.reference = "<img src=x onerror=alert(1)>";
    branding_.project_name = "<script>alert('x')</script>";
    branding_.accent_color = "#12345\"";  // never stored by admin, but never trusted either
    const auto page = render_page(view(row), Lang::en, 1899999000, "<svg></svg>", "v");
    EXPECT_EQ(page.find("<script>alert"), std::string::npos);
    EXPECT_EQ(page.find("<img src=x"), std::string::npos);
    EXPECT_NE(page.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
    EXPECT_NE(page.find("&lt;img src=x onerror=alert(1)&gt;"), std::string::npos);
    EXPECT_EQ(page.find("/static/accent/"), std::string::npos);
    // No inline script: every <script> is the external file or a JSON data block.
    for (std::size_t at = page.find("<script"); at != std::string::npos;
         at = page.find("<script", at + 1)) {
        const auto tag = page.substr(at, page.find('>', at) - at);
        EXPECT_TRUE(tag.find("src=\"/static/checkout.js") != std::string::npos ||
                    tag.find("type=\"application/json\"") != std::string::npos)
            << tag;
    }
}

TEST_F(CheckoutTest, PageHasTheTestHooks) {
    const auto page =
        render_page(view(charge()), Lang::en, 1900000000 - 3725, "<svg id=q></svg>", "v");
    for (const char* hook : {"amount", "fiat", "token", "network", "countdown", "deposit-address",
                             "qr", "pay-wallet", "status"}) {
        EXPECT_NE(page.find(std::string("data-test=\"") + hook + "\""), std::string::npos) << hook;
    }
    EXPECT_NE(page.find(">1h 02m 05s<"), std::string::npos);
    EXPECT_NE(page.find("<svg id=q></svg>"), std::string::npos);
    EXPECT_NE(page.find("≈ ฿45.50 THB"), std::string::npos);
    EXPECT_NE(page.find("<html lang=\"en\">"), std::string::npos);
    // checkout.js takes the final statuses from the page (domain::charge::final_status).
    EXPECT_NE(page.find("data-final-statuses=\"paid expired failed refunded\""), std::string::npos);
    const auto th = render_page(view(charge()), Lang::th, 1899999000, "", "v");
    EXPECT_NE(th.find("<html lang=\"th\">"), std::string::npos);
    EXPECT_NE(th.find("รอการชำระเงิน"), std::string::npos);
}

TEST(CheckoutQr, SvgOfTheText) {
    const auto svg = infra::qr::qr_svg("ethereum:0xabc@1/transfer", "a<b");
    EXPECT_EQ(svg.rfind("<svg", 0), 0u);
    EXPECT_NE(svg.find("<title>a&lt;b</title>"), std::string::npos);
    EXPECT_NE(svg.find("h1v1h-1z"), std::string::npos);
    try {
        infra::qr::qr_svg(std::string(8000, 'x'), "");
        ADD_FAILURE() << "a text too long for a QR code was encoded";
    } catch (const infra::InfraError& e) {
        EXPECT_FALSE(e.retryable());
        EXPECT_STREQ(e.what(), "qr_svg: the text cannot be encoded as a QR code");
    }
}

// ---- routes ----

class FakeReader final : public CheckoutReader {
  public:
    std::optional<ChargeView> find(const std::string& id) override {
        if (row && row->invoice_id == id) return row;
        return std::nullopt;
    }
    std::optional<Branding> branding(const ProjectId& project) override {
        if (project.value != "prj_secret_id") return std::nullopt;
        return Branding{"Acme Coffee", std::nullopt, std::string("#FF6600")};
    }
    std::optional<std::uint64_t> payment_block(const std::string&) override { return 10; }
    std::optional<ChargeView> row;
};

class FakeHeads final : public ChainHeads {
  public:
    std::optional<std::uint64_t> head(std::uint64_t) override { return 11; }
};

class CheckoutRoutesTest : public CheckoutTest {
  protected:
    CheckoutRoutesTest() : limiter_(60, 3) {
        reader_.row = charge();
        CheckoutDeps deps;
        deps.reader = &reader_;
        deps.heads = &heads_;
        deps.chains = &chains_;
        deps.signer = &signer_;
        deps.qr_svg = [](std::string_view text, std::string_view title) {
            return infra::qr::qr_svg(text, title);
        };
        deps.now_ms = [this] { return now_ms_; };
        deps.limiter = &limiter_;
        routes_ = std::make_unique<CheckoutRoutes>(std::move(deps));
        RouteTable table;
        routes_->add_routes(table);
        pipeline_ =
            std::make_unique<Pipeline>(std::move(table), nullptr, routes_->pipeline_settings());
    }
    // The answer as the edge sends it (a JSON answer without a content-type is application/json).
    CheckoutResponse send(const std::string& method, const std::string& path,
                          const std::string& client) {
        ApiRequest r;
        r.method = method;
        r.path = path;
        r.remote = client;
        CheckoutResponse out;
        int answers = 0;
        pipeline_->handle(r, [&](ApiResponse a) {
            ++answers;
            out.status = a.status;
            out.body = std::move(a.body);
            out.headers = std::move(a.headers);
            auto type = out.headers.find("content-type");
            out.content_type = type == out.headers.end() ? "application/json" : type->second;
        });
        EXPECT_EQ(answers, 1);
        return out;
    }
    CheckoutResponse get(const std::string& path, const std::string& client = "10.0.0.1") {
        return send("GET", path, client);
    }
    FakeReader reader_;
    FakeHeads heads_;
    ClientRateLimiter limiter_;
    std::int64_t now_ms_ = 1899999000000;
    std::unique_ptr<CheckoutRoutes> routes_;
    std::unique_ptr<Pipeline> pipeline_;
};

TEST_F(CheckoutRoutesTest, PageJsonAndAssets) {
    auto page = get("/c/" + kId);
    EXPECT_EQ(page.status, 200);
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_NE(page.body.find("data-test=\"qr\"><svg"), std::string::npos);
    EXPECT_NE(page.headers["content-security-policy"].find("frame-ancestors 'none'"),
              std::string::npos);
    EXPECT_EQ(page.headers["content-security-policy"].find("unsafe-inline"), std::string::npos);
    auto json = get("/v1/checkout/" + kId, "10.0.0.2");
    EXPECT_EQ(json.status, 200);
    EXPECT_EQ(json.body.rfind("{\"success\":true,\"data\":{\"invoiceId\":\"" + kId, 0), 0u);
    auto upper = get("/v1/checkout/0x" + std::string(64, 'A'), "10.0.0.2");
    EXPECT_EQ(upper.status, 200);
    auto js = get("/static/checkout.js", "10.0.0.3");
    EXPECT_EQ(js.status, 200);
    EXPECT_EQ(js.content_type, "text/javascript; charset=utf-8");
    EXPECT_NE(js.body.find("eip6963:requestProvider"), std::string::npos);
    auto accent = get("/static/accent/FF6600.css", "10.0.0.3");
    EXPECT_EQ(accent.body, ":root{--accent:#FF6600}\n");
    EXPECT_EQ(get("/static/accent/FF66ZZ.css", "10.0.0.4").status, 404);
}

TEST_F(CheckoutRoutesTest, ConfirmationsFromTheChainHead) {
    reader_.row = charge(Status::confirming);
    auto json = get("/v1/checkout/" + kId);
    EXPECT_NE(json.body.find("\"confirmations\":{\"required\":3,\"seen\":2}"), std::string::npos)
        << json.body;
}

TEST_F(CheckoutRoutesTest, UnknownIdsAre404) {
    auto json = get("/v1/checkout/0x" + std::string(64, 'b'));
    EXPECT_EQ(json.status, 404);
    EXPECT_NE(json.body.find("\"code\":\"charge_not_found\""), std::string::npos);
    auto bad = get("/v1/checkout/not-an-id", "10.0.0.5");
    EXPECT_EQ(bad.status, 404);
    auto page = get("/c/0x" + std::string(64, 'b'), "10.0.0.6");
    EXPECT_EQ(page.status, 404);
    EXPECT_EQ(page.content_type, "text/html; charset=utf-8");
    EXPECT_NE(page.body.find("data-test=\"not-found\""), std::string::npos);
}

TEST_F(CheckoutRoutesTest, RateLimitPerClient) {
    for (int i = 0; i < 3; ++i) EXPECT_EQ(get("/c/" + kId, "192.0.2.1").status, 200);
    auto limited = get("/c/" + kId, "192.0.2.1");
    EXPECT_EQ(limited.status, 429);
    EXPECT_EQ(limited.content_type, "application/json");
    EXPECT_NE(limited.body.find("\"code\":\"rate_limited\""), std::string::npos);
    EXPECT_NE(limited.body.find("\"retryAfterMs\":1000"), std::string::npos) << limited.body;
    EXPECT_EQ(limited.headers["retry-after"], "1");
    EXPECT_EQ(get("/c/" + kId, "192.0.2.2").status, 200);  // another client is not affected
    now_ms_ += 1000;                                       // 60 per minute: one more after a second
    EXPECT_EQ(get("/c/" + kId, "192.0.2.1").status, 200);
    EXPECT_EQ(get("/c/" + kId, "192.0.2.1").status, 429);
}

TEST_F(CheckoutRoutesTest, OnlyGet) {
    auto response = send("POST", "/c/" + kId, "10.0.0.7");
    EXPECT_EQ(response.status, 405);
    EXPECT_EQ(response.headers["allow"], "GET, HEAD");
    EXPECT_NE(response.body.find("\"code\":\"method_not_allowed\""), std::string::npos);
    EXPECT_NE(response.headers["content-security-policy"].find("frame-ancestors 'none'"),
              std::string::npos);
    // HEAD is served as GET (the edge drops the body).
    EXPECT_EQ(send("HEAD", "/static/checkout.css", "10.0.0.7").status, 200);
    EXPECT_EQ(send("GET", "/nowhere", "10.0.0.7").status, 404);
}

// The probe is the shared one (add_health_route), behind the checkout's headers.
TEST_F(CheckoutRoutesTest, HealthzIsTheSharedProbe) {
    auto health = get("/healthz", "10.0.0.8");
    EXPECT_EQ(health.status, 200);
    EXPECT_EQ(health.body, R"({"success":true,"data":{"status":"ok"},"error":null})");
    EXPECT_NE(health.headers["content-security-policy"].find("frame-ancestors 'none'"),
              std::string::npos);
}

}  // namespace
}  // namespace duepay::api::checkout
