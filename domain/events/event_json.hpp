// JSON form of events (RapidJSON). Canonical encoding: fields in a fixed order, amounts as
// decimal-integer strings, addresses and hashes as lower-case 0x hex, nullable fields written as
// null, fiat amounts with exactly 2 fraction digits. decode_event accepts exactly what the
// schemas in schemas/events allow, so encode_event(decode_event(x)) == x for canonical x and
// decode_event(encode_event(e)) == e for every valid e.
#pragma once

#include <string>
#include <string_view>

#include "domain/events/event.hpp"
#include "domain/events/upcast.hpp"
#include "domain/result.hpp"

namespace duepay::domain::events {

// Rejects malformed input with code "malformed_event" and a message naming the field
// ("malformed event: data.amount: amount must not be negative or carry a sign").
Result<Event> decode_event(std::string_view json);

// The same with another set of versions (tests of schema evolution; upcast.hpp). An event of an
// older version of its type is upcast to the current form; schema_version is then the current one.
Result<Event> decode_event(std::string_view json, const SchemaVersions& versions);

std::string encode_event(const Event& event);
// Replaces out's content, reusing its capacity.
void encode_event(const Event& event, std::string& out);

// The fiat breakdown exactly as in charge.created's data.fiat (currency, amount, tokenAmount,
// rate, rateSource, bufferBps, rateReadAt): the API and the read model show the same object.
std::string encode_fiat_quote(const FiatQuote& quote);

// Metadata as a JSON object in key order ("{}" when empty): what the read model stores and the
// API, list items and webhook payloads show.
std::string encode_metadata(const Metadata& metadata);

// A JSON string literal for s, escaped exactly as rapidjson::Writer does by default ('"', '\\',
// \b \f \n \r \t, other control bytes as \u00XX; everything else, UTF-8 included, verbatim).
void append_json_string(std::string& out, std::string_view s);

}  // namespace duepay::domain::events
