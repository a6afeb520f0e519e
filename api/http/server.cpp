#include "api/http/server.hpp"

#include <utility>

#include "api/http/account_api.hpp"
#include "api/http/charges_api.hpp"
#include "api/http/events_api.hpp"
#include "api/http/http_edge.hpp"
#include "api/http/refunds_api.hpp"
#include "api/http/reports_api.hpp"
#include "api/http/webhooks_api.hpp"

namespace duepay::api {

RouteTable api_routes(const ApiSurface& surface) {
    RouteTable routes;
    add_health_route(routes);
    surface.charges.add_routes(routes);
    surface.refunds.add_routes(routes);
    surface.webhooks.add_routes(routes);
    surface.account.add_routes(routes);
    surface.events.add_routes(routes);
    surface.reports.add_routes(routes);
    return routes;
}

ApiServer::ApiServer(const Pipeline& pipeline, ServerSettings settings)
    : pipeline_(pipeline), settings_(std::move(settings)) {}

ApiServer::~ApiServer() { shutdown(); }

void ApiServer::start() {
    EdgeSettings edge;
    edge.listen = settings_.listen;
    edge.threads = settings_.threads;
    edge.access_log = settings_.access_log;
    edge.log_name = "api";
    edge_ = std::make_unique<HttpEdge>(
        edge, [pipeline = &pipeline_](const ApiRequest& request, Responder respond) {
            pipeline->handle(request, std::move(respond));
        });
    edge_->start();
}

void ApiServer::shutdown() {
    if (edge_) {
        edge_->shutdown();
        edge_.reset();
    }
}

}  // namespace duepay::api
