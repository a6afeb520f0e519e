// The dashboard's pages, rendered on the server as whole HTML documents that read without
// JavaScript (docs/dashboard.md). The script (static/dashboard.js) is only for what a wallet must
// sign and for the copy buttons; the stylesheet and the script come from our own origin, so the
// CSP allows no inline script or style. Every text is escaped here; every visible word comes from
// dashboard_messages in the page's language. Pure: the routes fetch, these functions render.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "api/dashboard/dashboard_messages.hpp"
#include "domain/charge/charge_state.hpp"
#include "domain/ports/api.hpp"
#include "domain/ports/dashboard.hpp"

namespace duepay::api::dashboard {

// What every signed-in page shows around its content.
struct Chrome {
    Lang lang = Lang::en;
    std::string csrf;     // the session's CSRF token: <meta name="csrf-token"> and each form
    std::string address;  // the signed-in wallet (EIP-55)
    ports::Mode mode = ports::Mode::test;
    std::string path;  // this page's path (the mode and language switches come back here)
    std::string asset_version;
    std::optional<ports::ProjectMembership> project;  // inside a project: its name and our role
    std::string section;                              // the project nav entry to mark current
};

std::string sign_in_page(Lang lang, std::string_view asset_version);
std::string projects_page(const Chrome& c, const std::vector<ports::ProjectMembership>& projects,
                          const std::optional<std::string>& error);
// The project's overview: its facts, `figures` (overview_pages.hpp) and, while the mode has no
// charge (`first_steps`), the first-charge guidance, which alone reads `keys`.
std::string project_home(const Chrome& c, const ports::ProjectView& project,
                         const std::vector<ports::KeySummary>& keys, std::string_view api_url,
                         std::string_view figures, bool first_steps);

struct KeysPage {
    std::vector<ports::KeySummary> keys;  // of the chrome's mode
    std::optional<ports::CreatedKey> created;
    std::optional<std::pair<std::string, std::string>> revealed;  // key id, secret
    bool can_manage = false;
    std::optional<std::string> error;
};
std::string keys_page(const Chrome& c, const KeysPage& page);

std::string members_page(const Chrome& c, const std::vector<ports::Member>& members,
                         bool can_manage, const std::optional<std::string>& error);
std::string wallet_page(const Chrome& c, const ports::ProjectView& project, bool is_owner);
std::string settings_page(const Chrome& c, const ports::ProjectView& project, bool can_manage,
                          const std::optional<std::string>& error, bool saved);
std::string audit_page(const Chrome& c, const std::vector<ports::AuditEntry>& entries);

// The charges of the chrome's mode, newest first, with the REST list's filters (`filters`: the
// query parameters as given, shown back in the form) and a link to the next page.
struct ChargesPage {
    std::vector<ports::ListedCharge> charges;
    std::vector<std::pair<std::string, std::string>> filters;
    std::optional<std::string> next_cursor;  // the next page's cursor, when there is one
    std::optional<std::string> error;        // a refused filter, as the REST list words it
    // Set when the list updates itself: the render time (ms), from which the page asks
    // /charges/live for changes.
    std::optional<std::int64_t> live_since_ms;
};
std::string charges_page(const Chrome& c, const ChargesPage& page);

// One charge: what the REST read shows, and its events in log order.
struct ChargeTimelineEntry {
    std::string occurred_at;
    std::string type;
    std::string detail;  // a resolution: its note and who wrote it (ADR 0230); else empty
};
// The charge page's payments and refunds, and its record-a-refund form.
struct ChargeMoney {
    std::vector<domain::charge::PaymentRecord> payments;  // in the order first seen
    std::vector<domain::charge::RefundRecord> refunds;    // in request order
    std::string explorer_url;  // the chain's block explorer; empty: none (hashes as plain text)
    // The form shows: decide would take a refund request (something is refundable) and the role
    // may record one.
    bool refund_form = false;
    std::optional<std::string> error;   // a refused refund, in decide's words
    std::optional<std::string> notice;  // a refund just recorded
};
// `sections`: more of the page after the events (the webhook deliveries: webhooks_pages.hpp).
std::string charge_page(const Chrome& c, const ports::ChargeView& charge,
                        const std::vector<ChargeTimelineEntry>& timeline, const ChargeMoney& money,
                        std::string_view sections = {});

// The signed-in page around `main` (head, header, the project nav, <main>), and a table in a
// region that scrolls sideways (`label` names the region; close it with
// "</tbody></table></div>"): for pages rendered in files of their own (report_page.cpp).

// The charges that need a person (ADR 0230), of the chrome's mode: `resolved` false lists the
// open ones (each with its record-a-refund and resolve forms when `can_act`), true the resolved;
// a page of them, newest first, and a link to the next (ADR 0295).
struct ExceptionsPage {
    std::vector<ports::ListedCharge> charges;
    bool resolved = false;
    bool can_act = false;
    // The next page's cursor (api/http/charge_list.hpp), when older rows follow (ADR 0295).
    std::optional<std::string> next_cursor;
    std::optional<std::string> error;   // a refused action, in decide's words
    std::optional<std::string> notice;  // a done action
};
std::string exceptions_page(const Chrome& c, const ExceptionsPage& page);

// A page with a heading and one paragraph (404, 403 and other refusals of a page).
std::string message_page(const Chrome& c, std::string_view title_key, std::string_view body_key);

}  // namespace duepay::api::dashboard
