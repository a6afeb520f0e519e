// Schema evolution of events, in one place (docs/analysts.md "Schema evolution", ADR 0121). The
// topic keeps every event ever written, so a consumer replaying it meets every version of a type.
// Writers write each type at its current version; the decoder (event_json_read.cpp) accepts every
// version from 1 to the current one and, before reading an older one, rewrites its `data` object
// step by step (v1 -> v2 -> ...) with the upcasters of a SchemaVersions. Nothing else in the code
// knows an old version. An upcaster is total and deterministic (no clock, no lookup), so a replay
// always builds the same read model. Upcasting is rare (old events only), so upcasters work on the
// JSON text of `data` and may use any JSON library.
#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace duepay::domain::events {

// Turns the `data` JSON of `type` at version `from` into version `from + 1`, in place; an error
// message when the old data cannot be upcast (the event is then malformed).
struct Upcaster {
    std::string_view type;
    std::uint32_t from = 1;
    std::optional<std::string> (*apply)(std::string& data_json) = nullptr;
};

// A set of upcasters; a type's current version is 1 + the number of its upcasters, which chain
// from 1 (from = 1, 2, ...).
class SchemaVersions {
  public:
    constexpr explicit SchemaVersions(std::span<const Upcaster> upcasters)
        : upcasters_(upcasters) {}

    std::uint32_t current(std::string_view type) const;

    // nullopt when `version` of `type` can be read (1 to current), else the message.
    std::optional<std::string> check(std::string_view type, std::uint32_t version) const;

    // Brings `data_json` of `type` from a checked `version` to the current version; an error
    // message when an upcaster refuses.
    std::optional<std::string> upcast(std::string_view type, std::uint32_t version,
                                      std::string& data_json) const;

  private:
    std::span<const Upcaster> upcasters_;
};

// The versions of this build: no upcaster yet (every type is at version 1). Adding version 2 of a
// type = one entry here, the reader and writer of the new form in event_json_read.cpp and
// event_json_write.cpp, and schemas/events/<type>.v2.json beside the kept v1 file.
const SchemaVersions& schema_versions();

}  // namespace duepay::domain::events
