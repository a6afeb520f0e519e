// The merchant dashboard's routes on the HTTP pipeline (api/dashboard), over the in-memory store
// (tests/doubles/dashboard_store.hpp) with real EIP-191 signatures (infra/crypto): sign-in with
// Ethereum and each refusal, session cookies, idle and absolute ends, sign-out, CSRF and origin
// checks, the role x action table, and a non-member's 404 on every project route.
#include <gtest/gtest.h>

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/dashboard/dashboard_messages.hpp"
#include "api/dashboard/dashboard_routes.hpp"
#include "api/dashboard/session_auth.hpp"
#include "api/http/charge_command.hpp"
#include "api/http/reports_api.hpp"
#include "domain/accounts/siwe.hpp"
#include "domain/charge/decide.hpp"
#include "domain/events/event.hpp"
#include "domain/events/event_json.hpp"
#include "domain/evm/address.hpp"
#include "domain/hex.hpp"
#include "infra/crypto/secp256k1_signer.hpp"
#include "tests/doubles/api_ports.hpp"
#include "tests/doubles/dashboard_store.hpp"
#include "tests/doubles/project_stats_double.hpp"
#include "tests/doubles/settlement_reports.hpp"

namespace duepay::api::dashboard {
namespace {

namespace siwe = domain::accounts::siwe;
using ports::MemberRole;

// Two anvil dev keys and a third: an owner, a teammate, a stranger.
const char* kOwnerKey = "0xac0974bec39a17e36ba4a6b4d238ff944bacb478cbed5efcae784d7bf4f2ff80";
const char* kMateKey = "0x59c6995e998f97a5a0044966f0945389dc9e86dae88c7a8412f4603b6b78690d";
const char* kStrangerKey = "0x5de4111afa1a4b94908f83103eb1f1706367c2e68ca870fc3fb9a804cdab365a";
const std::string kOrigin = "http://127.0.0.1:8082";

struct User {
    std::string address;  // EIP-55
    std::string cookie;   // "duepay_session=..."
    std::string csrf;
};

class Dashboard : public ::testing::Test {
  protected:
    testing::DashboardStoreDouble store;
    doubles::FakeLister lister;
    doubles::FakeReader reader;
    struct History final : ports::ChargeHistory {
        std::vector<std::string> events(const std::string& id) override { return of[id]; }
        std::map<std::string, std::vector<std::string>> of;  // encoded events by invoice id
    } history;
    doubles::ProjectStatsDouble stats;
    doubles::FakeSettlementReports reports;
    doubles::FakeLog log;
    DashboardSessions sessions{store, SessionSettings{kOrigin, ports::SessionLimits{1800, 43200}}};
    DashboardRoutes routes{deps()};
    std::unique_ptr<Pipeline> pipeline;

    DashboardDeps deps() {
        DashboardDeps d;
        d.store = &store;
        d.sessions = &sessions;
        d.charges = &lister;
        d.charge_reader = &reader;
        d.history = &history;
        d.stats = &stats;
        d.reports = &reports;
        d.log = &log;
        d.recover = [](const domain::Bytes32& digest, const domain::evm::Signature& s) {
            return infra::crypto::recover_signer(digest, s);
        };
        d.now_ms = [this] { return store.now_s * 1000; };
        d.chain_ids = {domain::ChainId{1}, domain::ChainId{31337}};
        d.explorers = {{80002, "https://amoy.example"}};  // 31337 (anvil) has none
        return d;
    }

    void SetUp() override {
        RouteTable t;
        routes.add_routes(t);
        pipeline = std::make_unique<Pipeline>(std::move(t), nullptr, dashboard_pipeline_settings(),
                                              &sessions);
    }

    ApiResponse call(const std::string& method, const std::string& path_and_query,
                     std::map<std::string, std::string> headers = {}, std::string body = {}) {
        ApiRequest r;
        r.method = method;
        const auto q = path_and_query.find('?');
        r.path = path_and_query.substr(0, q);
        if (q != std::string::npos) r.query = path_and_query.substr(q + 1);
        r.headers = std::move(headers);
        r.body = std::move(body);
        r.request_id = "req_test";
        ApiResponse out;
        int answers = 0;
        pipeline->handle(r, [&](ApiResponse a) {
            out = std::move(a);
            ++answers;
        });
        EXPECT_EQ(answers, 1);
        return out;
    }

    // A form POST from our own page, signed in as `u` (csrf: the session's unless given).
    ApiResponse post_form(const User& u, const std::string& path, std::string body,
                          std::optional<std::string> csrf = std::nullopt,
                          std::string origin = kOrigin) {
        if (csrf.value_or(u.csrf) != "")
            body += (body.empty() ? "" : "&") + ("csrf=" + csrf.value_or(u.csrf));
        std::map<std::string, std::string> h{{"cookie", u.cookie},
                                             {"content-type", "application/x-www-form-urlencoded"}};
        if (!origin.empty()) h["origin"] = origin;
        return call("POST", path, h, body);
    }
    ApiResponse get(const User& u, const std::string& path) {
        return call("GET", path, {{"cookie", u.cookie}});
    }

    static std::string signature_hex(const char* key, const domain::Bytes32& digest) {
        auto signer = infra::crypto::Secp256k1Signer::from_hex(key);
        return domain::to_hex(signer->sign_digest(digest).bytes);
    }
    static std::string address_of(const char* key) {
        return domain::evm::to_checksum(infra::crypto::Secp256k1Signer::from_hex(key)->address());
    }

    // The message the page would get for `key`'s address from GET /auth/siwe/nonce.
    siwe::Message issued_message(const char* key) {
        auto r = call("GET", "/auth/siwe/nonce?address=" + address_of(key) + "&chainId=31337");
        EXPECT_EQ(r.status, 200) << r.body;
        const auto at = r.body.find("\"message\":\"");
        std::string text = r.body.substr(at + 11);
        text = text.substr(0, text.find("\"}"));
        std::string unescaped;
        for (std::size_t i = 0; i < text.size(); ++i) {
            if (text[i] == '\\' && i + 1 < text.size() && text[i + 1] == 'n') {
                unescaped += '\n';
                ++i;
            } else {
                unescaped += text[i];
            }
        }
        auto m = siwe::parse(unescaped);
        EXPECT_TRUE(m.ok()) << unescaped;
        return *m;
    }

    ApiResponse post_siwe(const siwe::Message& m, const std::string& signature,
                          std::string origin = kOrigin) {
        std::string escaped;
        for (char c : siwe::format(m))
            escaped += c == '\n' ? std::string("\\n") : std::string(1, c);
        std::map<std::string, std::string> h{{"content-type", "application/json"}};
        if (!origin.empty()) h["origin"] = origin;
        return call("POST", "/auth/siwe", h,
                    R"({"message":")" + escaped + R"(","signature":")" + signature + R"("})");
    }

    User sign_in(const char* key) {
        const auto m = issued_message(key);
        auto r = post_siwe(m, signature_hex(key, siwe::signing_hash(m)));
        EXPECT_EQ(r.status, 200) << r.body;
        const auto& set = r.headers["set-cookie"];
        User u;
        u.address = address_of(key);
        u.cookie = set.substr(0, set.find(';'));
        u.csrf = store.sessions.back().s.csrf;
        return u;
    }

    // charge.created of a transfer-rail charge of `amount` units of a 6-decimal USDC (0x33..33),
    // paid to 0x44..44, invoice id `fill` repeated, on `chain`.
    static domain::events::Event created_event(const std::string& project, std::uint8_t fill,
                                               std::uint64_t chain, std::uint64_t amount) {
        namespace ev = domain::events;
        ev::Event created;
        created.id = "c" + std::to_string(fill);
        created.invoice_id.bytes.fill(fill);
        created.project_id = project;
        created.chain_id = domain::ChainId{chain};
        created.occurred_at = "2026-11-21T22:00:00.000Z";
        ev::ChargeCreated cd;
        cd.amount = domain::TokenAmount{amount};
        cd.token.bytes.fill(0x33);
        cd.token_symbol = "USDC";
        cd.token_decimals = 6;
        cd.payment_mode = ev::PaymentMode::transfer;
        cd.merchant.bytes.fill(0x44);
        cd.deposit_address = domain::Address{};
        created.data = cd;
        return created;
    }

