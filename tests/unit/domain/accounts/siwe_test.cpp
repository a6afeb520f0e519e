#include "domain/accounts/siwe.hpp"

#include <gtest/gtest.h>

#include "domain/evm/address.hpp"
#include "domain/evm/eip191.hpp"
#include "domain/hex.hpp"
#include "tests/support/siwe_vectors.hpp"

namespace duepay::domain::accounts::siwe {
namespace {

// The example of EIP-4361 itself (its "Example message to be signed").
const std::string kSpecExample =
    "service.org wants you to sign in with your Ethereum account:\n"
    "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2\n"
    "\n"
    "I accept the ServiceOrg Terms of Service: https://service.org/tos\n"
    "\n"
    "URI: https://service.org/login\n"
    "Version: 1\n"
    "Chain ID: 1\n"
    "Nonce: 32891756\n"
    "Issued At: 2021-09-30T16:25:24Z\n"
    "Resources:\n"
    "- ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/\n"
    "- https://example.com/my-web2-claim.json";

// Every field present (shared with the signature tests: tests/support/siwe_vectors.hpp).
using tests::siwe_vectors::kFull;

// Only the required fields: no statement means two empty lines after the address.
const std::string kMinimal =
    "dash.duepay.example wants you to sign in with your Ethereum account:\n"
    "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n"
    "\n"
    "\n"
    "URI: https://dash.duepay.example\n"
    "Version: 1\n"
    "Chain ID: 80002\n"
    "Nonce: abcdefgh\n"
    "Issued At: 2026-11-27T11:00:00Z";

std::string replace(std::string text, const std::string& from, const std::string& to) {
    const auto at = text.find(from);
    if (at == std::string::npos) throw std::invalid_argument("no '" + from + "' in the text");
    return text.replace(at, from.size(), to);
}

TEST(SiweParse, ReadsEveryFieldOfTheSpecExample) {
    auto m = parse(kSpecExample);
    ASSERT_TRUE(m) << m.error().code << ": " << m.error().message;
    EXPECT_FALSE(m->scheme);
    EXPECT_EQ(m->domain, "service.org");
    EXPECT_EQ(evm::to_checksum(m->address), "0xC02aaA39b223FE8D0A0e5C4F27eAD9083C756Cc2");
    EXPECT_EQ(m->statement, "I accept the ServiceOrg Terms of Service: https://service.org/tos");
    EXPECT_EQ(m->uri, "https://service.org/login");
    EXPECT_EQ(m->version, "1");
    EXPECT_EQ(m->chain_id, ChainId{1});
    EXPECT_EQ(m->nonce, "32891756");
    EXPECT_EQ(m->issued_at, "2021-09-30T16:25:24Z");
    EXPECT_FALSE(m->expiration_time);
    EXPECT_FALSE(m->not_before);
    EXPECT_FALSE(m->request_id);
    ASSERT_TRUE(m->resources);
    EXPECT_EQ(*m->resources,
              (std::vector<std::string>{
                  "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
                  "https://example.com/my-web2-claim.json"}));
}

TEST(SiweParse, ReadsOptionalFieldsAndTheScheme) {
    auto m = parse(kFull);
    ASSERT_TRUE(m) << m.error().code << ": " << m.error().message;
    EXPECT_EQ(m->scheme, "https");
    EXPECT_EQ(m->domain, "dash.duepay.example");
    EXPECT_EQ(m->chain_id, ChainId{137});
    EXPECT_EQ(m->expiration_time, "2026-11-27T11:10:00.000Z");
    EXPECT_EQ(m->not_before, "2026-11-27T11:00:00.000Z");
    EXPECT_EQ(m->request_id, "req-42");
    auto minimal = parse(kMinimal);
    ASSERT_TRUE(minimal) << minimal.error().message;
    EXPECT_FALSE(minimal->statement);
    EXPECT_FALSE(minimal->resources);
}

TEST(SiweFormat, WritesTheLayoutOfTheSpec) {
    Message m;
    m.domain = "service.org";
    m.address = *evm::parse_address("0xc02aaa39b223fe8d0a0e5c4f27ead9083c756cc2");
    m.statement = "I accept the ServiceOrg Terms of Service: https://service.org/tos";
    m.uri = "https://service.org/login";
    m.chain_id = ChainId{1};
    m.nonce = "32891756";
    m.issued_at = "2021-09-30T16:25:24Z";
    m.resources = std::vector<std::string>{
        "ipfs://bafybeiemxf5abjwjbikoz4mc3a3dla6ual3jsgpdr4cjr3oz3evfyavhwq/",
        "https://example.com/my-web2-claim.json"};
    EXPECT_EQ(format(m), kSpecExample);
}

TEST(SiweFormat, AnEmptyStatementIsWrittenAsNone) {
    auto m = *parse(kMinimal);
    m.statement = "";
    EXPECT_EQ(format(m), kMinimal);
}

// format(parse(t)) == t, and parse(format(m)) == m, on texts that exercise each optional part.
TEST(SiweRoundTrip, FormatOfParseIsTheIdentity) {
    const std::vector<std::string> texts = {
        kSpecExample,
        kFull,
        kMinimal,
        replace(kMinimal, "Issued At: 2026-11-27T11:00:00Z",
                "Issued At: 2026-11-27T18:00:00.123456+07:00\nResources:"),  // empty resources
        replace(kMinimal, "Issued At: 2026-11-27T11:00:00Z",
                "Issued At: 2026-11-27t11:00:00z\nNot Before: 2026-11-27T10:00:00-05:30"),
        replace(kMinimal, "Issued At: 2026-11-27T11:00:00Z",
                "Issued At: 2026-11-27T11:00:00Z\nRequest ID: a%20b:c@d"),
        replace(kMinimal, "dash.duepay.example wants",
                "user@localhost:8443 wants"),                                // userinfo and port
        replace(kMinimal, "\n\n\nURI", "\n\nURI: not a field line\n\nURI"),  // statement lookalike
        replace(kMinimal, "Chain ID: 80002", "Chain ID: 18446744073709551615"),  // 2^64 - 1
    };
    for (const auto& text : texts) {
        auto m = parse(text);
        ASSERT_TRUE(m) << text << "\n-> " << m.error().code << ": " << m.error().message;
        EXPECT_EQ(format(*m), text);
        auto again = parse(format(*m));
        ASSERT_TRUE(again);
        EXPECT_EQ(*again, *m);
    }
}

struct Refusal {
    const char* what;
    std::string text;
    const char* code;
};

TEST(SiweParse, RefusesEachDeviationWithItsCode) {
    const std::string issued = "Issued At: 2026-11-27T11:00:00Z";
    const std::vector<Refusal> cases = {
        {"over 4 KiB", kMinimal + std::string(4096, 'x'), "siwe_too_long"},
        {"over 4 KiB in a statement",
         replace(kMinimal, "\n\n\nURI", "\n\n" + std::string(4096, 'a') + "\n\nURI"),
         "siwe_too_long"},
        {"CR LF line ends", replace(kMinimal, "Version: 1\n", "Version: 1\r\n"),
         "siwe_control_character"},
        {"tab in the statement", replace(kFull, "Sign in", "Sign\tin"), "siwe_control_character"},
        {"NUL", replace(kMinimal, "abcdefgh", std::string("abcd\0efgh", 9)),
         "siwe_control_character"},
        {"DEL",
         replace(kMinimal, "abcdefgh",
                 "abcd\x7f"
                 "efgh"),
         "siwe_control_character"},
        {"non-ASCII statement", replace(kFull, "dashboard.", "dashboard \xe0\xb8\xbf"),
         "siwe_malformed"},
        {"empty text", "", "siwe_malformed"},
        {"wrong header", replace(kMinimal, "sign in with", "log in with"), "siwe_malformed"},
        {"no domain", replace(kMinimal, "dash.duepay.example wants", " wants"), "siwe_malformed"},
        {"trailing line break", kMinimal + "\n", "siwe_malformed"},
        {"trailing unknown field", kMinimal + "\nFoo: bar", "siwe_malformed"},
        {"missing version", replace(kMinimal, "Version: 1\n", ""), "siwe_malformed"},
        {"missing nonce", replace(kMinimal, "Nonce: abcdefgh\n", ""), "siwe_malformed"},
        {"missing issued at", replace(kMinimal, "\n" + issued, ""), "siwe_malformed"},
        {"version before URI",
         replace(replace(kMinimal, "Version: 1\n", ""), "URI:", "Version: 1\nURI:"),
         "siwe_malformed"},
        {"not before before expiration",
         replace(kFull,
                 "Expiration Time: 2026-11-27T11:10:00.000Z\nNot Before: 2026-11-27T11:00:00.000Z",
                 "Not Before: 2026-11-27T11:00:00.000Z\nExpiration Time: 2026-11-27T11:10:00.000Z"),
         "siwe_malformed"},
        {"repeated nonce", replace(kMinimal, "Nonce: abcdefgh", "Nonce: abcdefgh\nNonce: abcdefgh"),
         "siwe_malformed"},
        {"one empty line only", replace(kMinimal, "\n\n\nURI", "\n\nURI"), "siwe_malformed"},
        {"three empty lines", replace(kMinimal, "\n\n\nURI", "\n\n\n\nURI"), "siwe_malformed"},
        {"statement without the empty line after it",
         replace(kFull, "dashboard.\n\nURI", "dashboard.\nURI"), "siwe_malformed"},
        {"resource line without resources header",
         kMinimal + "\n- https://dash.duepay.example/terms", "siwe_malformed"},
        {"label without its space", replace(kMinimal, "Nonce: ", "Nonce:"), "siwe_malformed"},
        {"bad domain character", replace(kMinimal, "dash.duepay.example wants", "dash/x wants"),
         "siwe_bad_domain"},
        {"space in the domain", replace(kMinimal, "dash.duepay.example wants", "dash x wants"),
         "siwe_bad_domain"},
        {"bad scheme", replace(kFull, "https://dash", "1https://dash"), "siwe_bad_domain"},
        {"lower-case address",
         replace(kMinimal, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                 "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266"),
         "siwe_bad_address"},
        {"address checksum typo",
         replace(kMinimal, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                 "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92267"),
         "siwe_bad_address"},
        {"address without 0x",
         replace(kMinimal, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266",
                 "f39Fd6e51aad88F6F4ce6aB8827279cffFb92266"),
         "siwe_bad_address"},
        {"short address",
         replace(kMinimal, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266", "0xf39Fd6e51aad88F6"),
         "siwe_bad_address"},
        {"missing address", replace(kMinimal, "0xf39Fd6e51aad88F6F4ce6aB8827279cffFb92266\n", ""),
         "siwe_bad_address"},
        {"statement with a quote", replace(kFull, "Sign in", "Sign \"in\""), "siwe_bad_statement"},
        {"statement with a percent", replace(kFull, "Sign in", "Sign 100%"), "siwe_bad_statement"},
        {"URI without scheme", replace(kMinimal, "URI: https://", "URI: //"), "siwe_bad_uri"},
        {"empty URI", replace(kMinimal, "URI: https://dash.duepay.example", "URI: "),
         "siwe_bad_uri"},
        {"URI with a space",
         replace(kMinimal, "duepay.example\nVersion", "duepay.example x\nVersion"), "siwe_bad_uri"},
        {"URI with broken percent",
         replace(kMinimal, "duepay.example\nVersion", "duepay.ex%2\nVersion"), "siwe_bad_uri"},
        {"version 2", replace(kMinimal, "Version: 1", "Version: 2"), "siwe_bad_version"},
        {"version 1.0", replace(kMinimal, "Version: 1", "Version: 1.0"), "siwe_bad_version"},
        {"chain id zero", replace(kMinimal, "Chain ID: 80002", "Chain ID: 0"), "siwe_bad_chain_id"},
        {"chain id leading zero", replace(kMinimal, "Chain ID: 80002", "Chain ID: 080002"),
         "siwe_bad_chain_id"},
        {"chain id negative", replace(kMinimal, "Chain ID: 80002", "Chain ID: -1"),
         "siwe_bad_chain_id"},
        {"chain id hex", replace(kMinimal, "Chain ID: 80002", "Chain ID: 0x89"),
         "siwe_bad_chain_id"},
        {"chain id 2^64", replace(kMinimal, "Chain ID: 80002", "Chain ID: 18446744073709551616"),
         "siwe_bad_chain_id"},
        {"chain id empty", replace(kMinimal, "Chain ID: 80002", "Chain ID: "), "siwe_bad_chain_id"},
        {"nonce of 7", replace(kMinimal, "abcdefgh", "abcdefg"), "siwe_bad_nonce"},
        {"nonce with a dash", replace(kMinimal, "abcdefgh", "abcd-efgh"), "siwe_bad_nonce"},
        {"nonce with a space", replace(kMinimal, "abcdefgh", "abcd efgh"), "siwe_bad_nonce"},
        {"issued at without offset", replace(kMinimal, "11:00:00Z", "11:00:00"),
         "siwe_bad_timestamp"},
        {"issued at a bare date", replace(kMinimal, "2026-11-27T11:00:00Z", "2026-11-27"),
         "siwe_bad_timestamp"},
        {"issued at with a space", replace(kMinimal, "27T11", "27 11"), "siwe_bad_timestamp"},
        {"issued at February 30", replace(kMinimal, "2026-11-27T", "2026-02-30T"),
         "siwe_bad_timestamp"},
        {"issued at hour 24", replace(kMinimal, "T11:00", "T24:00"), "siwe_bad_timestamp"},
        {"issued at empty fraction", replace(kMinimal, "11:00:00Z", "11:00:00.Z"),
         "siwe_bad_timestamp"},
        {"issued at offset without colon", replace(kMinimal, "11:00:00Z", "11:00:00+0700"),
         "siwe_bad_timestamp"},
        {"expiration not a date",
         replace(kFull, "Expiration Time: 2026-11-27T11:10:00.000Z", "Expiration Time: soon"),
         "siwe_bad_timestamp"},
        {"not before not a date",
         replace(kFull, "Not Before: 2026-11-27T11:00:00.000Z", "Not Before: 1700000000"),
         "siwe_bad_timestamp"},
        {"empty request id", replace(kFull, "Request ID: req-42", "Request ID: "),
         "siwe_bad_request_id"},
        {"request id with a slash", replace(kFull, "Request ID: req-42", "Request ID: a/b"),
         "siwe_bad_request_id"},
        {"resource not a URI", replace(kFull, "- https://dash", "- dash"), "siwe_bad_resource"},
        {"empty resource", replace(kFull, "- https://dash.duepay.example/terms", "- "),
         "siwe_bad_resource"},
    };
    for (const auto& c : cases) {
        auto m = parse(c.text);
        ASSERT_FALSE(m) << c.what;
        EXPECT_EQ(m.error().code, c.code) << c.what << ": " << m.error().message;
        EXPECT_FALSE(m.error().message.empty()) << c.what;
    }
}

TEST(SiweParse, AcceptsExactlyTheBound) {
    const std::string base = replace(kMinimal, "\n\n\nURI", "\n\nX\n\nURI");
    const std::string at_bound =
        replace(base, "\nX\n", "\n" + std::string(kMaxMessageBytes - base.size() + 1, 'a') + "\n");
    ASSERT_EQ(at_bound.size(), kMaxMessageBytes);
    EXPECT_TRUE(parse(at_bound));
    auto over = parse(replace(at_bound, "\naa", "\naaa"));
    ASSERT_FALSE(over);
    EXPECT_EQ(over.error().code, "siwe_too_long");
}

TEST(SiweTimestamp, ReadsRfc3339DateTimes) {
    EXPECT_EQ(parse_timestamp_ms("1970-01-01T00:00:00Z"), 0);
    EXPECT_EQ(parse_timestamp_ms("2021-09-30T16:25:24Z"), 1633019124000);
    EXPECT_EQ(parse_timestamp_ms("2021-09-30T16:25:24.5Z"), 1633019124500);
    EXPECT_EQ(parse_timestamp_ms("2021-09-30T16:25:24.123999Z"), 1633019124123);
    EXPECT_EQ(parse_timestamp_ms("2021-09-30T23:25:24+07:00"), 1633019124000);
    EXPECT_EQ(parse_timestamp_ms("2021-09-30T11:55:24-04:30"), 1633019124000);
    EXPECT_EQ(parse_timestamp_ms("2024-02-29T00:00:00Z"), 1709164800000);
    EXPECT_FALSE(parse_timestamp_ms("2023-02-29T00:00:00Z"));
    EXPECT_FALSE(parse_timestamp_ms("1969-12-31T23:59:59Z"));
    EXPECT_FALSE(parse_timestamp_ms("2021-09-30T16:25:60Z"));
    EXPECT_FALSE(parse_timestamp_ms("2021-13-30T16:25:24Z"));
}

// ---- check ----

constexpr std::int64_t kIssued = 1795777200000;  // 2026-11-27T11:00:00Z
constexpr std::int64_t kMinute = 60 * 1000;

Expectations ours() {
    Expectations e;
    e.domain = "dash.duepay.example";
    e.origin = "https://dash.duepay.example";
    e.chain_ids = {ChainId{137}, ChainId{80002}};
    e.nonce = "k3Jd8sQ2pL9x";
    return e;
}

Message full() { return *parse(kFull); }

TEST(SiweCheck, TheFixtureIsWhatTheTimesSay) {
    ASSERT_EQ(parse_timestamp_ms(full().issued_at), kIssued);
}

TEST(SiweCheck, AcceptsOurOwnFreshMessage) {
    EXPECT_EQ(check(full(), ours(), kIssued + kMinute), std::nullopt);
    auto minimal = *parse(kMinimal);
    minimal.nonce = "k3Jd8sQ2pL9x";
    EXPECT_EQ(check(minimal, ours(), kIssued), std::nullopt);
}

struct CheckCase {
    const char* what;
    Message message;
    Expectations expected;
    std::int64_t now;
    const char* code;  // nullptr: accepted
};

Message with(void (*edit)(Message&)) {
    auto m = full();
    edit(m);
    return m;
}
Expectations expecting(void (*edit)(Expectations&)) {
    auto e = ours();
    edit(e);
    return e;
}

TEST(SiweCheck, EachRuleAtItsBoundary) {
    const auto now = kIssued + kMinute;
    const std::vector<CheckCase> cases = {
        {"another domain", with([](Message& m) { m.domain = "evil.example"; }), ours(), now,
         "siwe_wrong_domain"},
        {"our domain with a port", with([](Message& m) { m.domain = "dash.duepay.example:444"; }),
         ours(), now, "siwe_wrong_domain"},
        {"another scheme", with([](Message& m) { m.scheme = "http"; }), ours(), now,
         "siwe_wrong_domain"},
        {"no scheme is fine", with([](Message& m) { m.scheme.reset(); }), ours(), now, nullptr},
        {"URI on another origin", with([](Message& m) { m.uri = "https://evil.example/login"; }),
         ours(), now, "siwe_wrong_uri"},
        {"URI on a lookalike host",
         with([](Message& m) { m.uri = "https://dash.duepay.example.evil.example/"; }), ours(), now,
         "siwe_wrong_uri"},
        {"URI over http", with([](Message& m) { m.uri = "http://dash.duepay.example/login"; }),
         ours(), now, "siwe_wrong_uri"},
        {"URI is the bare origin", with([](Message& m) { m.uri = "https://dash.duepay.example"; }),
         ours(), now, nullptr},
        {"URI with a query", with([](Message& m) { m.uri = "https://dash.duepay.example?x=1"; }),
         ours(), now, nullptr},
        {"a chain we do not accept", with([](Message& m) { m.chain_id = ChainId{1}; }), ours(), now,
         "siwe_wrong_chain"},
        {"our other chain", with([](Message& m) { m.chain_id = ChainId{80002}; }), ours(), now,
         nullptr},
        {"another nonce", full(), expecting([](Expectations& e) { e.nonce = "k3Jd8sQ2pL9y"; }), now,
         "siwe_nonce_mismatch"},
        {"nonce differs in case", full(),
         expecting([](Expectations& e) { e.nonce = "K3Jd8sQ2pL9x"; }), now, "siwe_nonce_mismatch"},
        {"no nonce issued", with([](Message& m) { m.nonce = ""; }),
         expecting([](Expectations& e) { e.nonce = ""; }), now, "siwe_nonce_mismatch"},
        {"a hand-made bad timestamp", with([](Message& m) { m.issued_at = "yesterday"; }), ours(),
         now, "siwe_bad_timestamp"},
        {"issued at the skew bound", full(), ours(), kIssued - kMinute, "siwe_not_yet_valid"},
        {"issued beyond the skew", full(), ours(), kIssued - kMinute - 1, "siwe_issued_in_future"},
        {"issued in the future within skew, no not-before",
         with([](Message& m) { m.not_before.reset(); }), ours(), kIssued - kMinute, nullptr},
        {"at not-before", full(), ours(), kIssued, nullptr},
        {"one ms before not-before",
         with([](Message& m) { m.not_before = "2026-11-27T11:00:00.001Z"; }), ours(), kIssued,
         "siwe_not_yet_valid"},
        {"one ms before expiry", full(), ours(), kIssued + 10 * kMinute - 1, nullptr},
        {"at expiry", full(), ours(), kIssued + 10 * kMinute, "siwe_expired"},
        {"expiry earlier than max age",
         with([](Message& m) { m.expiration_time = "2026-11-27T11:05:00Z"; }), ours(),
         kIssued + 5 * kMinute, "siwe_expired"},
        {"exactly max age, no expiry", with([](Message& m) { m.expiration_time.reset(); }), ours(),
         kIssued + 10 * kMinute, nullptr},
        {"one ms over max age", with([](Message& m) { m.expiration_time.reset(); }), ours(),
         kIssued + 10 * kMinute + 1, "siwe_too_old"},
        {"older than a shorter max age", full(),
         expecting([](Expectations& e) { e.max_age_ms = kMinute; }), kIssued + 2 * kMinute,
         "siwe_too_old"},
        {"issued-at in another offset", with([](Message& m) {
             m.issued_at = "2026-11-27T18:00:00+07:00";
             m.not_before.reset();
         }),
         ours(), kIssued, nullptr},
    };
    for (const auto& c : cases) {
        const auto error = check(c.message, c.expected, c.now);
        if (c.code == nullptr) {
            EXPECT_EQ(error, std::nullopt) << c.what << ": " << error->code;
        } else {
            ASSERT_TRUE(error) << c.what;
            EXPECT_EQ(error->code, c.code) << c.what << ": " << error->message;
            EXPECT_FALSE(error->message.empty());
        }
    }
}

TEST(SiweSigningHash, IsTheEip191HashOfTheText) {
    EXPECT_EQ(signing_hash(full()), evm::personal_message_hash(kFull));
    EXPECT_EQ(to_hex(signing_hash(full())),
              tests::siwe_vectors::kEthersHash);  // what ethers hashes
    auto other = full();
    other.nonce = "k3Jd8sQ2pL9y";
    EXPECT_NE(signing_hash(other), signing_hash(full()));
}

}  // namespace
}  // namespace duepay::domain::accounts::siwe
