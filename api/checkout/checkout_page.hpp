// The server-rendered checkout page and the 404 page (docs/checkout.md): pure functions of a
// CheckoutView, the language, the time and the QR drawing.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "api/checkout/checkout_messages.hpp"
#include "api/checkout/checkout_view.hpp"

namespace duepay::api::checkout {

// The full HTML page. `qr_svg` is the QR of view.payment_uri (empty: none); `now_unix` fills the
// initial countdown; `asset_version` busts caches of /static/*.
std::string render_page(const CheckoutView& view, Lang lang, std::int64_t now_unix,
                        std::string_view qr_svg, std::string_view asset_version);

// The 404 page for an unknown or malformed invoice id.
std::string render_not_found(Lang lang, std::string_view asset_version);

// "1h 02m 05s"-style text of a remaining duration (0 and below: "0s").
std::string format_remaining(std::int64_t seconds);

}  // namespace duepay::api::checkout
