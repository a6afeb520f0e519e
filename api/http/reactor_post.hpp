// Running a function on a Pistache reactor thread from another thread (HttpEdge's answers from the
// API's workers, ADR 0140), through the reactor's own timer queue.
#pragma once

#include <pistache/transport.h>

#include <functional>

namespace duepay::api {

// Runs `fn` on the reactor thread of `transport`, at once, through Pistache's timer queue (an
// eventfd-backed queue the reactor drains at once) without a timer: the entry carries kNotATimer,
// so the reactor's timerfd_settime on it fails and Pistache rejects the entry's promise right
// there, on the reactor thread; `fn` runs from that rejection (a 1 ms timer cost every create
// ~1.1 ms of waiting plus four system calls). Never called on that reactor thread: Pistache would
// arm inline. The caller keeps `transport` alive (HttpEdge holds its mutex and has checked that
// the edge is not stopped). The edge's own 250 ms tick is a timerfd of its transport (ADR 0204).
void post_to_reactor(Pistache::Tcp::Transport* transport, std::function<void()> fn);

}  // namespace duepay::api
