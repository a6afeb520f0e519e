// Sign-In with Ethereum (EIP-4361) messages, the pure part (docs/adr/0210-siwe-messages.md): the
// message, its one canonical text (`format`), the strict inverse (`parse`), the rules the merchant
// dashboard applies before it trusts a signed message (`check`) and the EIP-191 hash the wallet
// signs (`signing_hash`). No clock, no randomness: `now` and the nonce are arguments. Recovering
// the signer needs the curve library: infra/crypto `recover_signer(signing_hash(m), signature)`.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::domain::accounts::siwe {

// The largest text `parse` accepts, in bytes. A sign-in message is a few hundred bytes; the bound
// keeps a hostile body from costing more than that.
inline constexpr std::size_t kMaxMessageBytes = 4096;

// The fields of EIP-4361, in the order of its text. Timestamps are kept as the RFC 3339 text the
// wallet signed (so `format(parse(t)) == t`); `check` reads them.
struct Message {
    std::optional<std::string> scheme;     // "https" when the first line is "https://{domain} ..."
    std::string domain;                    // RFC 3986 authority, e.g. "dash.duepay.example"
    Address address;                       // written in its EIP-55 form
    std::optional<std::string> statement;  // one line; absent when nullopt or empty
    std::string uri;                       // RFC 3986 URI, e.g. "https://dash.duepay.example/login"
    std::string version = "1";             // always "1"
    ChainId chain_id;                      // positive
    std::string nonce;                     // >= 8 ASCII letters and digits
    std::string issued_at;                 // RFC 3339 date-time
    std::optional<std::string> expiration_time;
    std::optional<std::string> not_before;
    std::optional<std::string> request_id;              // RFC 3986 pchars, non-empty
    std::optional<std::vector<std::string>> resources;  // URIs; an empty list is "Resources:"

    bool operator==(const Message&) const = default;
};

// The EIP-4361 text of `message`, lines separated by LF, no trailing LF. Writes the fields as they
// are: a message that `parse` would refuse (a bad nonce, say) formats into a text `parse` refuses.
std::string format(const Message& message);

// The strict inverse of `format`: accepts exactly the EIP-4361 grammar, and `format(*parse(t))`
// equals `t` for every accepted `t`. Errors, in the order they are found:
//   siwe_too_long (over kMaxMessageBytes), siwe_control_character (a byte below 0x20 other than LF,
//   or DEL), siwe_malformed (non-ASCII, a missing, extra or out-of-order line, a wrong label),
//   siwe_bad_domain, siwe_bad_address (not 0x + 40 hex in its EIP-55 form), siwe_bad_statement,
//   siwe_bad_uri, siwe_bad_version (not "1"), siwe_bad_chain_id (not a positive decimal integer
//   without leading zeros that fits 64 bits), siwe_bad_nonce, siwe_bad_timestamp (not an RFC 3339
//   date-time), siwe_bad_request_id, siwe_bad_resource.
Result<Message> parse(std::string_view text);

// What the dashboard knows when it checks a sign-in.
struct Expectations {
    std::string domain;              // our authority, e.g. "dash.duepay.example"
    std::string origin;              // our origin, e.g. "https://dash.duepay.example"
    std::vector<ChainId> chain_ids;  // the chains we accept a sign-in on
    std::string nonce;               // the nonce we issued for this sign-in
    std::int64_t max_age_ms = std::int64_t{10} * 60 * 1000;  // issued-at no older than this
    std::int64_t max_skew_ms = std::int64_t{60} * 1000;  // issued-at at most this far in the future
};

// nullopt when a message signed by its address may sign that address in at `now_ms` (unix
// milliseconds); otherwise the first rule broken, in this order:
//   siwe_wrong_domain (domain differs, or a scheme other than the origin's), siwe_wrong_uri (the
//   URI's origin is not ours), siwe_wrong_chain, siwe_nonce_mismatch, siwe_bad_timestamp (a
//   timestamp that is not RFC 3339), siwe_issued_in_future (issued-at > now + max_skew_ms),
//   siwe_too_old (now - issued-at > max_age_ms), siwe_not_yet_valid (now < not-before),
//   siwe_expired (now >= expiration-time).
std::optional<Error> check(const Message& message, const Expectations& expected,
                           std::int64_t now_ms);

// The EIP-191 personal_sign hash of `format(message)`: the digest whose signature's recovered
// signer must equal `message.address`.
Bytes32 signing_hash(const Message& message);

// An RFC 3339 date-time ("2026-11-27T11:00:00Z", "2026-11-27T18:00:00.5+07:00") -> unix
// milliseconds (fraction digits past the third truncated); nullopt when it is not one, has a
// second of 60, or lies before 1970.
std::optional<std::int64_t> parse_timestamp_ms(std::string_view text);

}  // namespace duepay::domain::accounts::siwe
