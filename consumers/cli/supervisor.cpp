// The dev stack's process supervisor (supervisor.hpp).
#include "consumers/cli/supervisor.hpp"

#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <csignal>
#include <cstring>
#include <thread>

#include "infra/log/log.hpp"
#include "infra/metrics/metrics.hpp"

namespace duepay::cli {
namespace {

constexpr infra::log::Logger kLog{"supervisor"};
using Clock = std::chrono::steady_clock;
using namespace std::chrono_literals;

constexpr int kConfigError = 78;        // EX_CONFIG, as main.cpp answers it
constexpr auto kFirstBackoff = 1000ms;  // after a first death
constexpr auto kMaxBackoff = 30000ms;   // while it keeps dying
constexpr auto kStableAfter = 60s;      // a child that lived this long starts over at 1 s
constexpr auto kStopGrace = 10s;        // SIGTERM, then SIGKILL

struct Running {
    const ChildSpec* spec = nullptr;
    pid_t pid = -1;
    Clock::time_point started;
    Clock::time_point restart_at;  // while pid == -1
    std::chrono::milliseconds backoff = kFirstBackoff;
    int restarts = 0;
};

// argv/envp as C arrays, built before fork (the child may only call async-signal-safe functions).
struct CArgs {
    explicit CArgs(const std::vector<std::string>& strings) {
        for (const auto& s : strings) pointers.push_back(const_cast<char*>(s.c_str()));
        pointers.push_back(nullptr);
    }
    std::vector<char*> pointers;
};

pid_t spawn(const ChildSpec& spec, const CArgs& envp) {
    const CArgs argv(spec.argv);
    const pid_t parent = getpid();
    const pid_t pid = fork();
    if (pid != 0) return pid;  // the parent, or -1
    // The child: the signals the parent's SignalWaiter blocks are unblocked again, and the child
    // is told when the supervisor dies (and checks it did not die already).
    sigset_t all;
    sigfillset(&all);
    sigprocmask(SIG_UNBLOCK, &all, nullptr);
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    if (getppid() != parent) _exit(1);
    // A process group of its own: a terminal's Ctrl-C reaches the supervisor only, which stops
    // the children itself (a child ending on its own SIGINT would look like a death).
    setpgid(0, 0);
    execve(spec.program.c_str(), argv.pointers.data(), envp.pointers.data());
    _exit(127);
}

infra::metrics::Counter& restarts_counter(const std::string& role, const char* reason) {
    return infra::metrics::registry().counter(
        "duepay_role_restarts_total",
        "Roles of duepay dev --supervise restarted after they died, by role and reason",
        {{"role", role}, {"reason", reason}});
}

infra::metrics::Gauge& up_gauge(const std::string& role) {
    return infra::metrics::registry().gauge(
        "duepay_role_up", "1 while the role's process runs under duepay dev --supervise",
        {{"role", role}});
}

void start(Running& r, const CArgs& envp) {
    r.pid = spawn(*r.spec, envp);
    r.started = Clock::now();
    if (r.pid < 0) {
        kLog.error() << "could not start role " << r.spec->role << ": " << std::strerror(errno);
        r.restart_at = Clock::now() + r.backoff;
        return;
    }
    up_gauge(r.spec->role).set(1);
    kLog.info() << "role " << r.spec->role << " started (pid " << r.pid << ")";
}

void stop_all(std::vector<Running>& running) {
    for (auto& r : running) {
        if (r.pid > 0) kill(r.pid, SIGTERM);
    }
    const auto deadline = Clock::now() + kStopGrace;
    for (;;) {
        bool any = false;
        for (auto& r : running) {
            if (r.pid <= 0) continue;
            int status = 0;
            if (waitpid(r.pid, &status, WNOHANG) == r.pid) {
                up_gauge(r.spec->role).set(0);
                r.pid = -1;
            } else {
                any = true;
            }
        }
        if (!any) return;
        if (Clock::now() >= deadline) {
            for (auto& r : running) {
                if (r.pid <= 0) continue;
                kLog.warn() << "role " << r.spec->role << " did not stop within 10 s: SIGKILL";
                kill(r.pid, SIGKILL);
                waitpid(r.pid, nullptr, 0);
                r.pid = -1;
            }
            return;
        }
        std::this_thread::sleep_for(50ms);
    }
}

}  // namespace

std::string describe_wait_status(int status) {
    if (WIFEXITED(status)) return "exit code " + std::to_string(WEXITSTATUS(status));
    if (WIFSIGNALED(status)) {
        const int sig = WTERMSIG(status);
        const char* name = sigabbrev_np(sig);
        std::string out = "killed by " + (name != nullptr ? "SIG" + std::string(name)
                                                          : "signal " + std::to_string(sig));
        if (WCOREDUMP(status)) out += " (core dumped)";
        return out;
    }
    return "status " + std::to_string(status);
}

int supervise(const std::vector<ChildSpec>& children, const std::vector<std::string>& env,
              const std::atomic<bool>& stop) {
    const CArgs envp(env);
    std::vector<Running> running(children.size());
    for (std::size_t i = 0; i < children.size(); ++i) {
        running[i].spec = &children[i];
        restarts_counter(children[i].role, "signal");  // the series exist from the start, at 0
        restarts_counter(children[i].role, "exit");
        start(running[i], envp);
    }
    int result = 0;
    while (!stop) {
        for (auto& r : running) {
            if (r.pid > 0) {
                int status = 0;
                if (waitpid(r.pid, &status, WNOHANG) != r.pid) continue;
                up_gauge(r.spec->role).set(0);
                const pid_t died = r.pid;
                r.pid = -1;
                if (stop) break;
                if (WIFEXITED(status) && WEXITSTATUS(status) == kConfigError) {
                    kLog.error() << "role " << r.spec->role
                                 << " stopped on a configuration error (exit code 78); a restart "
                                    "cannot cure that: stopping every role";
                    result = kConfigError;
                    break;
                }
                const auto lived = Clock::now() - r.started;
                if (lived >= kStableAfter) r.backoff = kFirstBackoff;
                ++r.restarts;
                restarts_counter(r.spec->role, WIFSIGNALED(status) ? "signal" : "exit").inc();
                kLog.error() << "ROLE DIED: " << r.spec->role << " (pid " << died << ") "
                             << describe_wait_status(status) << " after "
                             << std::chrono::duration_cast<std::chrono::seconds>(lived).count()
                             << " s; restarting it in " << r.backoff.count() << " ms (restart "
                             << r.restarts << "); the other roles keep running";
                r.restart_at = Clock::now() + r.backoff;
                r.backoff = std::min(r.backoff * 2, std::chrono::milliseconds(kMaxBackoff));
            } else if (Clock::now() >= r.restart_at) {
                start(r, envp);
            }
        }
        if (result != 0) break;
        std::this_thread::sleep_for(100ms);
    }
    stop_all(running);
    return result;
}

}  // namespace duepay::cli
