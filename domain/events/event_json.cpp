// Encoder: writes the canonical form straight into a std::string, in chunks. (rapidjson::Writer
// was measured first: it copies byte by byte through the stream and spent ~2/3 of the encode
// time there; the canonical form is simple, and its string escaping is tested byte for byte
// against rapidjson::Writer.) Decoder: RapidJSON in-situ DOM parse of a private copy into stack
// buffers (no heap for typical events), then one pass over each object's members with a
// bitmask for duplicates and missing fields. Unknown fields are rejected (the schemas say
// additionalProperties: false). Internally a failure throws DecodeError, caught in decode_event
// and returned as a Result, so the happy path carries no error plumbing.
#include "domain/events/event_json.hpp"

#include <array>
#include <bit>
#include <cstring>
#include <limits>

// RapidJSON is compiled here into a private namespace with its SSE2 string and whitespace
// scanners switched on (SSE2 is part of x86-64). The private namespace keeps these template
// instantiations apart from the default-configured RapidJSON of other translation units (no ODR
// clash). Sanitizer builds keep the scalar code: the SIMD scan reads whole aligned 16-byte blocks.
#if defined(__SSE2__) && !defined(__SANITIZE_ADDRESS__)
#define RAPIDJSON_SSE2
#endif
#define RAPIDJSON_NAMESPACE duepay_events_rapidjson
#define RAPIDJSON_NAMESPACE_BEGIN namespace duepay_events_rapidjson {
#define RAPIDJSON_NAMESPACE_END }
#include <rapidjson/document.h>
#include <rapidjson/error/en.h>
#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>
namespace rapidjson = duepay_events_rapidjson;

#include "domain/hex.hpp"
#include "domain/money/token_amount.hpp"
#include "domain/text.hpp"

namespace duepay::domain::events {

namespace {

// ---------------------------------------------------------------------------------------------
// Encoding

constexpr char kHexDigits[] = "0123456789abcdef";

class Encoder {
  public:
    explicit Encoder(std::string& out) : out_(out) {}

    // Keys are short literals: one append of ,"key":
    void key(std::string_view k) {
        char buf[32];
        if (k.size() > sizeof buf - 4) {  // metadata keys (up to 40 of [A-Za-z0-9_.-])
            if (!first_) out_.push_back(',');
            first_ = false;
            word(k);
            out_.push_back(':');
            return;
        }
        std::size_t n = 0;
        if (!first_) buf[n++] = ',';
        first_ = false;
        buf[n++] = '"';
        std::memcpy(buf + n, k.data(), k.size());
        n += k.size();
        buf[n++] = '"';
        buf[n++] = ':';
        out_.append(buf, n);
    }
    void str(std::string_view s) { append_json_string(out_, s); }
    // Enum words and numbers ([a-z_.0-9/]): nothing to escape.
    void word(std::string_view s) {
        out_.push_back('"');
        out_.append(s);
        out_.push_back('"');
    }
    void null() { out_.append("null", 4); }
    void u64(std::uint64_t v) {
        char buf[20];
        std::size_t n = 0;
        do {
            buf[19 - n++] = static_cast<char>('0' + v % 10);
            v /= 10;
        } while (v != 0);
        out_.append(buf + 20 - n, n);
    }
    void begin() {
        out_.push_back('{');
        first_ = true;
    }
    void end() {
        out_.push_back('}');
        first_ = false;
    }

    void hex(std::span<const std::uint8_t> bytes) {
        char buf[2 + 2 + 2 * 32];
        buf[0] = '"';
        buf[1] = '0';
        buf[2] = 'x';
        for (std::size_t i = 0; i < bytes.size(); ++i) {
            buf[3 + 2 * i] = kHexDigits[bytes[i] >> 4];
            buf[4 + 2 * i] = kHexDigits[bytes[i] & 0x0f];
        }
        buf[3 + 2 * bytes.size()] = '"';
        out_.append(buf, 4 + 2 * bytes.size());
    }
    void address(const Address& a) { hex(a.bytes); }
    void amount(const TokenAmount& a) {
        out_.push_back('"');
        money::append_decimal(out_, a.value);
        out_.push_back('"');
    }
    void dec_u64(std::uint64_t v) {
        out_.push_back('"');
        u64(v);
        out_.push_back('"');
    }

