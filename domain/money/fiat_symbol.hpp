// How people write a fiat currency before an amount (the hosted checkout's "฿45.50 THB"): beside
// the currencies of fiat.hpp, in a header of its own so the event model's includes stay as they
// are.
#pragma once

#include <string_view>

#include "domain/money/fiat.hpp"

namespace duepay::domain::money {

// "\u0e3f" (THB, the baht sign), "$" (USD).
std::string_view currency_symbol(FiatCurrency currency);

}  // namespace duepay::domain::money
