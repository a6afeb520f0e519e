// Accounts administration against the real stack (var/dev.env): `duepay admin project|key|wallet`
// as subprocesses of this build tree, and `duepay dev` (api + projector on a fresh topic) over
// HTTP. The payout wallet is proved with an EIP-191 signature made here by Secp256k1Signer from a
// fixed test key; the service never sees that key.
#include <gtest/gtest.h>
#include <rapidjson/document.h>

#include <chrono>
#include <thread>

#include "domain/evm/address.hpp"
#include "tests/integration/accounts/accounts_support.hpp"

namespace duepay::tests {
namespace {

class Accounts : public ::testing::Test {
  protected:
    static void SetUpTestSuite() {
        std::string missing;
        auto env = stack_env(missing);
        if (!env) return;
        env_ = new StackEnv(*env);
        server_ = new DevServer(start_dev_server(*env, "accounts", 2));
    }
    static void TearDownTestSuite() {
        if (server_ != nullptr) {
            EXPECT_EQ(server_->process->stop(), 0);
        }
        delete server_;
        delete env_;
        server_ = nullptr;
        env_ = nullptr;
    }
    void SetUp() override {
        if (env_ == nullptr) {
            GTEST_SKIP() << "integration stack not configured (DATABASE_URL, KAFKA_BOOTSTRAP, "
                            "DUEPAY_CHAINS_FILE, "
                            "DUEPAY_SIGNER_KEY, DUEPAY_SERVER_SECRET): source var/dev.env or run "
                            "`make test`";
        }
        ASSERT_TRUE(server_->process->alive()) << server_->process->log();
    }
    std::string url(const std::string& path) const { return server_->base_url + path; }

    HttpResponse create(const std::string& key, const std::string& body) {
        return http("POST", url("/v1/invoices"),
                    {{"x-api-key", key}, {"content-type", "application/json"}}, body);
    }

    // A project with branding and a test key; returns {projectId, key}.
    std::pair<std::string, std::string> new_project_with_test_key() {
        auto p =
            admin({"project", "create", "--name", "Accounts IT shop", "--plan", "scale",
                   "--logo-url", "https://shop.example/logo.png", "--accent-color", "#0A7B5C"});
        EXPECT_EQ(p.rc, 0) << p.output;
        const auto project = text(p.json, "projectId");
        auto k = admin({"key", "create", "--project", project, "--mode", "test"});
        EXPECT_EQ(k.rc, 0) << k.output;
        return {project, text(k.json, "key")};
    }

    // Challenge + signature by `key` + verify; returns the verify result.
    Admin prove_wallet(const std::string& project, const infra::crypto::Secp256k1Signer& owner,
                       const infra::crypto::Secp256k1Signer& signing) {
        const auto address = domain::evm::to_checksum(owner.address());
        auto c = admin({"wallet", "challenge", "--project", project, "--address", address});
        EXPECT_EQ(c.rc, 0) << c.output;
        const auto message = text(c.json, "message");
        EXPECT_NE(message.find(project), std::string::npos) << message;
        EXPECT_NE(message.find(address), std::string::npos) << message;
        EXPECT_NE(message.find(text(c.json, "nonce")), std::string::npos) << message;
        return admin({"wallet", "verify", "--project", project, "--address", address, "--signature",
                      personal_sign(signing, message)});
    }

    static StackEnv* env_;
    static DevServer* server_;
};

StackEnv* Accounts::env_ = nullptr;
DevServer* Accounts::server_ = nullptr;

TEST_F(Accounts, PayoutWalletProofThenCreateAndFullRead) {
    auto [project, key] = new_project_with_test_key();
    ASSERT_EQ(key.rfind("dp_test_", 0), 0u) << key;

    // No payout wallet yet: creation refused.
    auto refused = create(key, R"({"chainId":80002,"amount":"1500000"})");
    EXPECT_EQ(refused.status, 409) << refused.body;
    EXPECT_EQ(meta_code(refused), "payout_wallet_not_set");

    const auto wallet = signer_of(kWalletKey);
    const auto other = signer_of(kOtherKey);
    const auto address = domain::evm::to_checksum(wallet.address());

    // Signed by another wallet: refused, payout still unset.
    auto wrong = prove_wallet(project, wallet, other);
    EXPECT_EQ(wrong.rc, 1) << wrong.output;
    EXPECT_EQ(error_code(wrong), "signer_mismatch");
    auto shown = admin({"project", "show", "--project", project});
    ASSERT_EQ(shown.rc, 0) << shown.output;
    EXPECT_TRUE(shown.json["payoutAddress"].IsNull()) << shown.output;

    // Proper proof: payout set (EIP-55).
    auto c = admin({"wallet", "challenge", "--project", project, "--address", address});
    ASSERT_EQ(c.rc, 0) << c.output;
    const auto signature = personal_sign(wallet, text(c.json, "message"));
    const std::vector<std::string> verify{"wallet",    "verify", "--project",   project,
                                          "--address", address,  "--signature", signature};
    auto ok = admin(verify);
    ASSERT_EQ(ok.rc, 0) << ok.output;
    EXPECT_EQ(text(ok.json, "payoutAddress"), address);

    // The same challenge again: refused as used.
    auto reused = admin(verify);
    EXPECT_EQ(reused.rc, 1) << reused.output;
    EXPECT_EQ(error_code(reused), "challenge_used");

    // merchant other than the payout: 403. The API sees the new payout wallet within its 1 s key
    // cache bound (docs/accounts.md).
    const auto verified_at = std::chrono::steady_clock::now();
    HttpResponse mismatch;
    wait_until(
        [&] {
            mismatch = create(key, R"({"chainId":80002,"amount":"1500000","merchant":")" +
                                       domain::evm::to_checksum(other.address()) + "\"}");
            return mismatch.status != 409;
        },
        std::chrono::seconds(3));
    EXPECT_LE(std::chrono::duration_cast<std::chrono::milliseconds>(
                  std::chrono::steady_clock::now() - verified_at)
                  .count(),
              1200);
    EXPECT_EQ(mismatch.status, 403) << mismatch.body;
    EXPECT_EQ(meta_code(mismatch), "merchant_mismatch");

