// The strict reader of event JSON (internal to domain/events): a RapidJSON DOM, scalar readers
// that accept only the canonical form, and read_fields, which walks one object against a field
// table (each field's name beside its setter). A failure throws DecodeError naming the field;
// decode_event turns it into a Result, so the happy path carries no error plumbing.
//
// RapidJSON is compiled into a private namespace with its SSE2 string and whitespace scanners
// switched on (SSE2 is part of x86-64). The private namespace keeps these template
// instantiations apart from the default-configured RapidJSON of other translation units (no ODR
// clash); every translation unit of domain/events that parses includes it through this header
// only, so they all see one configuration. Sanitizer builds keep the scalar code: the SIMD scan
// reads whole aligned 16-byte blocks.
#pragma once

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

#include <array>
#include <cstdint>
#include <limits>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>

#include "domain/events/event.hpp"

namespace duepay::domain::events::detail {

namespace rapidjson = ::duepay_events_rapidjson;

// The event is not what its schema allows (a rejected input, hence std::invalid_argument);
// `message` names the field, what() says the same.
struct DecodeError : std::invalid_argument {
    explicit DecodeError(const std::string& text) : std::invalid_argument(text), message(text) {}
    std::string message;
};

using Allocator = rapidjson::MemoryPoolAllocator<>;
using Document = rapidjson::GenericDocument<rapidjson::UTF8<>, Allocator, Allocator>;
using Value = rapidjson::GenericValue<rapidjson::UTF8<>, Allocator>;

// Where a value sits, for messages: "data.fiat" + "amount" -> "data.fiat.amount".
struct Path {
    std::string_view parent;
    std::string_view name;
    std::string str() const;
};

[[noreturn]] void fail(const Path& at, std::string_view what);

inline std::string_view as_string(const Value& v, const Path& at) {
    if (!v.IsString()) fail(at, "must be a string");
    return {v.GetString(), v.GetStringLength()};
}

std::uint64_t as_u64(const Value& v, const Path& at);
std::uint64_t as_u64_at_most(const Value& v, const Path& at, std::uint64_t max);
std::uint32_t as_u32(const Value& v, const Path& at);
// Unix seconds as a canonical decimal string that fits 64 bits.
std::uint64_t as_dec_u64(const Value& v, const Path& at);
TokenAmount as_amount(const Value& v, const Path& at);
Address as_address(const Value& v, const Path& at);
Bytes32 as_bytes32(const Value& v, const Path& at);
// Valid UTF-8 without NUL (domain/text.hpp: what Postgres text and jsonb store).
std::string_view as_utf8(const Value& v, const Path& at);
// as_utf8, not empty, at most max_bytes.
std::string_view as_text(const Value& v, const Path& at, std::size_t max_bytes);
// RFC 3339 UTC with milliseconds.
std::string_view as_timestamp(const Value& v, const Path& at);
// A printable token of at most 128 bytes (UUIDs, 0x hashes, "prefix:suffix" forms).
std::string_view as_id(const Value& v, const Path& at);
// "rf_" + 24 lower-case hex digits.
std::string_view as_refund_id(const Value& v, const Path& at);

// null, or what Read reads.
template <auto Read>
auto or_null(const Value& v, const Path& at) -> std::optional<decltype(Read(v, at))> {
    if (v.IsNull()) return std::nullopt;
    return Read(v, at);
}

// One member of a JSON object read into T: its name beside what sets it.
template <class T>
struct Field {
    std::string_view name;
    void (*read)(T& into, const Value& value, const Path& at);
    bool optional = false;  // may be absent (otherwise a missing member is an error)
};

// The setter of a field stored as read: {"txHash", store<&T::tx_hash, as_bytes32>}.
template <auto Member, auto Read, class T>
void store(T& into, const Value& v, const Path& at) {
    into.*Member = Read(v, at);
}

// One pass over an object's members: each must be named in `fields`, at most once; every field
// not marked optional must be there.
template <class T, std::size_t N>
void read_fields(const Value& v, const Path& at, const std::array<Field<T>, N>& fields, T& into) {
    static_assert(N <= 32);
    if (!v.IsObject()) fail(at, "must be an object");
    const std::string path = at.str();
    std::uint32_t seen = 0;
    for (auto it = v.MemberBegin(); it != v.MemberEnd(); ++it) {
        const std::string_view key(it->name.GetString(), it->name.GetStringLength());
        std::size_t i = 0;
        while (i < N && fields[i].name != key) ++i;
        if (i == N) fail(Path{path, key}, "unknown field");
        seen |= 1u << i;  // a name is never seen twice: the bounded parse refused repeats
        fields[i].read(into, it->value, Path{path, fields[i].name});
    }
    for (std::size_t i = 0; i < N; ++i) {
        if (!(seen & (1u << i)) && !fields[i].optional) fail(Path{path, fields[i].name}, "missing");
    }
}

template <class T, std::size_t N>
T read_as(const Value& v, const Path& at, const std::array<Field<T>, N>& fields) {
    T into{};
    read_fields(v, at, fields, into);
    return into;
}

// Two tables as one (a shared prefix, then a type's own fields).
template <class T, std::size_t A, std::size_t B>
constexpr std::array<Field<T>, A + B> concat(const std::array<Field<T>, A>& a,
                                             const std::array<Field<T>, B>& b) {
    std::array<Field<T>, A + B> out{};
    for (std::size_t i = 0; i < A; ++i) out[i] = a[i];
    for (std::size_t i = 0; i < B; ++i) out[A + i] = b[i];
    return out;
}

}  // namespace duepay::domain::events::detail
