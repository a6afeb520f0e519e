// The public routes of `duepay checkout` (docs/design.md, Hosted checkout; docs/checkout.md),
// independent of Pistache so their rules are unit-tested with doubles:
//   GET /c/:invoiceId                  the page (HTML, rendered here; works without JavaScript)
//   GET /v1/checkout/:invoiceId        the public charge in the envelope (JSON)
//   GET /static/checkout.{js,css}, /static/accent/RRGGBB.css   assets from our own origin
// (the SSE route GET /v1/checkout/:invoiceId/events is served by CheckoutServer, which asks
// these routes for each event's view). They run on the HTTP pipeline (api/http/router.hpp) with
// no API key (docs/product.md, Keys and modes); a per-client token bucket answers 429
// rate_limited in the envelope; every answer carries a strict CSP.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "api/checkout/checkout_page.hpp"
#include "api/checkout/checkout_view.hpp"
#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"

namespace duepay::api::checkout {

// A token bucket per client address: `burst` requests at once, refilled at `per_minute`.
// In memory, per process (each checkout process limits on its own; docs/checkout.md).
class ClientRateLimiter {
  public:
    ClientRateLimiter(double per_minute, double burst)
        : per_ms_(per_minute / 60000.0), burst_(burst) {}
    // 0 when allowed, else the milliseconds until the next request would be.
    long long take(const std::string& client, std::int64_t now_ms);

  private:
    struct Bucket {
        double tokens = 0;
        std::int64_t at_ms = 0;
    };
    double per_ms_;
    double burst_;
    std::mutex mutex_;
    std::unordered_map<std::string, Bucket> buckets_;
};

struct CheckoutResponse {
    int status = 200;
    std::string content_type;
    std::string body;
    std::map<std::string, std::string> headers;
};

struct CheckoutDeps {
    CheckoutReader* reader = nullptr;
    ChainHeads* heads = nullptr;  // null: confirmations seen are not shown
    const infra::config::ChainRegistry* chains = nullptr;
    const ports::Signer* signer = nullptr;  // null: no wallet rail
    std::function<std::string(std::string_view text, std::string_view title)> qr_svg;
    std::function<std::int64_t()> now_ms;
    ClientRateLimiter* limiter = nullptr;  // null: no rate limit
    std::string asset_version = "1";
};

// The security headers of every checkout response (CSP without inline script, no framing).
std::map<std::string, std::string> security_headers();

// The project's accent colour as a stylesheet, so a page needs no inline style (CSP): for a file
// name "RRGGBB.css" (six hex digits), ":root{--accent:#RRGGBB}"; nullopt for any other name. The
// checkout's and the dashboard's /static/accent/:file.
std::optional<std::string> accent_stylesheet(std::string_view file);

class CheckoutRoutes {
  public:
    explicit CheckoutRoutes(CheckoutDeps deps);

    // Adds the routes above (and GET /healthz: add_health_route, api/http/router.hpp); this
    // object must outlive the table.
    void add_routes(RouteTable& routes);
    // The checkout surface's pipeline steps: the per-client bucket before routing (429), the
    // security headers and `cache-control: no-store` on every answer that sets none, HEAD as GET.
    PipelineSettings pipeline_settings();

    // The rate limit of one request from `request.remote`; nullopt: allowed.
    std::optional<ApiResponse> limited(const ApiRequest& request);

    // The current view of a charge (nullopt: unknown id). Throws ports::StoreUnavailable.
    std::optional<CheckoutView> view(const std::string& invoice_id);

    // "0x" + 64 hex digits, lower-cased; nullopt when `raw` is not an invoice id.
    static std::optional<std::string> normalise_id(std::string_view raw);

  private:
    CheckoutResponse page(const std::string& raw_id, const ApiRequest& request);
    CheckoutResponse json(const std::string& raw_id);
    CheckoutResponse asset(const std::string& path);

    CheckoutDeps deps_;
};

}  // namespace duepay::api::checkout
