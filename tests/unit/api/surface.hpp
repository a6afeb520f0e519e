// What the api role serves, for unit tests: a Pipeline (api/http/router.hpp) over GET /healthz and
// the routes of the given sub-APIs, with its own key cache over `keys`.
#pragma once

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <utility>

#include "api/http/auth.hpp"
#include "api/http/router.hpp"
#include "api/http/server.hpp"

namespace duepay::api::test {

class Surface {
  public:
    // With a key cache of its own over `keys`.
    template <class... Apis>
    explicit Surface(KeyDirectory& keys, Apis&... apis)
        : owned_(std::make_unique<Authenticator>(keys)), key_cache_(owned_.get()) {
        build(apis...);
    }
    // With the given key cache (one an AccountApi also tells of its changes).
    template <class... Apis>
    explicit Surface(Authenticator& key_cache, Apis&... apis) : key_cache_(&key_cache) {
        build(apis...);
    }

    void handle(const ApiRequest& request, Responder respond) {
        pipeline_->handle(request, std::move(respond));
    }

    // The one answer of a request whose route answers before it returns.
    ApiResponse call(const ApiRequest& request) {
        std::optional<ApiResponse> out;
        int answers = 0;
        handle(request, [&](ApiResponse r) {
            ++answers;
            out = std::move(r);
        });
        EXPECT_EQ(answers, 1) << "the responder must be called exactly once";
        return out.value_or(ApiResponse{});
    }

    Authenticator& key_cache() { return *key_cache_; }

  private:
    template <class... Apis>
    void build(Apis&... apis) {
        RouteTable routes;
        add_health_route(routes);
        (apis.add_routes(routes), ...);
        pipeline_ = std::make_unique<Pipeline>(std::move(routes), key_cache_, PipelineSettings{});
    }

    std::unique_ptr<Authenticator> owned_;
    Authenticator* key_cache_;
    std::unique_ptr<Pipeline> pipeline_;
};

}  // namespace duepay::api::test
