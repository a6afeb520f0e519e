// Roles run together and the one signal waiter (process.hpp).
#include "consumers/cli/process.hpp"

#include <chrono>
#include <exception>

#include "infra/log/log.hpp"

namespace duepay::cli {
namespace {
constexpr infra::log::Logger kLog{"duepay"};  // the process itself (its roles log as themselves)
}  // namespace

int run_together(std::vector<Part> parts, const std::atomic<bool>& stop) {
    std::atomic<bool> local{false};
    std::atomic<std::size_t> running{parts.size()};
    std::vector<int> codes(parts.size(), 0);
    std::vector<std::exception_ptr> errors(parts.size());
    std::vector<std::thread> threads;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        threads.emplace_back([&, i] {
            try {
                codes[i] = parts[i].run(local);
            } catch (const std::exception& e) {
                kLog.error() << "duepay: " << parts[i].name << ": " << e.what();
                errors[i] = std::current_exception();
                codes[i] = 1;
            }
            if (parts[i].essential) {
                local = true;
            } else if (!local && codes[i] != 0) {
                kLog.warn() << "duepay: " << parts[i].name << " ended (exit code " << codes[i]
                            << "); the other roles keep running";
            }
            --running;
        });
    }
    while (!stop && !local && running > 0) {
        std::this_thread::sleep_for(std::chrono::milliseconds(100));
    }
    local = true;
    for (auto& t : threads) t.join();
    bool all_extras_failed = true;
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if (parts[i].essential && errors[i]) std::rethrow_exception(errors[i]);
        if (parts[i].essential || codes[i] == 0) all_extras_failed = false;
    }
    for (std::size_t i = 0; i < parts.size(); ++i) {
        if ((parts[i].essential || all_extras_failed) && codes[i] != 0) return codes[i];
    }
    return 0;
}

SignalWaiter::SignalWaiter(std::atomic<bool>& stop) : stop_(stop) {
    sigemptyset(&set_);
    sigaddset(&set_, SIGINT);
    sigaddset(&set_, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &set_, nullptr);
    thread_ = std::thread([this] {
        int sig = 0;
        sigwait(&set_, &sig);
        if (!stop_) kLog.info() << "duepay: signal " << sig << ", stopping";
        stop_ = true;
    });
}

SignalWaiter::~SignalWaiter() {
    if (!stop_) {
        stop_ = true;
        // SIGTERM is blocked in the waiter thread, which sigwait()s for it: this wakes the waiter
        // (as a real SIGTERM would), it terminates nothing.
        // NOLINTNEXTLINE(bugprone-bad-signal-to-kill-thread): blocked and sigwait()ed, see above
        pthread_kill(thread_.native_handle(), SIGTERM);
    }
    thread_.join();
}

}  // namespace duepay::cli
