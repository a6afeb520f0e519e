// A charge's resolution as the API, the read model, the dashboard and the webhooks show it
// (docs/api.md "Exceptions", ADR 0230):
//   {"exception":"partial","refundId":null,"note":"...","resolvedBy":{"kind":"wallet",
//    "id":"0xAbC...(EIP-55)"},"resolvedAt":"2026-11-22T10:00:00.000Z"}
// A wallet's address is shown in EIP-55, a key by its id; the dashboard session is never shown.
#pragma once

#include <string>

#include "domain/charge/charge_state.hpp"

namespace duepay::domain::charge {

std::string resolution_json(const Resolution& resolution);

// The actor as people read it: a wallet's EIP-55 address, or the key id.
std::string actor_display(const events::Actor& actor);

}  // namespace duepay::domain::charge
