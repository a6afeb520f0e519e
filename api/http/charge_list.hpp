// GET /v1/charges (docs/api.md "Listing charges"): the query parameters,
// validated, and the opaque keyset cursor. Pure (no I/O, no clock), so every rule is unit-tested;
// ChargesApi runs the query (the ChargeLister port) and renders the page.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "domain/result.hpp"

namespace duepay::api {

using ListPosition = ChargeListQuery::After;

inline constexpr std::size_t kDefaultListLimit = 20;
inline constexpr std::size_t kMaxListLimit = 100;

// "c1_" + 80 lower-case hex digits: created_at (unix microseconds, 8 bytes big-endian) and the
// invoice id (32 bytes). Opaque to clients: the format may change with its version prefix.
std::string encode_list_cursor(const ListPosition& position);
// nullopt for anything encode_list_cursor cannot have produced.
std::optional<ListPosition> decode_list_cursor(std::string_view cursor);

// RFC 3339 date-time ("2026-11-23T10:00:00Z", "2026-11-23T17:00:00.5+07:00"; T or t, Z or z),
// years 0001-9999, seconds 00-59, up to 9 fraction digits (cut to microseconds) -> unix
// microseconds; nullopt when malformed or out of range.
std::optional<std::int64_t> parse_rfc3339_micros(std::string_view text);

// The query of GET /v1/charges for `owner`'s project and mode: `limit` (1-100, default 20),
// `cursor`, `status`, `createdGte`, `createdLt`, `reference`, `chainId`, `metadata[<key>]`.
// `limit` of the result is the page size. Rejections (the error's code; REST answers 400):
// unknown_field, invalid_limit, invalid_cursor, invalid_status, invalid_timestamp,
// invalid_reference, invalid_chain_id, invalid_metadata; a parameter given twice is refused with
// its own code.
domain::Result<ChargeListQuery> parse_list_query(const ApiRequest& request, const KeyOwner& owner);

}  // namespace duepay::api
