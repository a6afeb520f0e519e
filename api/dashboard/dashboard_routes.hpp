// The merchant dashboard's routes (docs/dashboard.md), on the HTTP pipeline
// (api/http/router.hpp) with session authentication:
//   GET  /sign-in, GET /auth/siwe/nonce, POST /auth/siwe       sign in with a wallet (EIP-4361)
//   POST /sign-out, POST /sign-out-everywhere
//   GET  /projects, POST /projects                              a user's projects, a new one
//   GET  /p/:projectId[?days=30|90]                             the overview (stats read model)
//   GET  /p/:projectId[/keys|/members|/wallet|/settings|/audit] a project's pages
//   GET  /p/:projectId/charges[/:invoiceId], /charges/find      charges of the mode (REST's
//                                                                filters)
//   GET  /p/:projectId/charges/live                             the list's changes (SSE)
//   GET  /p/:projectId/reports[/settlements.csv]                the settlement report's totals
//                                                               and its CSV (report_routes.hpp)
//   POST /p/:projectId/keys, /keys/:keyId/{reveal,revoke,roll}  keys (a developer and up)
//   POST /p/:projectId/members, /members/:address/remove        the team (an admin and up)
//   POST /p/:projectId/settings                                 settings (an admin and up)
//   POST /p/:projectId/wallet/{challenge,verify}                payout wallet (the owner; JSON)
//   GET|POST /p/:projectId/webhooks[/...]                       webhooks (webhooks_routes.hpp)
//   POST /mode, GET /lang/:code                                 test/live, English/Thai
//   GET  /static/dashboard.{js,css}, /static/accent/RRGGBB.css, GET /healthz
// Every /p/ route asks the store for the user's role first: not a member is 404 (as if the
// project did not exist), a role without the right (domain/accounts/member_role) is 403, and
// nothing runs. The pipeline has already checked the session and, for every POST, its CSRF token
// and origin.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "api/dashboard/live_charges.hpp"
#include "api/dashboard/project_scope.hpp"
#include "api/dashboard/session_auth.hpp"
#include "api/http/router.hpp"
#include "domain/evm/signature.hpp"
#include "domain/ports/dashboard.hpp"
#include "domain/ports/dashboard_webhooks.hpp"
#include "domain/ports/project_stats.hpp"
#include "domain/ports/reports.hpp"
#include "domain/result.hpp"
#include "domain/types.hpp"

namespace duepay::api::dashboard {

struct DashboardDeps {
    ports::DashboardStore* store = nullptr;
    DashboardSessions* sessions = nullptr;
    // The charges pages read what the REST reads read (the same read model and rules).
    ports::ChargeLister* charges = nullptr;
    ports::ChargeReader* charge_reader = nullptr;
    ports::ChargeHistory* history = nullptr;
    // The charges list's live updates (live_charges.hpp); null: the list has none.
    LiveCharges* live = nullptr;
    // The overview's figures: the stats read model (ADR 0245).
    ports::ProjectStats* stats = nullptr;
    // The reports page and its CSV download (report_routes.hpp, docs/reports.md).
    ports::SettlementReports* reports = nullptr;
    // The signer of an EIP-191 digest (infra/crypto in the composition root).
    std::function<domain::Result<domain::Address>(const domain::Bytes32& digest,
                                                  const domain::evm::Signature& signature)>
        recover;
    std::function<std::int64_t()> now_ms;
    // The exceptions page's actions append to the charge's stream (ADR 0230).
    ports::EventLog* log = nullptr;
    std::vector<domain::ChainId> chain_ids;  // the chains a sign-in message may name
    // Each chain's block explorer (the chain registry's explorerUrl, no trailing '/'): the charge
    // page links transactions there (domain::explorer_tx_url); a chain absent has none.
    std::map<std::uint64_t, std::string> explorers;
    std::string api_url = "http://127.0.0.1:8080";  // shown in the first-charge example
    std::string asset_version = "1";
    // The webhooks pages and the charge page's deliveries (webhooks_routes.hpp); none without.
    ports::DashboardWebhooks* webhooks = nullptr;
    bool webhook_allow_insecure = false;  // DUEPAY_WEBHOOK_ALLOW_INSECURE=1, test mode only
};

// The security headers of every dashboard answer (the checkout's: a CSP without inline script or
// style, no framing; but referrer-policy same-origin, so that our forms carry our Origin) and no
// caching.
PipelineSettings dashboard_pipeline_settings();

class DashboardRoutes {
  public:
    explicit DashboardRoutes(DashboardDeps deps);
    // Adds every route above; this object must outlive the table.
    void add_routes(RouteTable& routes);

    // The sign-in nonce's life and a message's largest age.
    static constexpr int kNonceTtlSeconds = 300;

  private:
    DashboardDeps deps_;
    ProjectScope scope_;  // the guard of every /p/:projectId route
};

}  // namespace duepay::api::dashboard