  private:
    std::string& out_;
    bool first_ = true;
};

void encode_payment_fields(Encoder& e, const Payment& p) {
    e.key("rail"), e.word(to_string(p.rail));
    e.key("txHash"), e.hex(p.tx_hash);
    e.key("logIndex"), e.u64(p.log_index);
    e.key("blockNumber"), e.u64(p.block_number);
    e.key("blockHash"), e.hex(p.block_hash);
    e.key("from"), e.address(p.from);
    e.key("token"), e.address(p.token);
    e.key("amount"), e.amount(p.amount);
}

void encode_fiat(Encoder& e, const FiatQuote& f) {
    e.begin();
    e.key("currency"), e.word(money::to_string(f.amount.currency));
    e.key("amount"), e.word(money::to_string(f.amount));
    e.key("tokenAmount"), e.amount(f.token_amount);
    e.key("rate"), e.word(money::to_string(f.rate));
    e.key("rateSource"), e.str(f.rate_source);
    e.key("bufferBps"), e.u64(f.buffer_bps);
    e.key("rateReadAt"), e.str(f.rate_read_at);
    e.end();
}
void encode_metadata_object(Encoder& e, const Metadata& m) {
    e.begin();
    for (const auto& [key, value] : m) {
        e.key(key);
        e.str(value);
    }
    e.end();
}

void encode_data(Encoder& e, const ChargeCreated& d) {
    e.key("amount"), e.amount(d.amount);
    e.key("token"), e.address(d.token);
    e.key("tokenSymbol"), e.str(d.token_symbol);
    e.key("tokenDecimals"), e.u64(d.token_decimals);
    e.key("paymentMode"), e.word(to_string(d.payment_mode));
    e.key("merchant"), e.address(d.merchant);
    e.key("feeBps"), e.u64(d.fee_bps);
    e.key("deadline"), e.dec_u64(d.deadline);
    e.key("graceSeconds"), e.u64(d.grace_seconds);
    e.key("depositAddress");
    d.deposit_address ? e.address(*d.deposit_address) : e.null();
    e.key("reference");
    d.reference ? e.str(*d.reference) : e.null();
    e.key("returnUrl");
    d.return_url ? e.str(*d.return_url) : e.null();
    e.key("fiat");
    d.fiat ? encode_fiat(e, *d.fiat) : e.null();
    if (d.metadata.empty()) return;  // optional: events without it stay as they were
    e.key("metadata");
    encode_metadata_object(e, d.metadata);
}
void encode_data(Encoder& e, const PaymentDetected& d) { encode_payment_fields(e, d.payment); }
void encode_data(Encoder& e, const DepositSeen& d) { encode_payment_fields(e, d.payment); }
void encode_data(Encoder& e, const LateDeposit& d) { encode_payment_fields(e, d.payment); }
void encode_data(Encoder& e, const PaymentReorged& d) {
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("logIndex"), e.u64(d.log_index);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("blockHash"), e.hex(d.block_hash);
}
void encode_data(Encoder& e, const ChargePaid& d) {
    encode_payment_fields(e, d.payment);
    e.key("confirmedTotal"), e.amount(d.confirmed_total);
}
void encode_data(Encoder& e, const ChargeUnderpaid& d) {
    encode_payment_fields(e, d.payment);
    e.key("confirmedTotal"), e.amount(d.confirmed_total);
}
void encode_data(Encoder& e, const ChargeExpired& d) {
    e.key("deadline"), e.dec_u64(d.deadline);
    e.key("graceSeconds"), e.u64(d.grace_seconds);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("blockTimestamp"), e.u64(d.block_timestamp);
}
void encode_data(Encoder& e, const ChargeSettled& d) {
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("depositAddress"), e.address(d.deposit_address);
    e.key("token"), e.address(d.token);
    e.key("amount"), e.amount(d.amount);
}
void encode_data(Encoder& e, const RefundRequested& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
}
void encode_data(Encoder& e, const RefundRejected& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("reason"), e.word(to_string(d.reason));
}
void encode_data(Encoder& e, const ChargeRefunded& d) {
    e.key("refundId"), e.word(d.refund_id);
    e.key("txHash"), e.hex(d.tx_hash);
    e.key("logIndex"), e.u64(d.log_index);
    e.key("blockNumber"), e.u64(d.block_number);
    e.key("to"), e.address(d.to);
    e.key("token"), e.address(d.token);
    e.key("amount"), e.amount(d.amount);
}
void encode_data(Encoder& e, const ChargeFailed& d) {
    encode_payment_fields(e, d.payment);
    e.key("reason"), e.word(to_string(d.reason));
}

// ---------------------------------------------------------------------------------------------
// Decoding

struct DecodeError {
    std::string message;
};

using Allocator = rapidjson::MemoryPoolAllocator<>;
using Document = rapidjson::GenericDocument<rapidjson::UTF8<>, Allocator, Allocator>;
using Value = rapidjson::GenericValue<rapidjson::UTF8<>, Allocator>;

// Where a value sits, for messages: "data.fiat" + "amount" -> "data.fiat.amount".
struct Path {
    std::string_view parent;
    std::string_view name;
    std::string str() const {
        if (parent.empty()) return std::string(name);
        std::string s(parent);
        s += '.';
        s += name;
        return s;
    }
};

[[noreturn]] void fail(const Path& at, std::string_view what) {
    throw DecodeError{at.str() + ": " + std::string(what)};
}

std::string_view as_string(const Value& v, const Path& at) {
    if (!v.IsString()) fail(at, "must be a string");
    return {v.GetString(), v.GetStringLength()};
}

std::uint64_t as_u64(const Value& v, const Path& at,
                     std::uint64_t max = std::numeric_limits<std::uint64_t>::max()) {
    if (!v.IsUint64()) fail(at, "must be a non-negative integer");
    const std::uint64_t x = v.GetUint64();
    if (x > max) fail(at, "must be at most " + std::to_string(max));
    return x;
}

// Unix seconds as a canonical decimal string that fits 64 bits.
std::uint64_t as_dec_u64(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (s.empty() || s.size() > 20)
        fail(at, "must be a decimal-integer string of at most 20 digits");
    if (s.size() > 1 && s[0] == '0') fail(at, "must not have leading zeros");
    std::uint64_t x = 0;
    for (char c : s) {
        if (c < '0' || c > '9') fail(at, "must be a decimal-integer string");
        const std::uint64_t d = static_cast<std::uint64_t>(c - '0');
        if (x > (std::numeric_limits<std::uint64_t>::max() - d) / 10)
            fail(at, "does not fit 64 bits");
        x = x * 10 + d;
    }
    return x;
}

TokenAmount as_amount(const Value& v, const Path& at) {
    auto r = money::parse_token_amount(as_string(v, at));
    if (!r) fail(at, r.error().message);
    return *r;
}

// Lower-case hex digit values; -1 for everything else (upper case included: canonical form).
constexpr std::array<std::int8_t, 256> kNibble = [] {
    std::array<std::int8_t, 256> t{};
    t.fill(-1);
    for (int c = '0'; c <= '9'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - '0');
    for (int c = 'a'; c <= 'f'; ++c)
        t[static_cast<std::size_t>(c)] = static_cast<std::int8_t>(c - 'a' + 10);
    return t;
}();

int lower_nibble(char c) { return kNibble[static_cast<unsigned char>(c)]; }

// Eight lower-case hex characters -> four bytes, SWAR on one 64-bit word (little-endian hosts).
// Per byte b (< 0x80): b >= lo  <=>  high bit of b + (0x80 - lo);  b > hi  <=>  high bit of
// b + (0x7f - hi); neither sum carries into the next byte.
bool hex8_to_4(const char* p, std::uint8_t* out) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    std::uint64_t w;
    std::memcpy(&w, p, 8);
    if (w & kHigh) return false;
    const auto in_range = [&](std::uint64_t lo, std::uint64_t hi) {
        return (w + (0x80 - lo) * kOnes) & ~(w + (0x7f - hi) * kOnes) & kHigh;
    };
    const std::uint64_t digit = in_range('0', '9');
    const std::uint64_t alpha = in_range('a', 'f');
    if ((digit | alpha) != kHigh) return false;
    const std::uint64_t nib =
        (w & 0x0f0f0f0f0f0f0f0fULL) + (alpha >> 7) * 9;  // 'a' (0x61) -> 1 + 9
    std::uint64_t z =
        ((nib << 4) | (nib >> 8)) & 0x00ff00ff00ff00ffULL;  // byte 2j = n[2j]<<4 | n[2j+1]
    z = (z | (z >> 8)) & 0x0000ffff0000ffffULL;
    z = (z | (z >> 16)) & 0xffffffffULL;
    const auto packed = static_cast<std::uint32_t>(z);
    std::memcpy(out, &packed, 4);
    return true;
}

template <std::size_t N>
std::array<std::uint8_t, N> as_lower_hex(const Value& v, const Path& at, std::string_view what) {
    static_assert(N % 4 == 0);
    const auto s = as_string(v, at);
    std::array<std::uint8_t, N> out{};
    if (s.size() != 2 + 2 * N || s[0] != '0' || s[1] != 'x') fail(at, what);
    if constexpr (std::endian::native == std::endian::little) {
        for (std::size_t i = 0; i < N; i += 4) {
            if (!hex8_to_4(s.data() + 2 + 2 * i, out.data() + i)) fail(at, what);
        }
    } else {
        int bad = 0;
        for (std::size_t i = 0; i < N; ++i) {
            const int hi = lower_nibble(s[2 + 2 * i]);
            const int lo = lower_nibble(s[3 + 2 * i]);
            bad |= hi | lo;  // any -1 sets the sign bit
            out[i] = static_cast<std::uint8_t>(hi << 4 | lo);
        }
        if (bad < 0) fail(at, what);
    }
    return out;
}

Address as_address(const Value& v, const Path& at) {
    return Address{as_lower_hex<20>(v, at, "must be a lower-case 0x address of 40 hex digits")};
}
Bytes32 as_bytes32(const Value& v, const Path& at) {
    return as_lower_hex<32>(v, at, "must be lower-case 0x hex of 64 digits");
}

std::string_view as_utf8(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    // The same rule as the API's (domain/text.hpp): what Postgres text and jsonb store.
    if (!is_storable_text(s)) fail(at, "must be valid UTF-8 without NUL characters");
    return s;
}

std::string_view as_text(const Value& v, const Path& at, std::size_t max_bytes) {
    const auto s = as_utf8(v, at);
    if (s.empty()) fail(at, "must not be empty");
    if (s.size() > max_bytes) fail(at, "must be at most " + std::to_string(max_bytes) + " bytes");
    return s;
}

std::string_view as_timestamp(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    if (!is_rfc3339_millis_utc(s))
        fail(at, "must be an RFC 3339 UTC time with milliseconds (2026-01-31T12:00:00.000Z)");
    return s;
}

// Ids are printable tokens: UUIDs, 0x hashes, "prefix:suffix" forms.
constexpr std::array<bool, 256> kIdChar = [] {
    std::array<bool, 256> t{};
    for (int c = '0'; c <= '9'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = 'a'; c <= 'z'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (int c = 'A'; c <= 'Z'; ++c) t[static_cast<std::size_t>(c)] = true;
    for (char c : {'-', '_', ':', '.'}) t[static_cast<unsigned char>(c)] = true;
    return t;
}();

std::string_view as_id(const Value& v, const Path& at) {
    const auto s = as_string(v, at);  // ASCII-only by the charset, so no UTF-8 check needed
    if (s.empty()) fail(at, "must not be empty");
    if (s.size() > 128) fail(at, "must be at most 128 bytes");
    bool ok = true;
    for (char c : s) ok &= kIdChar[static_cast<unsigned char>(c)];
    if (!ok) fail(at, "may contain only letters, digits and - _ : .");
    return s;
}

// "rf_" + 24 lower-case hex digits (domain::charge::refund_id).
std::string_view as_refund_id(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    bool ok = s.size() == 27 && s.starts_with("rf_");
    for (std::size_t i = 3; ok && i < s.size(); ++i)
        ok = (s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f');
    if (!ok) fail(at, "must be \"rf_\" followed by 24 lower-case hex digits");
    return s;
}

RefundRejection as_refund_rejection(const Value& v, const Path& at) {
    const auto s = as_string(v, at);
    for (auto r : {RefundRejection::not_found, RefundRejection::transaction_failed,
                   RefundRejection::no_transfer, RefundRejection::wrong_token,
                   RefundRejection::wrong_sender, RefundRejection::exceeds_paid}) {
        if (s == to_string(r)) return r;
    }
    fail(at, "must be a refund rejection reason");
}

// One pass over an object's members: each must be one of `names`, at most once; all required
// but those whose bit is set in `Optional`.
template <std::uint32_t Optional = 0, std::size_t N, class OnField>
void read_object(const Value& v, const Path& at, const std::array<std::string_view, N>& names,
                 OnField&& on_field) {
    static_assert(N <= 32);
    if (!v.IsObject()) fail(at, "must be an object");
    const std::string path = at.str();
    std::uint32_t seen = 0;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view key(it->name.GetString(), it->name.GetStringLength());
        std::size_t i = 0;
        while (i < N && names[i] != key) ++i;
        if (i == N) fail(Path{path, key}, "unknown field");
        if (seen & (1u << i)) fail(Path{path, key}, "duplicate field");
        seen |= 1u << i;
        on_field(i, it->value, Path{path, names[i]});
    }
    for (std::size_t i = 0; i < N; ++i) {
        if (!(seen & (1u << i)) && !(Optional & (1u << i))) fail(Path{path, names[i]}, "missing");
    }
}

constexpr std::size_t kPaymentFields = 8;
constexpr std::array<std::string_view, kPaymentFields> kPaymentNames = {
    "rail", "txHash", "logIndex", "blockNumber", "blockHash", "from", "token", "amount"};

template <std::size_t Extra>
constexpr std::array<std::string_view, kPaymentFields + Extra> payment_names_plus(
    const std::array<std::string_view, Extra>& extra) {
    std::array<std::string_view, kPaymentFields + Extra> out{};
    for (std::size_t i = 0; i < kPaymentFields; ++i) out[i] = kPaymentNames[i];
    for (std::size_t i = 0; i < Extra; ++i) out[kPaymentFields + i] = extra[i];
    return out;
}

void read_payment_field(std::size_t i, const Value& v, const Path& at, Payment& p) {
    switch (i) {
        case 0: {
            const auto s = as_string(v, at);
            if (s == "wallet")
                p.rail = Rail::wallet;
            else if (s == "transfer")
                p.rail = Rail::transfer;
            else
                fail(at, "must be \"wallet\" or \"transfer\"");
            break;
        }
        case 1:
            p.tx_hash = as_bytes32(v, at);
            break;
        case 2:
            p.log_index = static_cast<std::uint32_t>(
                as_u64(v, at, std::numeric_limits<std::uint32_t>::max()));
            break;
        case 3:
            p.block_number = as_u64(v, at);
            break;
        case 4:
            p.block_hash = as_bytes32(v, at);
            break;
        case 5:
            p.from = as_address(v, at);
            break;
        case 6:
            p.token = as_address(v, at);
            break;
        case 7:
            p.amount = as_amount(v, at);
            break;
        default:
            break;
    }
}

Payment read_payment(const Value& v, const Path& at) {
    Payment p;
    read_object(v, at, kPaymentNames, [&](std::size_t i, const Value& f, const Path& fp) {
        read_payment_field(i, f, fp, p);
    });
    return p;
}

Payment read_transfer_payment(const Value& v, const Path& at) {
    Payment p = read_payment(v, at);
    if (p.rail != Rail::transfer)
        fail(Path{at.str(), "rail"}, "must be \"transfer\" for a deposit");
    return p;
}

FiatQuote read_fiat(const Value& v, const Path& at) {
    static constexpr std::array<std::string_view, 7> kNames = {
        "currency", "amount", "tokenAmount", "rate", "rateSource", "bufferBps", "rateReadAt"};
    FiatQuote q;
    std::string_view amount_text;
    read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
        switch (i) {
            case 0: {
                auto c = money::parse_fiat_currency(as_string(f, fp));
                if (!c) fail(fp, c.error().message);
                q.amount.currency = *c;
                break;
            }
            case 1:
                amount_text = as_string(f, fp);
                break;
            case 2:
                q.token_amount = as_amount(f, fp);
                break;
            case 3: {
                auto r = money::parse_rate(as_string(f, fp));
                if (!r) fail(fp, r.error().message);
                q.rate = *r;
                break;
            }
            case 4:
                q.rate_source = as_text(f, fp, 64);
                break;
            case 5:
                q.buffer_bps = static_cast<std::uint32_t>(as_u64(f, fp, money::kMaxBufferBps));
                break;
            case 6:
                q.rate_read_at = as_timestamp(f, fp);
                break;
        }
    });
    // The currency may come after the amount in the object, so parse the amount last.
    auto a = money::parse_fiat_amount(q.amount.currency, amount_text);
    if (!a) {
        const std::string parent = at.str();  // (a Path from inside read_object would dangle here)
        fail(Path{parent, "amount"}, a.error().message);
    }
    q.amount = *a;
    return q;
}