    // Create succeeds now; the full read carries token metadata and branding.
    auto created = create(key, R"({"chainId":80002,"amount":"1500000","merchant":")" + address +
                                   R"(","paymentMode":"both"})");
    ASSERT_EQ(created.status, 201) << created.body;
    auto cd = parse(created.body);
    const auto id = text(cd["data"], "invoiceId");
    auto read = http("GET", url("/v1/charges/" + id), {{"x-api-key", key}});
    ASSERT_EQ(read.status, 200) << read.body;
    auto rd = parse(read.body);
    const auto& data = rd["data"];
    EXPECT_EQ(text(data, "status"), "pending");
    EXPECT_EQ(text(data, "amount"), "1500000");
    EXPECT_EQ(text(data, "merchant"), address);
    EXPECT_EQ(text(data, "depositAddress").size(), 42u) << read.body;
    EXPECT_EQ(text(data, "signature").size(), 132u) << read.body;
    ASSERT_TRUE(data.HasMember("tokenInfo") && data["tokenInfo"].IsObject()) << read.body;
    const auto& token = data["tokenInfo"];
    EXPECT_EQ(text(token, "symbol"), "USDT");
    EXPECT_EQ(token["decimals"].GetInt(), 6);
    EXPECT_EQ(text(token, "name").rfind("Tether", 0), 0u) << read.body;  // from var/chains.json
    auto parsed_token = domain::evm::parse_address(text(token, "address"));
    ASSERT_TRUE(parsed_token.ok()) << read.body;
    EXPECT_EQ(text(token, "address"), domain::evm::to_checksum(*parsed_token));  // EIP-55 form
    ASSERT_TRUE(data.HasMember("branding") && data["branding"].IsObject()) << read.body;
    EXPECT_EQ(text(data["branding"], "projectName"), "Accounts IT shop");
    EXPECT_EQ(text(data["branding"], "logoUrl"), "https://shop.example/logo.png");
    EXPECT_EQ(text(data["branding"], "accentColor"), "#0A7B5C");

    // Another project's key cannot read it.
    auto [project2, key2] = new_project_with_test_key();
    auto foreign = http("GET", url("/v1/charges/" + id), {{"x-api-key", key2}});
    EXPECT_EQ(foreign.status, 404) << foreign.body;
    EXPECT_EQ(meta_code(foreign), "charge_not_found");
}

TEST_F(Accounts, ExpiredChallengeIsRefused) {
    auto [project, key] = new_project_with_test_key();
    const auto wallet = signer_of(kWalletKey);
    const auto address = domain::evm::to_checksum(wallet.address());
    auto c = admin(
        {"wallet", "challenge", "--project", project, "--address", address, "--ttl-seconds", "1"});
    ASSERT_EQ(c.rc, 0) << c.output;
    std::this_thread::sleep_for(std::chrono::milliseconds(2200));
    auto late = admin({"wallet", "verify", "--project", project, "--address", address,
                       "--signature", personal_sign(wallet, text(c.json, "message"))});
    EXPECT_EQ(late.rc, 1) << late.output;
    EXPECT_EQ(error_code(late), "challenge_expired");
    auto shown = admin({"project", "show", "--project", project});
    EXPECT_TRUE(shown.json["payoutAddress"].IsNull()) << shown.output;
}

