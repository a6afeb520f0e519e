// The API speaks its ports' vocabulary. The ports live in domain/ports (ADR 0182, ADR 0207); in
// duepay::api (and api::checkout) their names are used unqualified, as they were when the ports
// lived here: ChargeView, KeyOwner, EventLog, CheckoutReader, ...
#pragma once

#include "domain/ports/api.hpp"
#include "domain/ports/checkout.hpp"
#include "domain/ports/event_log.hpp"

namespace duepay::api {
using namespace duepay::ports;  // NOLINT(google-build-using-namespace): one vocabulary
}  // namespace duepay::api
