// The webhook endpoint routes (docs/webhooks.md, schemas/openapi.yaml), scoped by the key's mode:
//   POST   /v1/webhook-endpoints        {url, events?, description?, mode?} -> 201 + secret
//   GET    /v1/webhook-endpoints[?limit&startingAfter]
//   GET    /v1/webhook-endpoints/:id
//   PATCH  /v1/webhook-endpoints/:id                {url?, events?, description?, status?}
//   DELETE /v1/webhook-endpoints/:id
//   POST   /v1/webhook-endpoints/:id/rotate-secret  {expiresInSeconds?}
//   POST   /v1/webhook-endpoints/:id/test           -> 202, a webhook.test event queued now
//   GET    /v1/webhook-endpoints/:id/deliveries[?limit&before]
//   POST   /v1/webhook-deliveries/:eventId/redeliver?endpoint=we_...
// Added to the API's route table (api/http/router.hpp).
#pragma once

#include <functional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"

namespace duepay::api {

struct WebhooksApiDeps {
    WebhookEndpoints* endpoints = nullptr;  // infra/postgres/webhook_endpoints.hpp
    bool allow_insecure = false;  // DUEPAY_WEBHOOK_ALLOW_INSECURE=1 (dev stack), test mode only
    std::function<std::int64_t()> now_ms;  // unix milliseconds
    long long retry_after_ms = 1000;       // advertised on 503
};

class WebhooksApi {
  public:
    explicit WebhooksApi(WebhooksApiDeps deps);

    // Adds the routes above; they use this object, which must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    ApiResponse create(const RouteCall& call);
    ApiResponse list(const RouteCall& call);
    ApiResponse redeliver(const RouteCall& call);
    ApiResponse find(const RouteCall& call, const std::string& id);
    ApiResponse update(const RouteCall& call, const std::string& id);
    ApiResponse remove(const RouteCall& call, const std::string& id);
    ApiResponse rotate(const RouteCall& call, const std::string& id);
    ApiResponse send_test(const RouteCall& call, const std::string& id);
    ApiResponse deliveries(const RouteCall& call, const std::string& id);

    WebhooksApiDeps deps_;
};

}  // namespace duepay::api