TEST_F(Accounts, KeyModesShowListAndRevoke) {
    auto [project, test_key] = new_project_with_test_key();
    const auto wallet = signer_of(kWalletKey);
    ASSERT_EQ(prove_wallet(project, wallet, wallet).rc, 0);
    auto live = admin({"key", "create", "--project", project, "--mode", "live"});
    ASSERT_EQ(live.rc, 0) << live.output;
    const auto live_key = text(live.json, "key");
    ASSERT_EQ(live_key.rfind("dp_live_", 0), 0u) << live.output;
    EXPECT_EQ(live_key.size(), 8u + 64u);

    // Key mode against the chain's network.
    auto live_on_testnet = create(live_key, R"({"chainId":80002,"amount":"1"})");
    EXPECT_EQ(live_on_testnet.status, 400) << live_on_testnet.body;
    EXPECT_EQ(meta_code(live_on_testnet), "key_mode_mismatch");
    auto test_on_mainnet = create(test_key, R"({"chainId":137,"amount":"1"})");
    EXPECT_EQ(test_on_mainnet.status, 400) << test_on_mainnet.body;
    EXPECT_EQ(meta_code(test_on_mainnet), "key_mode_mismatch");

    // A test key can be shown again (derived); a live key cannot.
    auto list = admin({"key", "list", "--project", project});
    ASSERT_EQ(list.rc, 0) << list.output;
    ASSERT_EQ(list.json["keys"].Size(), 2u) << list.output;
    EXPECT_EQ(list.output.find(live_key), std::string::npos) << "key list printed a live secret";
    EXPECT_EQ(list.output.find(test_key), std::string::npos) << "key list printed a secret";
    std::string test_id, live_id;
    for (const auto& k : list.json["keys"].GetArray()) {
        EXPECT_FALSE(k.HasMember("key"));
        (text(k, "mode") == "test" ? test_id : live_id) = text(k, "keyId");
    }
    auto again = admin({"key", "show", "--key-id", test_id});
    ASSERT_EQ(again.rc, 0) << again.output;
    EXPECT_EQ(text(again.json, "key"), test_key);
    auto live_again = admin({"key", "show", "--key-id", live_id});
    EXPECT_EQ(live_again.rc, 1);
    EXPECT_EQ(error_code(live_again), "live_key_not_shown");
    EXPECT_EQ(live_again.output.find(live_key), std::string::npos);

    // Revoke while the key is warm in the API's cache: 401 within the documented 1 s bound.
    const auto status_url = url("/v1/charges/0x" + std::string(64, '0') + "/status");
    ASSERT_EQ(http("GET", status_url, {{"x-api-key", test_key}}).status, 404);
    auto revoked = admin({"key", "revoke", "--key-id", test_id});
    ASSERT_EQ(revoked.rc, 0) << revoked.output;
    EXPECT_TRUE(revoked.json["revokedAt"].IsString()) << revoked.output;
    const auto start = std::chrono::steady_clock::now();
    HttpResponse last;
    wait_until(
        [&] {
            last = http("GET", status_url, {{"x-api-key", test_key}});
            return last.status == 401;
        },
        std::chrono::seconds(3));
    const auto waited = std::chrono::duration_cast<std::chrono::milliseconds>(
        std::chrono::steady_clock::now() - start);
    ASSERT_EQ(last.status, 401) << last.body;
    EXPECT_NE(last.body.find("invalid API key"), std::string::npos) << last.body;
    EXPECT_LE(waited.count(), 1200)
        << "revocation took " << waited.count() << " ms (documented bound 1 s)";
    auto refused = create(test_key, R"({"chainId":80002,"amount":"1"})");
    EXPECT_EQ(refused.status, 401) << refused.body;
    std::cout << "revoked key refused after " << waited.count() << " ms\n";
}

TEST_F(Accounts, RejectionsAreJsonOnStderr) {
    auto bad_plan = admin({"project", "create", "--name", "x", "--plan", "gold"});
    EXPECT_EQ(bad_plan.rc, 1);
    EXPECT_EQ(error_code(bad_plan), "invalid_plan");
    auto bad_color = admin({"project", "create", "--name", "x", "--accent-color", "red"});
    EXPECT_EQ(error_code(bad_color), "invalid_accent_color");
    auto unknown = admin({"project", "show", "--project", "prj_missing"});
    EXPECT_EQ(unknown.rc, 1);
    EXPECT_EQ(error_code(unknown), "project_not_found");
    auto bad_address =
        admin({"wallet", "challenge", "--project", "prj_missing", "--address", "0x1234"});
    EXPECT_EQ(error_code(bad_address), "invalid_address");
    auto missing = admin({"key", "create", "--mode", "test"});
    EXPECT_EQ(missing.rc, 2);
    EXPECT_EQ(error_code(missing), "missing_argument");

    auto chains = admin({"chains"});
    ASSERT_EQ(chains.rc, 0) << chains.output;
    bool testnet = false;
    for (const auto& c : chains.json["chains"].GetArray()) {
        if (c["chainId"].GetUint64() == 80002) {
            testnet = text(c, "network") == "testnet";
            EXPECT_EQ(text(c, "defaultToken"), "USDT");
            EXPECT_GE(c["tokens"].Size(), 1u);
            EXPECT_EQ(c["tokens"][0]["decimals"].GetInt(), 6);
        }
    }
    EXPECT_TRUE(testnet) << chains.output;
}

}  // namespace
}  // namespace duepay::tests