// A non-empty object of metadata.hpp's rules (an empty one is written by omitting the field).
Metadata read_metadata(const Value& v, const Path& at) {
    if (!v.IsObject()) fail(at, "must be an object");
    if (v.MemberCount() == 0) fail(at, "must not be empty (omitted when there is none)");
    const std::string path = at.str();
    Metadata m;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view key(it->name.GetString(), it->name.GetStringLength());
        if (!is_metadata_key(key)) fail(at, "keys are 1-40 characters of A-Z a-z 0-9 _ . -");
        const Path value_at{path, key};
        const auto value = as_string(it->value, value_at);
        if (auto problem = metadata_value_problem(value)) fail(value_at, *problem);
        if (!m.emplace(key, value).second) fail(value_at, "duplicate field");
    }
    if (m.size() > kMaxMetadataEntries) fail(at, "holds at most 20 keys");
    return m;
}

ChargeCreated read_created(const Value& v, const Path& at) {
    static constexpr std::array<std::string_view, 14> kNames = {
        "amount",    "token",     "tokenSymbol", "tokenDecimals", "paymentMode",
        "merchant",  "feeBps",    "deadline",    "graceSeconds",  "depositAddress",
        "reference", "returnUrl", "fiat",        "metadata"};
    constexpr std::uint32_t kOptional = 1u << 13;  // metadata: absent when the charge has none
    ChargeCreated d;
    read_object<kOptional>(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
        switch (i) {
            case 0:
                d.amount = as_amount(f, fp);
                if (d.amount.value == 0) fail(fp, "amount must be greater than zero");
                break;
            case 1:
                d.token = as_address(f, fp);
                break;
            case 2:
                d.token_symbol = as_text(f, fp, 32);
                break;
            case 3:
                d.token_decimals =
                    static_cast<std::uint32_t>(as_u64(f, fp, money::kMaxTokenDecimals));
                break;
            case 4: {
                const auto s = as_string(f, fp);
                if (s == "wallet")
                    d.payment_mode = PaymentMode::wallet;
                else if (s == "transfer")
                    d.payment_mode = PaymentMode::transfer;
                else if (s == "both")
                    d.payment_mode = PaymentMode::both;
                else
                    fail(fp, "must be \"wallet\", \"transfer\" or \"both\"");
                break;
            }
            case 5:
                d.merchant = as_address(f, fp);
                break;
            case 6:
                d.fee_bps = static_cast<std::uint32_t>(as_u64(f, fp, 10000));
                break;
            case 7:
                d.deadline = as_dec_u64(f, fp);
                break;
            case 8:
                d.grace_seconds = as_u64(f, fp);
                break;
            case 9:
                if (!f.IsNull()) d.deposit_address = as_address(f, fp);
                break;
            case 10:
                if (!f.IsNull()) {
                    const auto s = as_utf8(f, fp);
                    if (utf8_code_points(s) > 255) fail(fp, "must be at most 255 characters");
                    d.reference = std::string(s);
                }
                break;
            case 11:
                if (!f.IsNull()) d.return_url = std::string(as_text(f, fp, 2048));
                break;
            case 12:
                if (!f.IsNull()) d.fiat = read_fiat(f, fp);
                break;
            case 13:
                d.metadata = read_metadata(f, fp);
                break;
        }
    });
    const std::string path = at.str();
    if (d.payment_mode == PaymentMode::wallet && d.deposit_address)
        fail(Path{path, "depositAddress"}, "must be null when paymentMode is \"wallet\"");
    if (d.payment_mode != PaymentMode::wallet && !d.deposit_address)
        fail(Path{path, "depositAddress"},
             "must be set when paymentMode is \"transfer\" or \"both\"");
    if (d.fiat && d.fiat->token_amount != d.amount)
        fail(Path{path, "fiat.tokenAmount"}, "must equal data.amount");
    return d;
}

