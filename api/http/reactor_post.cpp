#include "api/http/reactor_post.hpp"

#include <pistache/async.h>

#include <chrono>
#include <memory>
#include <optional>
#include <utility>

namespace duepay::api {
namespace {

constexpr int kNotATimer = -1;

}  // namespace

void post_to_reactor(Pistache::Tcp::Transport* transport, std::function<void()> fn) {
    auto run = [fn = std::make_shared<std::function<void()>>(std::move(fn))] {
        try {
            (*fn)();
        } catch (...) {
            // fn answers requests; a failure there must not unwind into Pistache's loop
        }
    };
    // The continuation is attached before the entry is posted, so it always runs on the reactor.
    std::optional<Pistache::Async::Deferred<uint64_t>> deferred;
    Pistache::Async::Promise<uint64_t> promise(
        [&](Pistache::Async::Deferred<uint64_t> d) { deferred.emplace(std::move(d)); });
    promise.then([run](uint64_t) { run(); }, [run](const std::exception_ptr&) { run(); });
    transport->armTimer(kNotATimer, std::chrono::milliseconds(1), std::move(*deferred));
}

}  // namespace duepay::api
