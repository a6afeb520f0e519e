// The building blocks every page of the dashboard is made of (dashboard_pages.cpp and the feature
// pages beside it, e.g. webhooks_pages.cpp): the document around a page's content (header, mode
// switch, project nav), the CSRF field of a form, a table that scrolls on a narrow screen, the
// error line and the copy button. Each escapes what it writes.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "api/dashboard/dashboard_pages.hpp"

namespace duepay::api::dashboard {

struct Html {
    std::string out;
    Html& operator<<(std::string_view s) {
        out += s;
        return *this;
    }
};

std::string csrf_field(const Chrome& c);
// The whole document: head, header, nav, and `main` inside <main>.
std::string layout(const Chrome& c, std::string_view title, std::string_view main);
// A table in a region that scrolls sideways (closed by kTableClose after the body's rows).
std::string table_open(std::string_view label, std::string_view test);
inline constexpr std::string_view kTableClose = "</tbody></table></div>";
std::string error_block(const std::optional<std::string>& error);
std::string copy_button(Lang L, std::string_view target);

}  // namespace duepay::api::dashboard