template <class T>
T read_payment_with_total(const Value& v, const Path& at) {
    static constexpr auto kNames = payment_names_plus<1>({"confirmedTotal"});
    T d;
    read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
        if (i < kPaymentFields)
            read_payment_field(i, f, fp, d.payment);
        else
            d.confirmed_total = as_amount(f, fp);
    });
    if (d.confirmed_total.value < d.payment.amount.value)
        fail(Path{at.str(), "confirmedTotal"}, "must be at least data.amount");
    return d;
}

EventData read_data(std::string_view type, const Value& v, const Path& at) {
    if (type == ChargeCreated::kType) return read_created(v, at);
    if (type == PaymentDetected::kType) return PaymentDetected{read_payment(v, at)};
    if (type == DepositSeen::kType) return DepositSeen{read_transfer_payment(v, at)};
    if (type == LateDeposit::kType) return LateDeposit{read_transfer_payment(v, at)};
    if (type == ChargePaid::kType) return read_payment_with_total<ChargePaid>(v, at);
    if (type == ChargeUnderpaid::kType) return read_payment_with_total<ChargeUnderpaid>(v, at);
    if (type == PaymentReorged::kType) {
        static constexpr std::array<std::string_view, 4> kNames = {"txHash", "logIndex",
                                                                   "blockNumber", "blockHash"};
        PaymentReorged d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            switch (i) {
                case 0:
                    d.tx_hash = as_bytes32(f, fp);
                    break;
                case 1:
                    d.log_index = static_cast<std::uint32_t>(
                        as_u64(f, fp, std::numeric_limits<std::uint32_t>::max()));
                    break;
                case 2:
                    d.block_number = as_u64(f, fp);
                    break;
                case 3:
                    d.block_hash = as_bytes32(f, fp);
                    break;
            }
        });
        return d;
    }
    if (type == ChargeExpired::kType) {
        static constexpr std::array<std::string_view, 4> kNames = {"deadline", "graceSeconds",
                                                                   "blockNumber", "blockTimestamp"};
        ChargeExpired d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            switch (i) {
                case 0:
                    d.deadline = as_dec_u64(f, fp);
                    break;
                case 1:
                    d.grace_seconds = as_u64(f, fp);
                    break;
                case 2:
                    d.block_number = as_u64(f, fp);
                    break;
                case 3:
                    d.block_timestamp = as_u64(f, fp);
                    break;
            }
        });
        return d;
    }
    if (type == ChargeSettled::kType) {
        static constexpr std::array<std::string_view, 5> kNames = {
            "txHash", "blockNumber", "depositAddress", "token", "amount"};
        ChargeSettled d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            switch (i) {
                case 0:
                    d.tx_hash = as_bytes32(f, fp);
                    break;
                case 1:
                    d.block_number = as_u64(f, fp);
                    break;
                case 2:
                    d.deposit_address = as_address(f, fp);
                    break;
                case 3:
                    d.token = as_address(f, fp);
                    break;
                case 4:
                    d.amount = as_amount(f, fp);
                    break;
            }
        });
        return d;
    }
    if (type == ChargeRefunded::kType) {
        static constexpr std::array<std::string_view, 7> kNames = {
            "refundId", "txHash", "logIndex", "blockNumber", "to", "token", "amount"};
        ChargeRefunded d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            switch (i) {
                case 0:
                    d.refund_id = as_refund_id(f, fp);
                    break;
                case 1:
                    d.tx_hash = as_bytes32(f, fp);
                    break;
                case 2:
                    d.log_index = static_cast<std::uint32_t>(
                        as_u64(f, fp, std::numeric_limits<std::uint32_t>::max()));
                    break;
                case 3:
                    d.block_number = as_u64(f, fp);
                    break;
                case 4:
                    d.to = as_address(f, fp);
                    break;
                case 5:
                    d.token = as_address(f, fp);
                    break;
                case 6:
                    d.amount = as_amount(f, fp);
                    break;
            }
        });
        return d;
    }
    if (type == RefundRequested::kType) {
        static constexpr std::array<std::string_view, 2> kNames = {"refundId", "txHash"};
        RefundRequested d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            if (i == 0) d.refund_id = as_refund_id(f, fp);
            if (i == 1) d.tx_hash = as_bytes32(f, fp);
        });
        return d;
    }
    if (type == RefundRejected::kType) {
        static constexpr std::array<std::string_view, 3> kNames = {"refundId", "txHash", "reason"};
        RefundRejected d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            if (i == 0) d.refund_id = as_refund_id(f, fp);
            if (i == 1) d.tx_hash = as_bytes32(f, fp);
            if (i == 2) d.reason = as_refund_rejection(f, fp);
        });
        return d;
    }
    if (type == ChargeFailed::kType) {
        static constexpr auto kNames = payment_names_plus<1>({"reason"});
        ChargeFailed d;
        read_object(v, at, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
            if (i < kPaymentFields) {
                read_payment_field(i, f, fp, d.payment);
            } else {
                if (as_string(f, fp) != "wrong_token") fail(fp, "must be \"wrong_token\"");
                d.reason = FailureReason::wrong_token;
            }
        });
        return d;
    }
    fail(Path{"", "type"}, "unknown event type");
}

