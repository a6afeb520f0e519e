// The checkout's static assets (api/checkout/static/), compiled into the binary so the role
// serves them from its own origin with nothing to deploy beside it. Generated from
// checkout_assets.cpp.in at configure time.
#pragma once

#include <string_view>

namespace duepay::api::checkout {

std::string_view checkout_js();
std::string_view checkout_css();
// A short hex digest of both, for cache-busting query strings.
std::string_view asset_version();

}  // namespace duepay::api::checkout
