// The dashboard role: the merchant dashboard (api/dashboard; docs/dashboard.md) wired to Postgres
// (sessions, projects, members, keys: infra/accounts/pg_dashboard) and the signature recovery of
// infra/crypto, from the environment: DATABASE_URL, DUEPAY_SERVER_SECRET (test keys are derived
// from it, as `duepay admin` derives them), DUEPAY_CHAINS_FILE (a sign-in message may name
// Ethereum mainnet or any chain of the registry), DUEPAY_DASHBOARD_URL (its public origin,
// default http://127.0.0.1:8082), DUEPAY_DASHBOARD_LISTEN (default: the host:port of that URL),
// DUEPAY_DASHBOARD_THREADS (2), DUEPAY_DASHBOARD_DB_POOL (4), DUEPAY_DASHBOARD_IDLE_SECONDS
// (1800) and DUEPAY_DASHBOARD_ABSOLUTE_SECONDS (43200), DUEPAY_BASE_URL (the API, shown in the
// first-charge example), DUEPAY_ACCESS_LOG (1). `duepay dashboard`, and one of `duepay dev`'s.
#pragma once

#include <atomic>
#include <string>

namespace duepay::consumers {

struct DashboardOptions {
    std::string listen;  // host:port; empty: the environment's
    int threads = 0;     // 0: the environment's
    // Inside `duepay dev`: a taken port logs and idles instead of stopping the other roles.
    bool listener_optional = false;
};

// Serves until `stop` is set. Throws ConfigError on a missing or bad setting.
int run_dashboard(const DashboardOptions& options, const std::atomic<bool>& stop);

}  // namespace duepay::consumers