std::string_view known_type(std::string_view type, const Path& at) {
    for (auto t : kEventTypes) {
        if (t == type) return t;
    }
    fail(at, "unknown event type \"" + std::string(type.substr(0, 64)) + "\"");
}

Event read_event(const Value& root, const SchemaVersions& versions) {
    static constexpr std::array<std::string_view, 9> kNames = {
        "id",   "type",    "schemaVersion", "invoiceId", "projectId",
        "mode", "chainId", "occurredAt",    "data"};
    Event e;
    std::string_view type;
    const Value* data = nullptr;
    std::uint32_t version = 0;
    read_object(root, Path{"", ""}, kNames, [&](std::size_t i, const Value& f, const Path& fp) {
        switch (i) {
            case 0:
                e.id = as_id(f, fp);
                break;
            case 1:
                type = known_type(as_string(f, fp), fp);
                break;
            case 2:
                version = f.IsUint() ? f.GetUint() : 0;  // 0: never a version
                break;
            case 3:
                e.invoice_id = InvoiceId{as_bytes32(f, fp)};
                break;
            case 4:
                e.project_id = as_id(f, fp);
                break;
            case 5: {
                const auto s = as_string(f, fp);
                if (s == "test")
                    e.mode = Mode::test;
                else if (s == "live")
                    e.mode = Mode::live;
                else
                    fail(fp, "must be \"test\" or \"live\"");
                break;
            }
            case 6:
                e.chain_id = ChainId{as_u64(f, fp)};
                if (e.chain_id.value == 0) fail(fp, "must be a positive integer");
                break;
            case 7:
                e.occurred_at = as_timestamp(f, fp);
                break;
            case 8:
                data = &f;
                break;
        }
    });
    if (auto error = versions.check(type, version)) fail(Path{"", "schemaVersion"}, *error);
    e.schema_version = versions.current(type);
    if (version == e.schema_version) {
        e.data = read_data(type, *data, Path{"", "data"});
        return e;
    }
    // An older version: its data is upcast to the current form first (upcast.hpp, the one place
    // that knows old versions), then read like any current event.
    rapidjson::StringBuffer buffer;
    rapidjson::Writer<rapidjson::StringBuffer> writer(buffer);
    data->Accept(writer);
    std::string text(buffer.GetString(), buffer.GetSize());
    if (auto error = versions.upcast(type, version, text)) {
        fail(Path{"", "schemaVersion"}, *error);
    }
    Document upcast;
    upcast.Parse(text.c_str(), text.size());
    if (upcast.HasParseError()) fail(Path{"", "data"}, "the upcast data is not JSON");
    e.data = read_data(type, upcast, Path{"", "data"});
    return e;
}

}  // namespace

