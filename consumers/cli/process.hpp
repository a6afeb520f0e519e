// The process machinery of the composition root (main.cpp): several roles run together on their
// own threads, and the one signal mechanism of every role (SIGINT/SIGTERM set a stop flag).
#pragma once

#include <pthread.h>

#include <atomic>
#include <csignal>
#include <string>
#include <thread>
#include <vector>

#include "consumers/cli/command.hpp"

namespace duepay::cli {

// One role among several in a process. An essential part ending (returning or throwing) stops
// the others; an extra (a chainwatch in `duepay dev`, one chain of several) ends alone, logged,
// and the others keep running.
struct Part {
    std::string name;
    Run run;
    bool essential = true;
};

// Runs each part on its own thread until `stop` is set, an essential part ends, or every part
// has ended. Rethrows the first exception of an essential part, else returns the first non-zero
// exit code of an essential part (extras: 0 when some other part kept running, else theirs).
int run_together(std::vector<Part> parts, const std::atomic<bool>& stop);

// SIGINT/SIGTERM are blocked in every thread (create this before any other thread) and taken by
// one waiter thread that sets `stop`. The destructor wakes and joins the waiter.
class SignalWaiter {
  public:
    explicit SignalWaiter(std::atomic<bool>& stop);
    ~SignalWaiter();
    SignalWaiter(const SignalWaiter&) = delete;
    SignalWaiter& operator=(const SignalWaiter&) = delete;

  private:
    std::atomic<bool>& stop_;
    sigset_t set_{};
    std::thread thread_;
};

}  // namespace duepay::cli
