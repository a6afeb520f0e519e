// The dashboard's static assets (api/dashboard/static/), compiled into the binary so the role
// serves them from its own origin. Generated from dashboard_assets.cpp.in at configure time.
#pragma once

#include <string_view>

namespace duepay::api::dashboard {

std::string_view dashboard_js();
std::string_view dashboard_css();
// A short hex digest of both, for cache-busting query strings.
std::string_view asset_version();

}  // namespace duepay::api::dashboard