    static std::string code_of(const ApiResponse& r) {
        const auto at = r.body.find(R"("code":")");
        return at == std::string::npos ? ""
                                       : r.body.substr(at + 8, r.body.find('"', at + 8) - at - 8);
    }
};

TEST_F(Dashboard, SignInOpensASessionWithAStrictCookie) {
    const auto m = issued_message(kOwnerKey);
    EXPECT_EQ(m.domain, "127.0.0.1:8082");
    EXPECT_EQ(m.uri, kOrigin);
    EXPECT_EQ(m.chain_id, domain::ChainId{31337});
    ASSERT_TRUE(m.expiration_time.has_value());
    auto r = post_siwe(m, signature_hex(kOwnerKey, siwe::signing_hash(m)));
    ASSERT_EQ(r.status, 200) << r.body;
    const auto& cookie = r.headers["set-cookie"];
    EXPECT_EQ(cookie.rfind("duepay_session=", 0), 0U);
    EXPECT_EQ(cookie.substr(15, cookie.find(';') - 15).size(), 64U);  // 256 random bits as hex
    EXPECT_NE(cookie.find("; HttpOnly"), std::string::npos);
    EXPECT_NE(cookie.find("; SameSite=Lax"), std::string::npos);
    EXPECT_NE(cookie.find("; Path=/"), std::string::npos);
    EXPECT_EQ(cookie.find("Secure"), std::string::npos);  // plain http on loopback only
    ASSERT_EQ(store.sessions.size(), 1U);
    EXPECT_EQ(store.sessions[0].s.address, address_of(kOwnerKey));
    // Only the token's hash is kept.
    EXPECT_EQ(domain::to_hex(store.sessions[0].token).find(cookie.substr(15, 64)),
              std::string::npos);
}

TEST(SessionCookies, SecureUnlessPlainHttpOnLoopback) {
    EXPECT_FALSE(secure_cookies("http://127.0.0.1:8082"));
    EXPECT_FALSE(secure_cookies("http://localhost:8082"));
    EXPECT_FALSE(secure_cookies("http://[::1]:8082"));
    EXPECT_TRUE(secure_cookies("https://127.0.0.1:8082"));
    EXPECT_TRUE(secure_cookies("http://dash.example.com"));
    EXPECT_TRUE(secure_cookies("https://dash.example.com"));
    EXPECT_EQ(cookie_value("a=1; duepay_session=xyz; b=2", "duepay_session"), "xyz");
    EXPECT_EQ(cookie_value("duepay_session_x=1", "duepay_session"), std::nullopt);
}

TEST_F(Dashboard, EachRefusedSignInOpensNothing) {
    // A reused nonce.
    const auto m = issued_message(kOwnerKey);
    const auto good = signature_hex(kOwnerKey, siwe::signing_hash(m));
    ASSERT_EQ(post_siwe(m, good).status, 200);
    auto again = post_siwe(m, good);
    EXPECT_EQ(again.status, 401);
    EXPECT_EQ(code_of(again), "siwe_nonce_used");
    const auto opened = store.sessions.size();

    // A bad signature: signed by another key.
    auto m2 = issued_message(kOwnerKey);
    auto bad = post_siwe(m2, signature_hex(kStrangerKey, siwe::signing_hash(m2)));
    EXPECT_EQ(bad.status, 401);
    EXPECT_EQ(code_of(bad), "siwe_invalid_signature");
    // ... which left its nonce usable.
    EXPECT_EQ(post_siwe(m2, signature_hex(kOwnerKey, siwe::signing_hash(m2))).status, 200);

    // A message for another domain.
    auto m3 = issued_message(kOwnerKey);
    m3.domain = "evil.example";
    auto wrong = post_siwe(m3, signature_hex(kOwnerKey, siwe::signing_hash(m3)));
    EXPECT_EQ(wrong.status, 401);
    EXPECT_EQ(code_of(wrong), "siwe_wrong_domain");

    // An expired message.
    auto m4 = issued_message(kOwnerKey);
    store.now_s += DashboardRoutes::kNonceTtlSeconds + 1;
    auto expired = post_siwe(m4, signature_hex(kOwnerKey, siwe::signing_hash(m4)));
    EXPECT_EQ(expired.status, 401);
    EXPECT_EQ(code_of(expired), "siwe_expired");

    // A nonce we never issued.
    auto m5 = issued_message(kOwnerKey);
    m5.nonce = "abcdef0123456789";
    auto unknown = post_siwe(m5, signature_hex(kOwnerKey, siwe::signing_hash(m5)));
    EXPECT_EQ(unknown.status, 401);
    EXPECT_EQ(code_of(unknown), "siwe_nonce_unknown");

    // Not a message at all, and a cross-site post.
    auto garbage = post_siwe(m5, "0x12");
    EXPECT_EQ(garbage.status, 400);
    auto m6 = issued_message(kOwnerKey);
    auto cross =
        post_siwe(m6, signature_hex(kOwnerKey, siwe::signing_hash(m6)), "https://evil.example");
    EXPECT_EQ(cross.status, 403);
    EXPECT_EQ(code_of(cross), "cross_site_request");

    EXPECT_EQ(store.sessions.size(), opened + 1);  // only m2's good retry opened one
}

TEST_F(Dashboard, PagesNeedASessionAndEndWithIt) {
    auto anonymous = call("GET", "/projects");
    EXPECT_EQ(anonymous.status, 303);
    EXPECT_EQ(anonymous.headers["location"], "/sign-in");
    auto u = sign_in(kOwnerKey);
    auto page = get(u, "/projects");
    ASSERT_EQ(page.status, 200);
    EXPECT_NE(page.body.find(R"(<meta name="csrf-token" content=")" + u.csrf + "\""),
              std::string::npos);
    EXPECT_NE(page.body.find("data-test=\"create-project\""), std::string::npos);
    EXPECT_NE(page.headers["content-security-policy"].find("script-src 'self'"), std::string::npos);
    EXPECT_EQ(page.headers["x-frame-options"], "DENY");

    // Idle: 30 minutes without a request end it.
    store.now_s += 1799;
    EXPECT_EQ(get(u, "/projects").status, 200);
    store.now_s += 1800;
    EXPECT_EQ(get(u, "/projects").status, 303);

    // Absolute: 12 h even with activity.
    auto v = sign_in(kOwnerKey);
    for (int i = 0; i < 25; ++i) {  // 42,500 s, never idle for 30 minutes
        store.now_s += 1700;
        ASSERT_EQ(get(v, "/projects").status, 200) << i;
    }
    store.now_s += 1000;  // 43,500 s since sign-in, 1,000 s idle
    EXPECT_EQ(get(v, "/projects").status, 303);

    // Sign-out ends it on the server: the old cookie no longer works.
    auto w = sign_in(kOwnerKey);
    auto out = post_form(w, "/sign-out", "");
    EXPECT_EQ(out.status, 303);
    EXPECT_NE(out.headers["set-cookie"].find("Max-Age=0"), std::string::npos);
    EXPECT_EQ(get(w, "/projects").status, 303);

