// The merchant's own project over REST against the real stack (var/dev.env), docs/accounts.md:
// GET/PATCH /v1/project with its audit rows, and the payout wallet proof with EIP-191 signatures
// made here from fixed test keys. The suite (two api processes) is self_serve_suite.hpp.
#include <gtest/gtest.h>

#include <string>

#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "tests/integration/accounts/self_serve_suite.hpp"

namespace duepay::tests {
namespace {

constexpr const char* kThirdKey =
    "0x2222222222222222222222222222222222222222222222222222222222222222";

TEST_F(SelfServe, ProjectSettingsReadPatchAndAudit) {
    auto [project, key, key_id] = new_project();
    auto got = call("GET", on_a("/v1/project"), key);
    ASSERT_EQ(got.status, 200) << got.body;
    auto g = parse(got.body);
    EXPECT_EQ(text(g["data"], "projectId"), project);
    EXPECT_EQ(text(g["data"], "name"), "Self-serve IT");
    EXPECT_EQ(text(g["data"], "logoUrl"), "https://shop.example/logo.png");
    EXPECT_EQ(text(g["data"], "accentColor"), "#0A7B5C");
    EXPECT_EQ(g["data"]["paymentWindowSeconds"].GetInt(), 3600);
    EXPECT_TRUE(g["data"]["payoutAddress"].IsNull()) << got.body;

    auto patched = call("PATCH", on_b("/v1/project"), key,
                        R"({"name":"Café Ünïcode","logoUrl":"https://cdn.example/l.png",)"
                        R"("accentColor":"#112233","paymentWindowSeconds":900})");
    ASSERT_EQ(patched.status, 200) << patched.body;
    EXPECT_EQ(project_field(key, "name"), "Café Ünïcode");
    EXPECT_EQ(project_field(key, "logoUrl"), "https://cdn.example/l.png");
    EXPECT_EQ(project_field(key, "accentColor"), "#112233");
    EXPECT_EQ(project_field(key, "paymentWindowSeconds"), "900");

    auto audit = query(
        "select key_id, changes->'name'->>'from', changes->'name'->>'to', "
        "changes->'paymentWindowSeconds'->>'to', changes ? 'plan' from account_audit "
        "where project_id = $1 and action = 'project.updated'",
        project);
    ASSERT_EQ(audit.size(), 1u);
    EXPECT_EQ(audit[0][0].as<std::string>(), key_id);
    EXPECT_EQ(audit[0][1].as<std::string>(), "Self-serve IT");
    EXPECT_EQ(audit[0][2].as<std::string>(), "Café Ünïcode");
    EXPECT_EQ(audit[0][3].as<std::string>(), "900");
    EXPECT_FALSE(audit[0][4].as<bool>()) << "an unchanged field is not in the audit row";

    struct Bad {
        const char* body;
        const char* code;
    };
    for (const auto& bad : std::initializer_list<Bad>{
             {R"({"name":""})", "invalid_name"},
             {R"({"name":null})", "invalid_name"},
             {R"({"name":"a\tb"})", "invalid_name"},
             {R"({"logoUrl":"http://cdn.example/l.png"})", "invalid_logo_url"},
             {R"j({"logoUrl":"javascript:alert(1)"})j", "invalid_logo_url"},
             {R"({"logoUrl":"https://user@cdn.example/l.png"})", "invalid_logo_url"},
             {R"({"accentColor":"red"})", "invalid_accent_color"},
             {R"({"accentColor":"#12345g"})", "invalid_accent_color"},
             {R"({"paymentWindowSeconds":0})", "invalid_payment_window"},
             {R"({"paymentWindowSeconds":86401})", "invalid_payment_window"},
             {R"({"paymentWindowSeconds":"60"})", "invalid_payment_window"},
             {R"({"payoutAddress":"0x0000000000000000000000000000000000000001"})",
              "read_only_field"},
             {R"({"plan":"scale"})", "read_only_field"},
             {R"({"nmae":"typo"})", "unknown_field"},
             {R"({"name":"ok","colour":"#000000"})", "unknown_field"},
             {"not json", "invalid_json"},
         }) {
        auto r = call("PATCH", on_a("/v1/project"), key, bad.body);
        EXPECT_EQ(r.status, 400) << bad.body << " " << r.body;
        EXPECT_EQ(meta_code(r), bad.code) << bad.body;
    }
    auto long_name =
        call("PATCH", on_a("/v1/project"), key, R"({"name":")" + std::string(121, 'n') + "\"}");
    EXPECT_EQ(meta_code(long_name), "invalid_name");
    // None of them changed anything.
    EXPECT_EQ(project_field(key, "name"), "Café Ünïcode");
    EXPECT_EQ(project_field(key, "paymentWindowSeconds"), "900");
    EXPECT_EQ(query("select count(*) from account_audit where project_id = $1 and action not in "
                    "('project.created', 'api_key.created')",
                    project)[0][0]
                  .as<int>(),
              1);

    // Creating the project and its key was the operator's, audited as such.
    auto setup = query(
        "select action, actor_kind from account_audit where project_id = $1 and action in "
        "('project.created', 'api_key.created') order by id",
        project);
    ASSERT_GE(setup.size(), 2u);
    EXPECT_EQ(setup[0][0].as<std::string>(), "project.created");
    EXPECT_EQ(setup[0][1].as<std::string>(), "operator");
    EXPECT_EQ(setup[1][0].as<std::string>(), "api_key.created");
    EXPECT_EQ(setup[1][1].as<std::string>(), "operator");

    // The operator's change (duepay admin) is audited too, without a key.
    auto by_admin = admin({"project", "update", "--project", project, "--window-seconds", "600"});
    ASSERT_EQ(by_admin.rc, 0) << by_admin.output;
    auto ops = query(
        "select key_id, (changes->'paymentWindowSeconds'->>'from')::int, "
        "(changes->'paymentWindowSeconds'->>'to')::int from account_audit where project_id = $1 "
        "and action = 'project.updated' order by id desc limit 1",
        project);
    ASSERT_EQ(ops.size(), 1u);
    EXPECT_TRUE(ops[0][0].is_null());
    EXPECT_EQ(ops[0][1].as<int>(), 900);
    EXPECT_EQ(ops[0][2].as<int>(), 600);
    EXPECT_EQ(project_field(key, "paymentWindowSeconds"), "600");

    // null clears the logo and the colour.
    auto cleared =
        call("PATCH", on_a("/v1/project"), key, R"({"logoUrl":null,"accentColor":null})");
    ASSERT_EQ(cleared.status, 200) << cleared.body;
    EXPECT_EQ(project_field(key, "logoUrl"), "null");
    EXPECT_EQ(project_field(key, "accentColor"), "null");
    auto put = call("PUT", on_a("/v1/project"), key, "{}");
    EXPECT_EQ(put.status, 405);
    EXPECT_EQ(put.headers["allow"], "GET, PATCH");
}

TEST_F(SelfServe, PayoutWalletSetThenChangingItNeedsTheCurrentWallet) {
    auto [project, key, key_id] = new_project();
    const auto wallet = signer_of(kWalletKey);
    const auto other = signer_of(kOtherKey);
    const auto third = signer_of(kThirdKey);
    const auto wallet_address = domain::evm::to_checksum(wallet.address());
    const auto other_address = domain::evm::to_checksum(other.address());
    const auto challenge_url = on_a("/v1/payout-wallet/challenge");
    const auto verify_url = on_b("/v1/payout-wallet/verify");
    auto lower = wallet_address;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(static_cast<unsigned char>(ch)));

    auto c1 = call("POST", challenge_url, key, R"({"address":")" + lower + "\"}");
    ASSERT_EQ(c1.status, 201) << c1.body;
    auto c1d = parse(c1.body);
    const auto message = text(c1d["data"], "message");
    EXPECT_EQ(text(c1d["data"], "address"), wallet_address);
    EXPECT_NE(message.find("Project: " + project), std::string::npos) << message;
    EXPECT_NE(message.find("Address: " + wallet_address), std::string::npos) << message;
    EXPECT_NE(message.find(text(c1d["data"], "nonce")), std::string::npos) << message;
    EXPECT_FALSE(c1d["data"]["currentWalletSignatureRequired"].GetBool());

    // Signed by another wallet: 422, nothing set, the challenge stays usable.
    auto wrong = call("POST", verify_url, key,
                      R"({"address":")" + wallet_address + R"(","signature":")" +
                          personal_sign(other, message) + "\"}");
    EXPECT_EQ(wrong.status, 422) << wrong.body;
    EXPECT_EQ(meta_code(wrong), "signer_mismatch");
    EXPECT_EQ(project_field(key, "payoutAddress"), "null");

    const std::string first_proof = R"({"address":")" + wallet_address + R"(","signature":")" +
                                    personal_sign(wallet, message) + "\"}";
    auto ok = call("POST", verify_url, key, first_proof);
    ASSERT_EQ(ok.status, 200) << ok.body;
    EXPECT_EQ(text(parse(ok.body)["data"], "payoutAddress"), wallet_address);
    EXPECT_EQ(project_field(key, "payoutAddress"), wallet_address);
    auto reused = call("POST", verify_url, key, first_proof);
    EXPECT_EQ(reused.status, 409) << reused.body;
    EXPECT_EQ(meta_code(reused), "challenge_used");

    // Changing it: the new wallet's signature alone (what a stolen API key could get) is refused.
    auto c2 = call("POST", challenge_url, key, R"({"address":")" + other_address + "\"}");
    ASSERT_EQ(c2.status, 201) << c2.body;
    auto c2d = parse(c2.body);
    EXPECT_TRUE(c2d["data"]["currentWalletSignatureRequired"].GetBool()) << c2.body;
    EXPECT_EQ(text(c2d["data"], "payoutAddress"), wallet_address);
    const auto message2 = text(c2d["data"], "message");
    const std::string by_new = R"({"address":")" + other_address + R"(","signature":")" +
                               personal_sign(other, message2) + "\"";
    auto alone = call("POST", verify_url, key, by_new + "}");
    EXPECT_EQ(alone.status, 422) << alone.body;
    EXPECT_EQ(meta_code(alone), "current_wallet_signature_required");
    auto by_third =
        call("POST", verify_url, key,
             by_new + R"(,"currentWalletSignature":")" + personal_sign(third, message2) + "\"}");
    EXPECT_EQ(by_third.status, 422) << by_third.body;
    EXPECT_EQ(meta_code(by_third), "current_wallet_signer_mismatch");
    EXPECT_EQ(project_field(key, "payoutAddress"), wallet_address);

    auto changed =
        call("POST", verify_url, key,
             by_new + R"(,"currentWalletSignature":")" + personal_sign(wallet, message2) + "\"}");
    ASSERT_EQ(changed.status, 200) << changed.body;
    EXPECT_EQ(project_field(key, "payoutAddress"), other_address);

    auto audit = query(
        "select key_id, changes->'payoutAddress'->>'from', changes->'payoutAddress'->>'to', "
        "(changes->>'currentWalletSigned')::boolean from account_audit where project_id = $1 "
        "and action = 'payout_wallet.verified' order by id",
        project);
    ASSERT_EQ(audit.size(), 2u);
    EXPECT_EQ(audit[0][0].as<std::string>(), key_id);
    EXPECT_TRUE(audit[0][1].is_null());
    EXPECT_EQ(audit[0][2].as<std::string>(), wallet_address);
    EXPECT_FALSE(audit[0][3].as<bool>());
    EXPECT_EQ(audit[1][1].as<std::string>(), wallet_address);
    EXPECT_EQ(audit[1][2].as<std::string>(), other_address);
    EXPECT_TRUE(audit[1][3].as<bool>());

    // The operator's recovery path: duepay admin replaces the wallet with the new wallet's
    // signature alone (ADR 0171), audited without a key.
    auto oc = admin({"wallet", "challenge", "--project", project, "--address", wallet_address});
    ASSERT_EQ(oc.rc, 0) << oc.output;
    auto ov = admin({"wallet", "verify", "--project", project, "--address", wallet_address,
                     "--signature", personal_sign(wallet, text(oc.json, "message"))});
    ASSERT_EQ(ov.rc, 0) << ov.output;
    EXPECT_EQ(project_field(key, "payoutAddress"), wallet_address);
    auto by_ops = query(
        "select key_id, changes->'payoutAddress'->>'to' from account_audit where project_id = $1 "
        "and action = 'payout_wallet.verified' order by id desc limit 1",
        project);
    ASSERT_EQ(by_ops.size(), 1u);
    EXPECT_TRUE(by_ops[0][0].is_null());
    EXPECT_EQ(by_ops[0][1].as<std::string>(), wallet_address);

    // The API's write path uses the current wallet (within the 1 s key cache bound).
    HttpResponse created;
    wait_until(
        [&] {
            created =
                call("POST", on_a("/v1/invoices"), key,
                     R"({"chainId":80002,"amount":"1000","merchant":")" + wallet_address + "\"}");
            return created.status == 201;
        },
        3s);
    EXPECT_EQ(created.status, 201) << created.body;
}

