// The flat CSV form of events for `duepay events export --format csv` (docs/analysts.md lists the
// columns and what each type puts in them). One header, one row per event; RFC 4180 quoting;
// amounts are decimal-integer strings, addresses and hashes lower-case 0x hex, empty cells where a
// type has no such field. Pure.
#pragma once

#include <cstdint>
#include <string>

#include "domain/events/event.hpp"

namespace duepay::domain::events {

// "partition,offset,id,type,...\n"
std::string csv_header();

// Appends one row (ending in '\n') for `event`, read at `partition`/`offset` of the topic.
void append_csv_row(std::string& out, const Event& event, std::int32_t partition,
                    std::int64_t offset);

}  // namespace duepay::domain::events
