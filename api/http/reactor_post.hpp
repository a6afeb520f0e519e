// Running a function on a Pistache reactor thread from another thread (HttpEdge's answers from the
// API's workers, ADR 0140, and its 408 ticks), through the reactor's own timer queue.
#pragma once

#include <pistache/transport.h>

#include <chrono>
#include <functional>

namespace duepay::api {

// Runs `fn` on the reactor thread of `transport` after `delay`, through Pistache's timer queue
// (an eventfd-backed queue the reactor drains at once). Never called on that reactor thread:
// Pistache would arm inline, and arming from inside a timer callback invalidates the iterator
// its timer loop holds. The caller keeps `transport` alive (HttpEdge holds its mutex and
// has checked that the edge is not stopped).
// delay >= 1 ms: a one-shot timerfd; `fn` runs when it fires.
// delay 0 (an answer from another thread, ADR 0140): no timer at all. The entry carries
// kNotATimer, so the reactor's timerfd_settime on it fails at once and Pistache rejects the
// entry's promise right there, on the reactor thread; `fn` runs from that rejection. A 1 ms
// timer cost every create ~1.1 ms of waiting plus four system calls.
void post_to_reactor(Pistache::Tcp::Transport* transport, std::chrono::milliseconds delay,
                     std::function<void()> fn);

}  // namespace duepay::api
