// The terms a charge may be created with (docs/product.md), one home for the api's create route,
// a project's payment window (domain/accounts) and decide's Create (decide.hpp): how long it may
// stay open and which rails it gets on a chain.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "domain/events/event.hpp"
#include "domain/result.hpp"

namespace duepay::domain::charge {

// A charge expires 1 second to 1 day after its creation (expiresInSeconds; a project's
// paymentWindowSeconds, its default, has the same bounds).
inline constexpr std::uint64_t kMinExpiresInSeconds = 1;
inline constexpr std::uint64_t kMaxExpiresInSeconds = 86400;

constexpr bool expires_in_allowed(std::uint64_t seconds) {
    return seconds >= kMinExpiresInSeconds && seconds <= kMaxExpiresInSeconds;
}

// "wallet", "transfer" or "both" (the text of events::to_string), nullopt for any other text: how
// a create's paymentMode and the read model's payment_mode column are read.
std::optional<events::PaymentMode> parse_payment_mode(std::string_view text);

// The payment mode a charge asking for `requested` gets on a chain: as asked where the chain has
// a transfer rail; without one, `both` falls back to `wallet` and `transfer` is refused
// (transfer_rail_unavailable).
Result<events::PaymentMode> payment_mode_on_chain(events::PaymentMode requested,
                                                  bool transfer_rail);

}  // namespace duepay::domain::charge