    // Sign out everywhere ends every session of the wallet, and only those.
    auto a = sign_in(kOwnerKey);
    auto b = sign_in(kOwnerKey);
    auto mate = sign_in(kMateKey);
    EXPECT_EQ(post_form(a, "/sign-out-everywhere", "").status, 303);
    EXPECT_EQ(get(b, "/projects").status, 303);
    EXPECT_EQ(get(mate, "/projects").status, 200);
}

TEST_F(Dashboard, CsrfAndOriginGuardEveryChange) {
    auto u = sign_in(kOwnerKey);
    // No token, a wrong token, a cross-site origin, a cross-site fetch: 403, nothing created.
    auto none = post_form(u, "/projects", "name=Shop", std::string());
    EXPECT_EQ(none.status, 403);
    EXPECT_EQ(code_of(none), "invalid_csrf_token");
    EXPECT_EQ(post_form(u, "/projects", "name=Shop", std::string(64, 'f')).status, 403);
    auto cross = post_form(u, "/projects", "name=Shop", std::nullopt, "https://evil.example");
    EXPECT_EQ(cross.status, 403);
    EXPECT_EQ(code_of(cross), "cross_site_request");
    auto site = call("POST", "/projects",
                     {{"cookie", u.cookie},
                      {"content-type", "application/x-www-form-urlencoded"},
                      {"sec-fetch-site", "cross-site"}},
                     "name=Shop&csrf=" + u.csrf);
    EXPECT_EQ(site.status, 403);
    EXPECT_TRUE(store.projects.empty());
    // The header form of the token works as the field does.
    auto ok = call("POST", "/projects",
                   {{"cookie", u.cookie},
                    {"content-type", "application/x-www-form-urlencoded"},
                    {"origin", kOrigin},
                    {"x-csrf-token", u.csrf}},
                   "name=Shop");
    EXPECT_EQ(ok.status, 303);
    EXPECT_EQ(store.projects.size(), 1U);
}

TEST_F(Dashboard, NewMerchantCreatesAProjectAndATestKeyShownAgain) {
    auto u = sign_in(kOwnerKey);
    auto created = post_form(u, "/projects", "name=Coffee+Shop");
    ASSERT_EQ(created.status, 303);
    const auto home = created.headers["location"];
    ASSERT_EQ(home.rfind("/p/prj_", 0), 0U);
    auto page = get(u, home);
    ASSERT_EQ(page.status, 200);
    EXPECT_NE(page.body.find("Coffee Shop"), std::string::npos);

    auto key = post_form(u, home + "/keys", "mode=test");
    ASSERT_EQ(key.status, 201) << key.body;
    ASSERT_EQ(store.key_rows.size(), 1U);
    const auto& secret = store.key_rows[0].secret;
    EXPECT_NE(key.body.find("data-test=\"new-key\">" + secret + "<"), std::string::npos);
    // The list never shows the secret; the reveal form does, for a test key.
    auto list = get(u, home + "/keys");
    EXPECT_EQ(list.body.find(secret), std::string::npos);
    EXPECT_NE(list.body.find("data-test=\"reveal-key\""), std::string::npos);
    auto shown = post_form(u, home + "/keys/" + store.key_rows[0].summary.id + "/reveal", "");
    ASSERT_EQ(shown.status, 200);
    EXPECT_NE(shown.body.find("data-test=\"revealed-key\">" + secret + "<"), std::string::npos);

    // A live key is shown once and never again.
    auto live = post_form(u, home + "/keys", "mode=live");
    ASSERT_EQ(live.status, 201);
    const auto live_id = store.key_rows[1].summary.id;
    auto reveal_live = post_form(u, home + "/keys/" + live_id + "/reveal", "");
    EXPECT_EQ(reveal_live.status, 404);
    EXPECT_EQ(reveal_live.body.find(store.key_rows[1].secret), std::string::npos);

    // Every change is in the audit log with the wallet and the session.
    auto audit = get(u, home + "/audit");
    EXPECT_NE(audit.body.find("api_key.revealed"), std::string::npos);
    EXPECT_NE(audit.body.find(u.address), std::string::npos);
}

// What each role may do, on the server: the expected status of each action (a refusal changes
// nothing: the audit log does not grow).
TEST_F(Dashboard, RoleTableIsEnforcedOnEveryRoute) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Team").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    auto mate = sign_in(kMateKey);
    const std::string wallet_body = R"({"address":")" + mate.address + R"("})";

    struct Action {
        const char* name;
        std::function<ApiResponse()> run;
        // allowed for viewer, developer, admin
        bool viewer, developer, admin;
    };
    std::vector<Action> actions = {
        {"read keys", [&] { return get(mate, base + "/keys"); }, true, true, true},
        {"read audit", [&] { return get(mate, base + "/audit"); }, true, true, true},
        {"create key", [&] { return post_form(mate, base + "/keys", "mode=test"); }, false, true,
         true},
        {"settings", [&] { return post_form(mate, base + "/settings", "name=Renamed"); }, false,
         false, true},
        {"add member",
         [&] {
             return post_form(mate, base + "/members",
                              "address=" + address_of(kStrangerKey) + "&role=viewer");
         },
         false, false, true},
        {"payout challenge",
         [&] {
             return call("POST", base + "/wallet/challenge",
                         {{"cookie", mate.cookie},
                          {"content-type", "application/json"},
                          {"origin", kOrigin},
                          {"x-csrf-token", mate.csrf}},
                         wallet_body);
         },
         false, false, false},
    };
    for (auto role : {MemberRole::viewer, MemberRole::developer, MemberRole::admin}) {
        ASSERT_TRUE(
            store
                .put_member(ports::ProjectId{project}, mate.address, role, {owner.address, "ses_x"})
                .ok());
        for (const auto& a : actions) {
            const bool allowed = role == MemberRole::viewer      ? a.viewer
                                 : role == MemberRole::developer ? a.developer
                                                                 : a.admin;
            const auto before = store.audit_log.size();
            auto r = a.run();
            const auto who = std::string(domain::accounts::role_name(role)) + " " + a.name;
            if (allowed) {
                EXPECT_LT(r.status, 400) << who << ": " << r.body.substr(0, 200);
            } else {
                EXPECT_EQ(r.status, 403) << who;
                EXPECT_EQ(store.audit_log.size(), before) << who << " changed something";
            }
        }
        // Members cannot be removed from their role by lower roles; restore for the next round.
        store.project_members[project].resize(2);
    }
    // The owner alone may change the payout wallet.
    auto owner_challenge = call("POST", base + "/wallet/challenge",
                                {{"cookie", owner.cookie},
                                 {"content-type", "application/json"},
                                 {"origin", kOrigin},
                                 {"x-csrf-token", owner.csrf}},
                                R"({"address":")" + owner.address + R"("})");
    EXPECT_EQ(owner_challenge.status, 201) << owner_challenge.body;
    // The owner's role cannot be changed by a member form.
    auto demote = post_form(owner, base + "/members", "address=" + owner.address + "&role=viewer");
    EXPECT_EQ(demote.status, 400);
    EXPECT_EQ(store.membership(ports::ProjectId{project}, owner.address)->role, MemberRole::owner);
}

TEST_F(Dashboard, NonMemberGetsNotFoundOnEveryProjectRoute) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Private").status, 303);
    const auto base = "/p/" + store.projects.begin()->first;
    ASSERT_TRUE(store
                    .create_key(ports::ProjectId{store.projects.begin()->first}, ports::Mode::test,
                                {owner.address, "s"})
                    .secret.size() > 0);
    const auto key_id = store.key_rows[0].summary.id;
    auto stranger = sign_in(kStrangerKey);
    const auto before = store.audit_log.size();
    for (const auto& path : {base, base + "/keys", base + "/members", base + "/wallet",
                             base + "/settings", base + "/audit", base + "/reports",
                             base + "/reports/settlements.csv?from=2026-11-01&to=2026-11-02"}) {
        EXPECT_EQ(get(stranger, path).status, 404) << path;
    }
    for (const auto& path :
         {base + "/keys", base + "/keys/" + key_id + "/reveal",
          base + "/keys/" + key_id + "/revoke", base + "/keys/" + key_id + "/roll",
          base + "/members", base + "/settings"}) {
        auto r = post_form(stranger, path,
                           "mode=test&name=x&address=" + stranger.address + "&role=admin");
        EXPECT_EQ(r.status, 404) << path;
        EXPECT_EQ(r.body.find(store.key_rows[0].secret), std::string::npos);
    }
    EXPECT_EQ(store.audit_log.size(), before);
    // An unknown project reads the same as someone else's.
    EXPECT_EQ(get(stranger, "/p/prj_nope").status, 404);
}

