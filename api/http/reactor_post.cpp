#include "api/http/reactor_post.hpp"

#include <pistache/async.h>
#include <sys/timerfd.h>
#include <unistd.h>

#include <memory>
#include <optional>
#include <utility>

namespace duepay::api {
namespace {

constexpr int kNotATimer = -1;

}  // namespace

void post_to_reactor(Pistache::Tcp::Transport* transport, std::chrono::milliseconds delay,
                     std::function<void()> fn) {
    const bool now = delay.count() <= 0;
    const int fd = now ? kNotATimer : ::timerfd_create(CLOCK_MONOTONIC, TFD_NONBLOCK | TFD_CLOEXEC);
    if (fd < 0 && !now) return;
    auto run = [fn = std::make_shared<std::function<void()>>(std::move(fn))] {
        try {
            (*fn)();
        } catch (...) {
            // fn answers requests; a failure there must not unwind into Pistache's loop
        }
    };
    // The continuation is attached before the timer is armed, so it always runs on the reactor.
    std::optional<Pistache::Async::Deferred<uint64_t>> deferred;
    Pistache::Async::Promise<uint64_t> promise(
        [&](Pistache::Async::Deferred<uint64_t> d) { deferred.emplace(std::move(d)); });
    if (now) {
        promise.then([run](uint64_t) { run(); }, [run](std::exception_ptr) { run(); });
    } else {
        promise.then(
            [fd, run](uint64_t) {
                ::close(fd);
                run();
            },
            [fd](std::exception_ptr) { ::close(fd); });
    }
    transport->armTimer(fd, now ? std::chrono::milliseconds(1) : delay, std::move(*deferred));
}

}  // namespace duepay::api
