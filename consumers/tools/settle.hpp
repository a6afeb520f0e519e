// duepay settle <invoiceId> [--send]: the calldata of DepositFactory.settle for a charge's deposit
// address (anyone may send it); --send sends it from a dev buyer key and waits for the receipt.
// charge.settled is appended by chainwatch when it confirms the factory's Settled event (one
// writer of chain facts; docs/adr/0061).
#pragma once

#include "consumers/cli/command.hpp"

namespace duepay::consumers {

// `duepay settle <invoiceId> [--send]`.
cli::Run define_settle(CLI::App& cmd);

}  // namespace duepay::consumers