TEST(DashboardWords, LookupByKeyAnswersAsTheTableReadsAndRefusesAnUnknownKey) {
    EXPECT_EQ(tr(Lang::en, "title"), "duepay dashboard");  // the table's first entry
    EXPECT_EQ(tr(Lang::en, "resolve"), "Resolve");
    EXPECT_EQ(tr(Lang::th, "resolve"), "ทำเครื่องหมายว่าดำเนินการแล้ว");
    EXPECT_EQ(tr(Lang::en, "refund_pending_amount"), "known once verified");  // its last
    // A key the table holds twice answers its first entry, as a scan from the top did.
    EXPECT_EQ(tr(Lang::en, "refunded"), "Refunded (refunds)");
    EXPECT_THROW(tr(Lang::en, "no_such_word"), std::out_of_range);
    EXPECT_THROW(tr(Lang::th, ""), std::out_of_range);
}

TEST_F(Dashboard, EveryPageRendersInEnglishAndThai) {
    for (std::size_t i = 0; i < word_count(); ++i) {
        EXPECT_FALSE(tr(Lang::en, word_key(i)).empty()) << word_key(i);
        EXPECT_FALSE(tr(Lang::th, word_key(i)).empty()) << word_key(i);
    }
    auto u = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(u, "/projects", "name=Thai+Shop").status, 303);
    const auto base = "/p/" + store.projects.begin()->first;
    for (const char* lang : {"en", "th"}) {
        auto set = call("GET", std::string("/lang/") + lang + "?next=" + base);
        ASSERT_EQ(set.status, 303);
        EXPECT_EQ(set.headers["location"], base);
        const auto lang_cookie =
            set.headers["set-cookie"].substr(0, set.headers["set-cookie"].find(';'));
        for (const auto& path :
             {std::string("/projects"), base, base + "/keys", base + "/members", base + "/wallet",
              base + "/settings", base + "/audit", base + "/reports", base + "/exceptions"}) {
            auto r = call("GET", path, {{"cookie", u.cookie + "; " + lang_cookie}});
            EXPECT_EQ(r.status, 200) << path;
            EXPECT_NE(r.body.find(std::string("<html lang=\"") + lang + "\""), std::string::npos)
                << path;
            EXPECT_EQ(r.headers["content-language"], lang);
        }
    }
    auto thai = call("GET", "/sign-in", {{"accept-language", "th-TH,th;q=0.9"}});
    EXPECT_NE(thai.body.find("เข้าสู่ระบบ"), std::string::npos);
    // A redirect never leaves our origin, nor carries a line break into the header.
    EXPECT_EQ(call("GET", "/lang/en?next=//evil.example").headers["location"], "/projects");
    EXPECT_EQ(
        call("GET", "/lang/en?next=/p%0d%0aSet-Cookie:%20duepay_session=x").headers["location"],
        "/projects");
}

// A browser sends `Origin: null` with a form POST under referrer-policy no-referrer, which the
// origin check refuses: the dashboard's policy must keep our own Origin (same-origin does).
TEST_F(Dashboard, ReferrerPolicyKeepsTheOriginOfOurForms) {
    auto r = call("GET", "/sign-in");
    EXPECT_EQ(r.headers["referrer-policy"], "same-origin");
    EXPECT_EQ(r.headers["x-frame-options"], "DENY");
    EXPECT_NE(r.headers["content-security-policy"].find("script-src 'self'"), std::string::npos);
}

// The pages link their script and stylesheet as exactly these URLs, with the asset version.
TEST_F(Dashboard, AssetsAreServedAsThePagesLinkThem) {
    const auto page = call("GET", "/sign-in").body;
    for (const std::string name : {"dashboard.js", "dashboard.css"}) {
        const auto at = page.find("/static/" + name + "?v=");
        ASSERT_NE(at, std::string::npos) << name;
        const auto url = page.substr(at, page.find('"', at) - at);
        auto r = call("GET", url);
        EXPECT_EQ(r.status, 200) << url << " " << r.body;
        EXPECT_EQ(r.headers["content-type"], name.ends_with(".js")
                                                 ? "text/javascript; charset=utf-8"
                                                 : "text/css; charset=utf-8");
    }
    EXPECT_EQ(call("GET", "/static/accent/0b7a75.css?v=1").status, 200);
    EXPECT_EQ(call("GET", "/static/other.js?v=1").status, 404);
}

TEST_F(Dashboard, ModeToggleShowsOneModeAtATime) {
    auto u = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(u, "/projects", "name=Modes").status, 303);
    const auto base = "/p/" + store.projects.begin()->first;
    ASSERT_EQ(post_form(u, base + "/keys", "mode=test").status, 201);
    ASSERT_EQ(post_form(u, base + "/keys", "mode=live").status, 201);
    auto test_page = get(u, base + "/keys");
    EXPECT_NE(test_page.body.find("data-mode=\"test\""), std::string::npos);
    EXPECT_NE(test_page.body.find(store.key_rows[0].summary.id), std::string::npos);
    EXPECT_EQ(test_page.body.find(store.key_rows[1].summary.id), std::string::npos);
    auto toggle = post_form(u, "/mode", "mode=live&next=" + base + "/keys");
    ASSERT_EQ(toggle.status, 303);
    const auto mode_cookie =
        toggle.headers["set-cookie"].substr(0, toggle.headers["set-cookie"].find(';'));
    auto live_page = call("GET", base + "/keys", {{"cookie", u.cookie + "; " + mode_cookie}});
    EXPECT_NE(live_page.body.find("data-mode=\"live\""), std::string::npos);
    EXPECT_NE(live_page.body.find(store.key_rows[1].summary.id), std::string::npos);
    EXPECT_EQ(live_page.body.find(store.key_rows[0].summary.id), std::string::npos);
}