TEST_F(SelfServe, PayoutWalletRejections) {
    auto [project, key, key_id] = new_project();
    const auto wallet = signer_of(kWalletKey);
    const auto address = domain::evm::to_checksum(wallet.address());
    auto bad_checksum = address;  // one letter's case flipped
    const auto letter = bad_checksum.find_first_of("abcdefABCDEF", 2);
    bad_checksum[letter] = std::isupper(static_cast<unsigned char>(bad_checksum[letter]))
                               ? static_cast<char>(std::tolower(bad_checksum[letter]))
                               : static_cast<char>(std::toupper(bad_checksum[letter]));
    struct Bad {
        std::string path;
        std::string body;
        long status;
        const char* code;
    };
    const std::string sig = "0x" + std::string(128, '1') + "1b";  // well-formed, v = 27
    for (const auto& bad : std::vector<Bad>{
             {"challenge", "{}", 400, "invalid_address"},
             {"challenge", R"({"address":"0x1234"})", 400, "invalid_address"},
             {"challenge", R"({"address":")" + bad_checksum + "\"}", 400,
              "invalid_address_checksum"},
             {"challenge", R"({"address":")" + address + R"(","ttl":5})", 400, "unknown_field"},
             {"verify", R"({"address":")" + address + R"(","signature":"0xzz"})", 400,
              "invalid_signature"},
             {"verify", R"({"address":")" + address + "\"}", 400, "invalid_signature"},
             {"verify", R"({"address":")" + address + R"(","signature":")" + sig + "\"}", 409,
              "challenge_not_found"},
             {"verify",
              R"({"address":")" + address + R"(","signature":")" + sig + R"(","nonce":5})", 400,
              "invalid_nonce"},
             {"verify", "[]", 400, "invalid_json"},
         }) {
        auto r = call("POST", on_a("/v1/payout-wallet/" + bad.path), key, bad.body);
        EXPECT_EQ(r.status, bad.status) << bad.body << " " << r.body;
        EXPECT_EQ(meta_code(r), bad.code) << bad.body;
    }
    auto unknown = call("POST", on_a("/v1/payout-wallet/remove"), key, "{}");
    EXPECT_EQ(unknown.status, 404);
    auto get = call("GET", on_a("/v1/payout-wallet/challenge"), key);
    EXPECT_EQ(get.status, 405);
    EXPECT_EQ(project_field(key, "payoutAddress"), "null");
    EXPECT_EQ(query("select count(*) from account_audit where project_id = $1 and action not in "
                    "('project.created', 'api_key.created')",
                    project)[0][0]
                  .as<int>(),
              0);
}

}  // namespace
}  // namespace duepay::tests