namespace {

void write_event(std::string& out, const Event& event) {
    Encoder e(out);
    e.begin();
    e.key("id"), e.str(event.id);
    e.key("type"), e.word(event_type(event));
    e.key("schemaVersion"), e.u64(event.schema_version);
    e.key("invoiceId"), e.hex(event.invoice_id.bytes);
    e.key("projectId"), e.str(event.project_id);
    e.key("mode"), e.word(to_string(event.mode));
    e.key("chainId"), e.u64(event.chain_id.value);
    e.key("occurredAt"), e.str(event.occurred_at);
    e.key("data");
    e.begin();
    std::visit([&](const auto& d) { encode_data(e, d); }, event.data);
    e.end();
    e.end();
}

}  // namespace

namespace {
// True if any byte of w is < 0x20, '"' or '\\' (SWAR: "has zero byte" after the transforms).
bool needs_escape(std::uint64_t w) {
    constexpr std::uint64_t kOnes = 0x0101010101010101ULL, kHigh = 0x8080808080808080ULL;
    const auto has_zero = [](std::uint64_t x) { return (x - kOnes) & ~x & kHigh; };
    const std::uint64_t control = (w - 0x2020202020202020ULL) & ~w & kHigh;  // bytes < 0x20 (ASCII)
    return (control | has_zero(w ^ (0x22 * kOnes)) | has_zero(w ^ (0x5c * kOnes))) != 0;
}
}  // namespace

