// The webhook endpoint routes (docs/webhooks.md, schemas/openapi.yaml), scoped by the key's mode:
//   POST   /v1/webhook-endpoints                    {url, events?, description?, mode?} -> 201 +
//   secret GET    /v1/webhook-endpoints[?limit&startingAfter] GET    /v1/webhook-endpoints/:id
//   PATCH  /v1/webhook-endpoints/:id                {url?, events?, description?, status?}
//   DELETE /v1/webhook-endpoints/:id
//   POST   /v1/webhook-endpoints/:id/rotate-secret  {expiresInSeconds?}
//   POST   /v1/webhook-endpoints/:id/test           -> 202, a webhook.test event queued now
//   GET    /v1/webhook-endpoints/:id/deliveries[?limit&before]
//   POST   /v1/webhook-deliveries/:eventId/redeliver?endpoint=we_...
// ChargesApi hands every path under /v1/webhook- to handle().
#pragma once

#include <functional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/auth.hpp"
#include "api/http/port_names.hpp"

namespace duepay::api {

struct WebhooksApiDeps {
    KeyDirectory* keys = nullptr;
    WebhookEndpoints* endpoints = nullptr;  // infra/postgres/webhook_endpoints.hpp
    bool allow_insecure = false;  // DUEPAY_WEBHOOK_ALLOW_INSECURE=1 (dev stack), test mode only
    std::function<std::int64_t()> now_ms;  // unix milliseconds
    long long retry_after_ms = 1000;       // advertised on 503
};

class WebhooksApi {
  public:
    explicit WebhooksApi(WebhooksApiDeps deps);

    static bool owns(const std::string& path);
    ApiResponse handle(const ApiRequest& request);

  private:
    WebhooksApiDeps deps_;
    Authenticator auth_;
};

}  // namespace duepay::api
