// The events API (docs/events-api.md, schemas/openapi.yaml): the merchant-facing events of the
// key's project and mode, the same ids and bodies the webhooks deliver, whether or not an endpoint
// is registered.
//   GET /v1/events[?limit&cursor&type&createdGte]   newest first, keyset-paged
//   GET /v1/events/:id
// Added to the API's route table (api/http/router.hpp).
#pragma once

#include <cstdint>
#include <optional>
#include <string>

#include "api/http/api_types.hpp"
#include "api/http/port_names.hpp"
#include "api/http/router.hpp"

namespace duepay::api {

struct EventsApiDeps {
    MerchantEvents* events = nullptr;
};

// The opaque nextCursor of a page: hex of "<createdAt ms>:<event id>".
std::string encode_event_cursor(const EventPosition& position);
std::optional<EventPosition> decode_event_cursor(const std::string& text);

class EventsApi {
  public:
    explicit EventsApi(EventsApiDeps deps);

    // Adds GET /v1/events and GET /v1/events/:id; this object must outlive the table.
    void add_routes(RouteTable& routes);

  private:
    ApiResponse list(const ApiRequest& request, const KeyOwner& owner);

    EventsApiDeps deps_;
};

}  // namespace duepay::api