void append_json_string(std::string& out, std::string_view s) {
    static constexpr char kUpperHex[] = "0123456789ABCDEF";
    out.push_back('"');
    std::size_t clean_from = 0;
    std::size_t i = 0;
    // Clean 8-byte blocks are skipped whole; a block that may need escaping goes byte by byte.
    while (i + 8 <= s.size()) {
        std::uint64_t w;
        std::memcpy(&w, s.data() + i, 8);
        if (needs_escape(w)) break;
        i += 8;
    }
    for (; i < s.size(); ++i) {
        const auto c = static_cast<unsigned char>(s[i]);
        if (c >= 0x20 && c != '"' && c != '\\') continue;
        out.append(s.data() + clean_from, i - clean_from);
        clean_from = i + 1;
        out.push_back('\\');
        switch (c) {
            case '"':
                out.push_back('"');
                break;
            case '\\':
                out.push_back('\\');
                break;
            case '\b':
                out.push_back('b');
                break;
            case '\f':
                out.push_back('f');
                break;
            case '\n':
                out.push_back('n');
                break;
            case '\r':
                out.push_back('r');
                break;
            case '\t':
                out.push_back('t');
                break;
            default:
                out.append("u00", 3);
                out.push_back(kUpperHex[c >> 4]);
                out.push_back(kUpperHex[c & 0x0f]);
        }
    }
    out.append(s.data() + clean_from, s.size() - clean_from);
    out.push_back('"');
}

