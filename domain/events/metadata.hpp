// A merchant's own order data on a charge (docs/api.md "Metadata", ADR 0160): up to 20
// string values under keys of 1-40 characters of [A-Za-z0-9_.-], values up to 500 characters
// (code points, never bytes) of storable text (domain/text.hpp). One rule for the API request,
// the decider and the event codec, so nothing reaches the topic that the rules refuse.
#pragma once

#include <cstddef>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "domain/result.hpp"

namespace duepay::domain::events {

// Sorted by key: the canonical order of the event's JSON object.
using Metadata = std::map<std::string, std::string>;

inline constexpr std::size_t kMaxMetadataEntries = 20;
inline constexpr std::size_t kMaxMetadataKeyChars = 40;
inline constexpr std::size_t kMaxMetadataValueChars = 500;

// 1-40 characters, each of [A-Za-z0-9_.-].
bool is_metadata_key(std::string_view key);

// Why `value` is not a metadata value (storable text of at most 500 characters), or nullopt.
std::optional<std::string> metadata_value_problem(std::string_view value);

// The first rule `metadata` breaks, as an error with code `invalid_metadata` naming the key
// (keys are echoed only when they are valid keys), or nullopt when it is valid.
std::optional<Error> check_metadata(const Metadata& metadata);

}  // namespace duepay::domain::events
