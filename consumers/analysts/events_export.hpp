// `duepay events export`: streams the topic's events to stdout or a file as JSON Lines (the
// canonical event JSON, one per line) or CSV (domain/events/event_csv.hpp). The time range picks
// offsets by Kafka's offsets for times (no scan from zero); the end is fixed when the export
// starts, so an export is a bounded snapshot of a growing topic. Progress on stderr.
// docs/analysts.md.
#pragma once

#include "consumers/cli/command.hpp"

namespace duepay::consumers {

cli::Run define_events(CLI::App& cmd);

}  // namespace duepay::consumers
