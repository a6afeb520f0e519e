// `duepay charge history <invoiceId> [--at <RFC 3339 time>]`: the charge's events and its status
// as of an instant, folded by domain::charge::fold_as_of (the same apply as the projector, the API
// and webhooks) from the projector's journal of the topic (charge_events, in log order). JSON on
// stdout; docs/analysts.md.
#pragma once

#include "consumers/cli/command.hpp"

namespace duepay::consumers {

cli::Run define_charge(CLI::App& cmd);

}  // namespace duepay::consumers