void encode_event(const Event& event, std::string& out) {
    out.clear();
    write_event(out, event);
}

std::string encode_event(const Event& event) {
    std::string out;
    out.reserve(1024);
    write_event(out, event);
    return out;
}

Result<Event> decode_event(std::string_view json) { return decode_event(json, schema_versions()); }

Result<Event> decode_event(std::string_view json, const SchemaVersions& versions) {
    // In-situ parsing of a private copy: strings stay in the copy instead of being copied into the
    // DOM. Typical events fit these stack buffers, so parsing allocates nothing on the heap.
    if (std::memchr(json.data(), '\0', json.size()) != nullptr)
        return make_error("malformed_event", "malformed event: not valid JSON (NUL byte in input)");
    alignas(16) char input_buffer[4096];
    std::string large_input;
    char* text = input_buffer;
    if (json.size() >= sizeof input_buffer) {
        large_input.assign(json);
        text = large_input.data();
    } else {
        std::memcpy(input_buffer, json.data(), json.size());
        input_buffer[json.size()] = '\0';
    }
    char value_buffer[8192];
    char stack_buffer[1024];
    Allocator value_allocator(value_buffer, sizeof value_buffer);
    Allocator stack_allocator(stack_buffer, sizeof stack_buffer);
    Document doc(&value_allocator, sizeof stack_buffer, &stack_allocator);
    doc.ParseInsitu<rapidjson::kParseDefaultFlags>(text);
    if (doc.HasParseError()) {
        return make_error("malformed_event", std::string("malformed event: not valid JSON (") +
                                                 rapidjson::GetParseError_En(doc.GetParseError()) +
                                                 " at offset " +
                                                 std::to_string(doc.GetErrorOffset()) + ")");
    }
    try {
        return read_event(doc, versions);
    } catch (const DecodeError& err) {
        return make_error("malformed_event", "malformed event: " + err.message);
    }
}

std::string encode_fiat_quote(const FiatQuote& quote) {
    std::string out;
    Encoder e(out);
    encode_fiat(e, quote);
    return out;
}

std::string encode_metadata(const Metadata& metadata) {
    std::string out;
    Encoder e(out);
    encode_metadata_object(e, metadata);
    return out;
}

}  // namespace duepay::domain::events