TEST_F(Dashboard, ChargesListUsesTheRestListRulesAndHidesOtherProjects) {
    auto u = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(u, "/projects", "name=Charges").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    auto charge = [&](const std::string& id_tail, const std::string& owner, ports::Mode mode) {
        ports::ChargeView v;
        v.invoice_id = "0x" + std::string(58, 'a') + id_tail;
        v.project_id = ports::ProjectId{owner};
        v.mode = mode;
        v.chain_id = domain::ChainId{80002};
        v.token_symbol = "USDC";
        v.token_decimals = 6;
        v.amount = domain::TokenAmount{domain::uint256(1500000)};
        v.reference = "order-" + id_tail;
        return v;
    };
    for (int i = 0; i < 21; ++i) {
        lister.rows.push_back({charge(std::to_string(100000 + i), project, ports::Mode::test),
                               1'700'000'000'000'000LL - i});
    }
    auto page = get(u, base + "/charges?status=paid&reference=&createdGte=2026-11-01T00:00:00Z");
    ASSERT_EQ(page.status, 200) << page.body.substr(0, 300);
    ASSERT_EQ(lister.queries.size(), 1U);
    const auto& q = lister.queries[0];
    EXPECT_EQ(q.project_id.value, project);
    EXPECT_EQ(q.mode, ports::Mode::test);
    EXPECT_EQ(q.status, domain::charge::Status::paid);
    EXPECT_FALSE(q.reference.has_value());  // an empty field means any
    EXPECT_TRUE(q.created_gte_us.has_value());
    EXPECT_EQ(q.limit, 21U);  // a page of 20, plus one to learn there is a next page
    EXPECT_NE(page.body.find("1.5 USDC"), std::string::npos);
    EXPECT_NE(page.body.find("data-test=\"next-page\""), std::string::npos);
    EXPECT_NE(page.body.find("cursor=c1_"), std::string::npos);

    auto refused = get(u, base + "/charges?status=nope");
    EXPECT_EQ(refused.status, 400);
    EXPECT_NE(refused.body.find("data-test=\"error\""), std::string::npos);

    // The form's metadata pair is the REST list's metadata[<key>]=<value> filter; a bad key is
    // the REST list's refusal.
    auto by_metadata = get(u, base + "/charges?metadataKey=order_id&metadataValue=A%2017");
    EXPECT_EQ(by_metadata.status, 200);
    ASSERT_EQ(lister.queries.size(), 2U);
    EXPECT_EQ(lister.queries[1].metadata_json, R"({"order_id":"A 17"})");
    EXPECT_NE(by_metadata.body.find("value=\"A 17\""), std::string::npos) << "the form keeps it";
    auto bad_key = get(u, base + "/charges?metadataKey=no%20spaces&metadataValue=x");
    EXPECT_EQ(bad_key.status, 400);
    EXPECT_NE(bad_key.body.find("metadata keys are 1-40 characters"), std::string::npos);

    // A charge page: ours in this mode is shown; another project's, or the live one, is not.
    const auto mine = charge("000001", project, ports::Mode::test);
    const auto theirs = charge("000002", "prj_other", ports::Mode::test);
    const auto live = charge("000003", project, ports::Mode::live);
    for (const auto& v : {mine, theirs, live}) reader.rows[v.invoice_id] = v;
    auto shown = get(u, base + "/charges/" + mine.invoice_id);
    EXPECT_EQ(shown.status, 200);
    EXPECT_NE(shown.body.find(mine.invoice_id), std::string::npos);
    EXPECT_EQ(get(u, base + "/charges/" + theirs.invoice_id).status, 404);
    EXPECT_EQ(get(u, base + "/charges/" + live.invoice_id).status, 404);
    auto find = get(u, base + "/charges/find?invoiceId=" + mine.invoice_id);
    EXPECT_EQ(find.status, 303);
    EXPECT_EQ(find.headers["location"], base + "/charges/" + mine.invoice_id);
    auto not_an_id = get(u, base + "/charges/find?invoiceId=0x12%0d%0aSet-Cookie:%20a=b");
    EXPECT_EQ(not_an_id.status, 404);
    EXPECT_EQ(not_an_id.headers.count("location"), 0U);
}

// ---- The overview (overview_pages, ADR 0245) ----

TEST_F(Dashboard, OverviewShowsTheStatsOfTheModeAndPeriod) {
    // A clock in 2026 (the double's starts in January 1970): the 90 days before it are days of
    // the calendar, each with its row in the chart's table.
    store.now_s = 1'795'000'000;
    auto u = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(u, "/projects", "name=Shop").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    // No charge yet: the first-charge guidance, nothing paid.
    auto r = get(u, base);
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_NE(r.body.find("data-test=\"first-charge\""), std::string::npos);
    EXPECT_NE(r.body.find("data-test=\"no-volume\""), std::string::npos);
    ASSERT_EQ(stats.asked.size(), 1u);
    EXPECT_EQ(stats.asked[0].project.value, project);
    EXPECT_EQ(stats.asked[0].mode, ports::Mode::test);
    // The last 30 UTC days up to the clock's (store.now_s).
    const auto today = domain::events::format_rfc3339_millis_utc(store.now_s * 1000).substr(0, 10);
    EXPECT_EQ(stats.asked[0].last_day, today);
    EXPECT_EQ(
        stats.asked[0].first_day,
        domain::events::format_rfc3339_millis_utc((store.now_s - 29 * 86400) * 1000).substr(0, 10));

    ports::DailyStats d;
    d.day = 89;  // today, the last of the 90 days asked for below
    d.chain_id = domain::ChainId{80002};
    d.token = doubles::address("0x5FbDB2315678afecb367f032d93F642f64180aa3");
    d.token_symbol = "USDT";
    d.token_decimals = 6;
    d.created = 3;
    d.converted = 2;
    d.entered_paid = 2;
    d.payments = 3;
    d.paid = 3'500'000;
    stats.view.days = {d};
    stats.view.by_status = {{ports::Status::paid, 2}, {ports::Status::underpaid, 1}};
    stats.view.paid_time[5] = 2;
    stats.view.webhook_attempts = 4;
    stats.view.webhook_succeeded = 3;
    r = get(u, base + "?days=90");
    ASSERT_EQ(r.status, 200) << r.body;
    EXPECT_EQ(
        stats.asked.back().first_day,
        domain::events::format_rfc3339_millis_utc((store.now_s - 89 * 86400) * 1000).substr(0, 10));
    EXPECT_EQ(r.body.find("data-test=\"first-charge\""), std::string::npos);
    for (const char* want :
         {"data-test=\"created\">3<", "data-test=\"paid\">2<", "data-test=\"conversion\">66.7 %<",
          "data-test=\"median\">5 s<", "data-test=\"webhook-rate\">75.0 %<",
          "data-test=\"status-paid\">2<", "data-test=\"status-underpaid\">1<",
          "data-test=\"status-pending\">0<", "<td>3.5</td>", "USDT (Chain id 80002)",
          "data-test=\"period-90\" aria-current=\"page\""}) {
        EXPECT_NE(r.body.find(want), std::string::npos) << want;
    }
    EXPECT_NE(r.body.find("<svg"), std::string::npos);
    // The day's volume on its own day's row of the chart's table (the last of the 90).
    EXPECT_NE(r.body.find("<tr><td>" + today + "</td><td>3.5</td></tr>"), std::string::npos);
    // The other mode asks for the other mode's stats.
    EXPECT_EQ(call("GET", base, {{"cookie", u.cookie + "; duepay_mode=live"}}).status, 200);
    EXPECT_EQ(stats.asked.back().mode, ports::Mode::live);
    // A period other than 30 or 90, or another parameter: 400, nothing read.
    const auto asked = stats.asked.size();
    for (const char* bad : {"?days=7", "?days=", "?days=30&x=1", "?from=2026-01-01"}) {
        EXPECT_EQ(get(u, base + bad).status, 400) << bad;
    }
    EXPECT_EQ(stats.asked.size(), asked);
    // The store down: 503, as every page of the dashboard.
    stats.down = true;
    EXPECT_EQ(get(u, base).status, 503);
}

TEST_F(Dashboard, ReportsShowTheTotalsAndDownloadTheRestCsvForAViewerToo) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Books").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    auto add = [&](int i, const std::string& kind, const std::string& amount, std::int64_t day,
                   const std::string& mode) {
        ports::SettlementLine l;
        l.invoice_id = "0x" + std::string(63, 'c') + std::to_string(i);
        l.kind = kind;
        l.tx_hash = "0x" + std::string(63, 'd') + std::to_string(i);
        l.project_id = project;
        l.mode = mode;
        l.chain_id = 80002;
        l.token = "0x2222222222222222222222222222222222222222";
        l.token_symbol = "USDC";
        l.token_decimals = 6;
        l.block_number = 9;
        // 2026-11-01T00:00:00Z is 1793491200 s.
        l.confirmed_us = (1'793'491'200'000LL + day * 86'400'000LL + 5000) * 1000;
        l.confirmed_at = domain::events::format_rfc3339_millis_utc(l.confirmed_us / 1000);
        l.reference = "ref,\"" + std::to_string(i);
        l.amount = amount;
        l.fee = kind == "payment" ? "100" : "0";
        l.net = std::to_string(std::stoll(amount) - std::stoll(l.fee));
        if (kind == "refund") l.refund_id = "rf_x";
        reports.lines.push_back(l);
    };
    add(1, "payment", "2500000", 0, "test");
    add(2, "refund", "-500000", 29, "test");   // 2026-11-30: inside when to=2026-11-30
    add(3, "payment", "7000000", 30, "test");  // 2026-12-01: outside
    add(4, "payment", "9000000", 3, "live");   // the other mode
    auto mate = sign_in(kMateKey);
    ASSERT_TRUE(store
                    .put_member(ports::ProjectId{project}, mate.address, MemberRole::viewer,
                                {owner.address, "ses_x"})
                    .ok());
    for (const auto& who : {owner, mate}) {
        auto page = get(who, base + "/reports?from=2026-11-01&to=2026-11-30");
        ASSERT_EQ(page.status, 200) << page.body.substr(0, 300);
        EXPECT_NE(page.body.find("href=\"" + base + "/reports\" aria-current=\"page\""),
                  std::string::npos);
        EXPECT_NE(page.body.find("data-test=\"token-totals\""), std::string::npos);
        EXPECT_NE(page.body.find("<td data-test=\"paid\">2.500000</td>"), std::string::npos)
            << page.body;
        EXPECT_NE(page.body.find("<td data-test=\"refunded\">0.500000</td>"), std::string::npos);
        EXPECT_NE(page.body.find("<td data-test=\"net\">1.999900</td>"), std::string::npos);
        // The download is the REST report's CSV for [from, to + 1 day).
        auto csv = get(who, base + "/reports/settlements.csv?from=2026-11-01&to=2026-11-30");
        ASSERT_EQ(csv.status, 200);
        ASSERT_TRUE(csv.stream);
        EXPECT_EQ(csv.headers["content-type"], "text/csv; charset=utf-8");
        EXPECT_EQ(csv.headers["content-disposition"], "attachment; filename=\"duepay-settlements-" +
                                                          project +
                                                          "-test-2026-11-01-2026-12-01.csv\"");
        std::string body = csv.body;
        while (csv.stream(body)) {
        }
        auto rest = settlement_report(
            reports, ports::ProjectId{project}, ports::Mode::test,
            SettlementRequest{1'793'491'200'000LL, 1'793'491'200'000LL + 30 * 86'400'000LL,
                              ReportFormat::csv},
            1000);
        std::string expected = rest.body;
        while (rest.stream(expected)) {
        }
        EXPECT_EQ(body, expected);
        EXPECT_NE(body.find("\"ref,\"\"1\""), std::string::npos) << body;
        EXPECT_EQ(body.find(std::string(63, 'c') + "3"), std::string::npos);  // 2026-12-01
        EXPECT_EQ(body.find(std::string(63, 'c') + "4"), std::string::npos);  // live
    }
    // Refused dates: the page says why, nothing is read.
    for (const auto& q : {"?from=2026-11-30&to=2026-11-01", "?from=2026-11-01", "?from=x&to=y",
                          "?from=2025-01-01&to=2026-01-02", "?from=2026-11-01&to=2026-11-02&z=1"}) {
        auto r = get(owner, base + "/reports" + q);
        EXPECT_EQ(r.status, 400) << q;
        EXPECT_NE(r.body.find("data-test=\"error\""), std::string::npos) << q;
        EXPECT_EQ(get(owner, base + "/reports/settlements.csv" + q).status, 400) << q;
    }
    // No dates: this month up to today (the store's clock).
    auto month = get(owner, base + "/reports");
    EXPECT_EQ(month.status, 200);
    const auto today = domain::events::format_rfc3339_millis_utc(store.now_s * 1000).substr(0, 10);
    EXPECT_NE(month.body.find("value=\"" + today.substr(0, 8) + "01\""), std::string::npos);
    EXPECT_NE(month.body.find("value=\"" + today + "\""), std::string::npos);
}

