// The fixture of the ChargesApi unit tests: the routes over the shared in-memory doubles of their
// ports (tests/doubles/api_ports.hpp), two chains (a testnet with the transfer rail, a mainnet
// without), a test and a live key of project prj_a, fixed clock and ids.
#pragma once

#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <memory>
#include <optional>
#include <string>

#include "api/http/charges_api.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "tests/doubles/api_ports.hpp"
#include "tests/unit/api/surface.hpp"

namespace duepay::api::test {

inline constexpr const char* kTestKey = "dp_test_unit";
inline constexpr const char* kLiveKey = "dp_live_unit";

inline const char* kChains = R"({"chains":[
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
        deps.charges = &reader_;
        deps.lister = &lister_;
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
        use(deps);
    }

    // Serves the charge routes of `deps` from now on.
    void use(ApiDeps deps) {
        surface_.reset();
        api_ = std::make_unique<ChargesApi>(std::move(deps));
        surface_ = std::make_unique<Surface>(key_cache_, *api_);
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
        use(std::move(deps));
    }

    ApiResponse call(const std::string& method, const std::string& path,
                     const std::string& body = "", const char* key = kTestKey,
                     const std::optional<std::string>& idempotency_key = std::nullopt) {
        ApiRequest request;
        request.method = method;
        request.path = path;
        request.body = body;
        if (key != nullptr) request.headers["x-api-key"] = key;
        if (method == "POST") request.headers["content-type"] = "application/json";
        if (idempotency_key) request.headers["idempotency-key"] = *idempotency_key;
        std::optional<ApiResponse> out;
        int calls = 0;
        surface_->handle(request, [&](ApiResponse r) {
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
    Authenticator key_cache_{keys_};  // the process's one key cache
    FakeReader reader_;
    FakeLister lister_;
    FakeWaiter waiter_;
    FakeLog log_;
    FakeIdempotency idempotency_;
    FakeLimiter limiter_;
    infra::config::ChainRegistry chains_;
    infra::crypto::Secp256k1Signer signer_;
    ApiDeps deps_;
    std::unique_ptr<ChargesApi> api_;
    std::unique_ptr<Surface> surface_;
};

inline const std::string kId = [] {
    std::string s = "0x";
    for (int i = 0; i < 32; ++i) s += "42";
    return s;
}();

}  // namespace duepay::api::test