// A test-mode charge of `project` asking 1.5 USDC that got 0.4: underpaid, its exception open.
ports::ChargeView underpaid_view(const std::string& project, const std::string& invoice_id) {
    ports::ChargeView v;
    v.invoice_id = invoice_id;
    v.project_id = ports::ProjectId{project};
    v.mode = ports::Mode::test;
    v.status = domain::charge::Status::underpaid;
    v.token_symbol = "USDC";
    v.token_decimals = 6;
    v.amount = domain::TokenAmount{1500000};
    v.amount_confirmed = domain::TokenAmount{400000};
    v.open_exception = "partial";
    return v;
}

// The exceptions page (ADR 0230): the open list with exact amounts in the token and at the quoted
// fiat rate, a resolve that appends charge.exception_resolved named by the wallet and its session,
// a refund recorded by the REST rule, and a viewer's 403 for both with nothing appended.
TEST_F(Dashboard, ExceptionsListResolveAndRefundAreGuarded) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Exceptions").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    // An underpaid charge: 0.4 of 1.5 USDC, priced at 35 THB per USDC (52.50 THB due).
    namespace ev = domain::events;
    const ev::Event created = created_event(project, 0xab, 80002, 1500000);
    const auto& cd = std::get<ev::ChargeCreated>(created.data);
    ev::Payment p;
    p.token = cd.token;
    p.amount = domain::TokenAmount{400000};
    ev::Event deposit = created, under = created;
    deposit.id = "d1";
    deposit.data = ev::DepositSeen{p};
    under.id = "u1";
    under.data = ev::ChargeUnderpaid{p, domain::TokenAmount{400000}};
    const std::string id = domain::to_hex(created.invoice_id);
    history.of[id] = {ev::encode_event(created), ev::encode_event(deposit),
                      ev::encode_event(under)};
    auto v = underpaid_view(project, id);
    v.fiat_json = R"({"currency":"THB","amount":"52.50","tokenAmount":"1500000","rate":"35"})";
    reader.rows[id] = v;
    lister.rows.push_back({v, 1'700'000'000'000'000LL});

    auto page = get(owner, base + "/exceptions");
    ASSERT_EQ(page.status, 200) << page.body.substr(0, 300);
    ASSERT_EQ(lister.queries.size(), 1U);
    EXPECT_EQ(lister.queries[0].exceptions, ports::ExceptionList::open);
    EXPECT_EQ(lister.queries[0].mode, ports::Mode::test);
    EXPECT_NE(page.body.find("1.5 USDC<br><small>52.50 THB"), std::string::npos) << page.body;
    EXPECT_NE(page.body.find("0.4 USDC<br><small>14.00 THB"), std::string::npos);
    EXPECT_NE(page.body.find("-1.1 USDC<br><small>-38.50 THB"), std::string::npos);
    EXPECT_NE(page.body.find("data-test=\"resolve\""), std::string::npos);
    EXPECT_NE(page.body.find("href=\"" + base + "/exceptions\""), std::string::npos);  // the nav
    EXPECT_EQ(get(owner, base + "/exceptions?view=resolved").status, 200);
    EXPECT_EQ(lister.queries.back().exceptions, ports::ExceptionList::resolved);
    EXPECT_EQ(get(owner, base + "/exceptions?view=all").status, 400);

    // A viewer sees the page without the forms, and both actions are 403 with nothing appended.
    auto mate = sign_in(kMateKey);
    ASSERT_TRUE(store
                    .put_member(ports::ProjectId{project}, mate.address, MemberRole::viewer,
                                {owner.address, "ses_x"})
                    .ok());
    auto seen = get(mate, base + "/exceptions");
    EXPECT_EQ(seen.status, 200);
    EXPECT_EQ(seen.body.find("data-test=\"resolve\""), std::string::npos);
    EXPECT_EQ(post_form(mate, base + "/exceptions/" + id + "/resolve", "note=mine").status, 403);
    EXPECT_EQ(
        post_form(mate, base + "/exceptions/" + id + "/refund", "tx_hash=0x" + std::string(64, 'e'))
            .status,
        403);
    EXPECT_TRUE(log.records.empty());

    // The owner: an empty note is refused, then the resolution is appended, named by the wallet.
    EXPECT_EQ(post_form(owner, base + "/exceptions/" + id + "/resolve", "note=+%0D%0A+").status,
              400);
    EXPECT_TRUE(log.records.empty());
    auto done = post_form(owner, base + "/exceptions/" + id + "/resolve",
                          "note=Buyer+pays+the+rest+by+bank");
    EXPECT_EQ(done.status, 200) << done.body.substr(0, 400);
    EXPECT_NE(done.body.find("data-test=\"notice\""), std::string::npos);
    ASSERT_EQ(log.records.size(), 1U);
    auto e = ev::decode_event(log.records[0].value);
    ASSERT_TRUE(e.ok()) << e.error().message;
    const auto& r = std::get<ev::ExceptionResolved>(e->data);
    EXPECT_EQ(r.exception, ev::ResolvedException::partial);
    EXPECT_EQ(r.note, "Buyer pays the rest by bank");
    EXPECT_EQ(r.resolved_by.kind, ev::ActorKind::wallet);
    std::string lower = owner.address;
    for (auto& ch : lower) ch = static_cast<char>(std::tolower(ch));
    EXPECT_EQ(r.resolved_by.id, lower);
    ASSERT_TRUE(r.resolved_by.session_id.has_value());
    EXPECT_EQ(r.resolved_by.session_id->rfind("ses_", 0), 0U);
    // Once in the history: a second resolve is refused in decide's words.
    history.of[id].push_back(log.records[0].value);
    auto again = post_form(owner, base + "/exceptions/" + id + "/resolve", "note=again");
    EXPECT_EQ(again.status, 409);
    EXPECT_NE(again.body.find("resolved already"), std::string::npos);
    // The charge page shows the note on its timeline.
    auto charge_page = get(owner, base + "/charges/" + id);
    EXPECT_NE(charge_page.body.find("Buyer pays the rest by bank — " + owner.address),
              std::string::npos);

    // Record a refund: the REST rule for the hash, then charge.refund_requested.
    EXPECT_EQ(post_form(owner, base + "/exceptions/" + id + "/refund", "tx_hash=0x12").status, 400);
    auto refund = post_form(owner, base + "/exceptions/" + id + "/refund",
                            "tx_hash=0x" + std::string(64, 'e'));
    EXPECT_EQ(refund.status, 200) << refund.body.substr(0, 400);
    ASSERT_EQ(log.records.size(), 2U);
    EXPECT_TRUE(
        std::holds_alternative<ev::RefundRequested>(ev::decode_event(log.records[1].value)->data));
    // Another project's charge reads as none.
    EXPECT_EQ(
        post_form(owner, base + "/exceptions/0x" + std::string(64, 'f') + "/resolve", "note=n")
            .status,
        404);
}

// The exceptions list in pages of 20 (ADR 0295): each page's next link carries its last row's
// keyset position, following the links shows every exception exactly once, newest first (two
// rows created in the same microsecond ordered by invoice id), the last page has no link, the
// resolved view keeps its view in the link, and a cursor no link gave is refused.
TEST_F(Dashboard, ExceptionsPagesWalkEveryRowOnceByTheirNextLinks) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Paged").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    constexpr int kCharges = 45;
    std::vector<std::string> ids;
    for (int i = 0; i < kCharges; ++i) {
        const std::string n = std::to_string(9000 - i);  // descending, as the list orders ties
        const auto v = underpaid_view(project, "0x" + std::string(64 - n.size(), 'c') + n);
        ids.push_back(v.invoice_id);
        lister.rows.push_back({v, 1'700'000'000'000'000LL - i / 2});
    }
    auto invoices_of = [](const std::string& body) {
        std::vector<std::string> out;
        const std::string key = "data-test=\"exception-row\" data-invoice=\"";
        for (auto at = body.find(key); at != std::string::npos; at = body.find(key, at + 1)) {
            const auto from = at + key.size();
            out.push_back(body.substr(from, body.find('"', from) - from));
        }
        return out;
    };
    auto next_of = [](const std::string& body) -> std::optional<std::string> {
        const std::string key = "data-test=\"next-page\" href=\"";
        const auto at = body.find(key);
        if (at == std::string::npos) return std::nullopt;
        std::string href;  // the attribute, &amp; unescaped
        for (auto i = at + key.size(); i < body.size() && body[i] != '"';) {
            const bool amp = body.compare(i, 5, "&amp;") == 0;
            href += body[i];
            i += amp ? 5 : 1;
        }
        return href;
    };
    std::vector<std::string> seen;
    std::vector<std::size_t> sizes;
    std::optional<std::string> path = base + "/exceptions";
    while (path && sizes.size() < 5) {
        auto page = get(owner, *path);
        ASSERT_EQ(page.status, 200) << *path << page.body.substr(0, 300);
        const auto rows = invoices_of(page.body);
        sizes.push_back(rows.size());
        seen.insert(seen.end(), rows.begin(), rows.end());
        path = next_of(page.body);
    }
    EXPECT_EQ(sizes, (std::vector<std::size_t>{20, 20, 5}));
    EXPECT_EQ(seen, ids);
    ASSERT_EQ(lister.queries.size(), 3U);
    for (const auto& q : lister.queries) {
        EXPECT_EQ(q.limit, 21U);  // a page and one more to learn there is a next
        EXPECT_EQ(q.exceptions, ports::ExceptionList::open);
    }
    EXPECT_FALSE(lister.queries[0].after.has_value());
    ASSERT_TRUE(lister.queries[1].after.has_value());
    EXPECT_EQ(lister.queries[1].after->invoice_id, ids[19]);
    EXPECT_EQ(lister.queries[1].after->created_us, 1'700'000'000'000'000LL - 19 / 2);

    auto resolved = get(owner, base + "/exceptions?view=resolved");
    ASSERT_EQ(resolved.status, 200);
    const auto link = next_of(resolved.body);
    ASSERT_TRUE(link.has_value());
    EXPECT_EQ(link->rfind(base + "/exceptions?view=resolved&cursor=c1_", 0), 0U) << *link;
    EXPECT_EQ(lister.queries.back().exceptions, ports::ExceptionList::resolved);
    EXPECT_EQ(get(owner, base + "/exceptions?cursor=c1_nope").status, 400);
    EXPECT_EQ(lister.queries.size(), 4U);  // nothing read for a refused cursor
}

TEST_F(Dashboard, ChargePageListsPaymentsAndRefundsAndRecordsARefund) {
    auto owner = sign_in(kOwnerKey);
    ASSERT_EQ(post_form(owner, "/projects", "name=Payments").status, 303);
    const auto project = store.projects.begin()->first;
    const auto base = "/p/" + project;
    namespace ev = domain::events;
    // A charge paid on `chain` by one transfer of 1.234567 of a 6-decimal token (tx 0xcd..cd),
    // and, `refunded` > 0, a verified refund of that many units (tx 0xef..ef).
    auto charge = [&](std::uint8_t fill, std::uint64_t chain, std::uint64_t refunded) {
        const ev::Event created = created_event(project, fill, chain, 1234567);
        const auto& cd = std::get<ev::ChargeCreated>(created.data);
        ev::Payment p;
        p.token = cd.token;
        p.amount = domain::TokenAmount{1234567};
        p.tx_hash.fill(0xcd);
        ev::Event seen = created, paid = created;
        seen.id = "s" + std::to_string(fill);
        seen.occurred_at = "2026-11-21T22:01:00.000Z";
        seen.data = ev::PaymentDetected{p};
        paid.id = "p" + std::to_string(fill);
        paid.occurred_at = "2026-11-21T22:02:00.000Z";
        paid.data = ev::ChargePaid{p, p.amount};
        const std::string id = domain::to_hex(created.invoice_id);
        history.of[id] = {ev::encode_event(created), ev::encode_event(seen),
                          ev::encode_event(paid)};
        if (refunded > 0) {
            domain::Bytes32 tx;
            tx.fill(0xef);
            ev::Event asked = created, done = created;
            asked.id = "r" + std::to_string(fill);
            const auto rid = domain::charge::refund_id(created.invoice_id, tx);
            asked.data = ev::RefundRequested{rid, tx};
            done.id = "f" + std::to_string(fill);
            done.data = ev::ChargeRefunded{
                rid, tx, 0, 9, cd.merchant, cd.token, domain::TokenAmount{refunded}};
            history.of[id].push_back(ev::encode_event(asked));
            history.of[id].push_back(ev::encode_event(done));
        }
        ports::ChargeView v;
        v.invoice_id = id;
        v.project_id = ports::ProjectId{project};
        v.mode = ports::Mode::test;
        v.chain_id = domain::ChainId{chain};
        v.status = domain::charge::Status::paid;
        v.token = cd.token;
        v.token_symbol = "USDC";
        v.token_decimals = 6;
        v.amount = cd.amount;
        v.amount_confirmed = cd.amount;
        reader.rows[id] = v;
        return id;
    };
    const auto amoy = charge(0xa1, 80002, 200000);
    const auto anvil = charge(0xa2, 31337, 0);
    const auto returned = charge(0xa3, 31337, 1234567);
    std::string cd_hash = "0x";
    for (int i = 0; i < 32; ++i) cd_hash += "cd";
    std::string ef_hash = "0x";
    for (int i = 0; i < 32; ++i) ef_hash += "ef";

    // A chain with an explorer: the payment's hash links there (another origin: no opener, no
    // referrer), its amount exact in the token's units, its latest state; the refund likewise.
    auto page = get(owner, base + "/charges/" + amoy);
    ASSERT_EQ(page.status, 200) << page.body.substr(0, 300);
    EXPECT_NE(page.body.find("<a href=\"https://amoy.example/tx/" + cd_hash +
                             "\" target=\"_blank\" rel=\"noopener noreferrer\""),
              std::string::npos)
        << page.body;
    EXPECT_NE(page.body.find("<td data-test=\"amount\">1.234567 USDC</td>"), std::string::npos);
    EXPECT_NE(page.body.find("data-test=\"payment\" data-status=\"confirmed\""), std::string::npos);
    EXPECT_EQ(page.body.find("data-status=\"seen\""), std::string::npos);  // only its latest
    EXPECT_NE(page.body.find("<a href=\"https://amoy.example/tx/" + ef_hash + "\""),
              std::string::npos);
    EXPECT_NE(page.body.find("data-test=\"refund\" data-status=\"succeeded\""), std::string::npos);
    EXPECT_NE(page.body.find("<td data-test=\"amount\">0.2 USDC</td>"), std::string::npos);
    // 1.034567 is still refundable: the owner has the form, posting to the charge's own route.
    EXPECT_NE(page.body.find("action=\"" + base + "/charges/" + amoy + "/refund\""),
              std::string::npos);

    // A dev chain has no explorer: the hash is plain text, no link at all.
    auto dev = get(owner, base + "/charges/" + anvil);
    ASSERT_EQ(dev.status, 200);
    EXPECT_NE(dev.body.find("<td data-test=\"tx\"><code>" + cd_hash + "</code></td>"),
              std::string::npos)
        << dev.body;
    EXPECT_EQ(dev.body.find("/tx/"), std::string::npos);
    EXPECT_NE(dev.body.find("data-test=\"no-refunds\""), std::string::npos);
    // In Thai too.
    auto thai =
        call("GET", base + "/charges/" + anvil, {{"cookie", owner.cookie + "; duepay_lang=th"}});
    EXPECT_NE(thai.body.find(std::string(tr(Lang::th, "payments"))), std::string::npos);

    // A developer has the form; a viewer neither sees it nor may post it (403, nothing appended).
    auto dev_member = sign_in(kMateKey);
    auto viewer = sign_in(kStrangerKey);
    ASSERT_TRUE(store
                    .put_member(ports::ProjectId{project}, dev_member.address,
                                MemberRole::developer, {owner.address, "ses_x"})
                    .ok());
    ASSERT_TRUE(store
                    .put_member(ports::ProjectId{project}, viewer.address, MemberRole::viewer,
                                {owner.address, "ses_x"})
                    .ok());
    EXPECT_NE(get(dev_member, base + "/charges/" + amoy).body.find("data-test=\"record-refund\""),
              std::string::npos);
    auto viewed = get(viewer, base + "/charges/" + amoy);
    EXPECT_EQ(viewed.status, 200);
    EXPECT_EQ(viewed.body.find("data-test=\"record-refund\""), std::string::npos);
    const std::string refund_tx = "tx_hash=0x" + std::string(64, '7');
    EXPECT_EQ(post_form(viewer, base + "/charges/" + amoy + "/refund", refund_tx).status, 403);
    EXPECT_TRUE(log.records.empty());
    // CSRF as every form: without the token, 403 and nothing appended.
    EXPECT_EQ(post_form(dev_member, base + "/charges/" + amoy + "/refund", refund_tx, "").status,
              403);
    EXPECT_TRUE(log.records.empty());

    // A bad hash: the charge page with the REST rule's words; then the developer's refund is
    // charge.refund_requested and the answer goes back to the charge page with the notice.
    auto bad = post_form(dev_member, base + "/charges/" + amoy + "/refund", "tx_hash=0x12");
    EXPECT_EQ(bad.status, 400);
    EXPECT_NE(bad.body.find(std::string(kInvalidTxHash)), std::string::npos);
    auto recorded = post_form(dev_member, base + "/charges/" + amoy + "/refund", refund_tx);
    EXPECT_EQ(recorded.status, 303) << recorded.body.substr(0, 400);
    // Back to the charge page, its URL clean: the notice rides a one-shot flash cookie for the
    // project's paths.
    EXPECT_EQ(recorded.headers["location"], base + "/charges/" + amoy);
    const auto& set = recorded.headers["set-cookie"];
    const std::string flash = "duepay_flash=refund_recorded_" + amoy;
    EXPECT_EQ(set, flash + "; Path=" + base + "; Max-Age=60; HttpOnly; SameSite=Lax");
    ASSERT_EQ(log.records.size(), 1U);
    EXPECT_TRUE(
        std::holds_alternative<ev::RefundRequested>(ev::decode_event(log.records[0].value)->data));
    const std::string notice(tr(Lang::en, "refund_notice"));
    auto back =
        call("GET", base + "/charges/" + amoy, {{"cookie", dev_member.cookie + "; " + flash}});
    EXPECT_EQ(back.status, 200);
    EXPECT_NE(back.body.find(notice), std::string::npos)
        << back.status << back.body.substr(0, 2000);
    // The page that showed it clears it: the browser sends it no more, and the page says nothing.
    EXPECT_EQ(back.headers["set-cookie"],
              "duepay_flash=; Path=" + base + "; Max-Age=0; HttpOnly; SameSite=Lax");
    auto reload = get(dev_member, base + "/charges/" + amoy);
    EXPECT_EQ(reload.status, 200);
    EXPECT_EQ(reload.body.find(notice), std::string::npos);
    EXPECT_EQ(reload.headers["set-cookie"].find("duepay_flash"), std::string::npos);
    // Another charge's flash, or a value of the browser's own, says nothing (and is cleared).
    auto other = call("GET", base + "/charges/" + amoy,
                      {{"cookie", dev_member.cookie + "; duepay_flash=refund_recorded_0x00"}});
    EXPECT_EQ(other.body.find(notice), std::string::npos);
    EXPECT_NE(other.headers["set-cookie"].find("Max-Age=0"), std::string::npos);
    // A link from before the flash still opens the page, without the notice.
    auto old_link = get(dev_member, base + "/charges/" + amoy + "?refund=recorded");
    EXPECT_EQ(old_link.status, 200);
    EXPECT_EQ(old_link.body.find(notice), std::string::npos);
    // Nothing left to refund (refunded in full): no form, and decide's refusal on the page.
    auto full = get(owner, base + "/charges/" + returned);
    EXPECT_NE(full.body.find("data-test=\"refund\" data-status=\"succeeded\""), std::string::npos);
    EXPECT_EQ(full.body.find("data-test=\"record-refund\""), std::string::npos);
    auto refused = post_form(owner, base + "/charges/" + returned + "/refund", refund_tx);
    EXPECT_EQ(refused.status, 409);
    EXPECT_NE(refused.body.find("data-test=\"charge\""), std::string::npos);  // the charge page
    EXPECT_EQ(log.records.size(), 1U);
}
}  // namespace
}  // namespace duepay::api::dashboard
