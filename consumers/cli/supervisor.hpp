// The process supervisor of `duepay dev --supervise` (what `make run` starts): each role of the
// dev stack is a child process of its own (`duepay dev --only <role> ...`), so one role crashing
// (a segfault, an abort, an OOM kill) does not take the others with it. A child that dies while
// the supervisor is not stopping is restarted, with a loud error line and a backoff (1 s, doubling
// to 30 s while it keeps dying within a minute), and counted in
// duepay_role_restarts_total{role,reason} on the supervisor's ops listener. A child that exits
// with 78 (a configuration error) is not restarted: no restart can cure it, so the supervisor
// stops everything and exits 78. On SIGINT/SIGTERM every child gets SIGTERM, then SIGKILL after
// 10 s. Children get SIGTERM if the supervisor itself dies (PR_SET_PDEATHSIG).
//
// In production each role is a service unit with Restart=on-failure instead
// (docs/operations.md "Restarting a role that dies").
#pragma once

#include <atomic>
#include <string>
#include <vector>

namespace duepay::cli {

struct ChildSpec {
    std::string role;               // for logs and metrics: "api", "projector", ...
    std::string program;            // the file to execute, e.g. /proc/self/exe
    std::vector<std::string> argv;  // argv[0] is what `ps` shows
};

// Why a child ended, in words: "exit code 3", "killed by SIGSEGV (core dumped)".
std::string describe_wait_status(int status);

// Runs every child until `stop` is set; see above. Returns 0 after a stop, 78 after a child's
// configuration error. `env` is the children's whole environment ("KEY=value").
int supervise(const std::vector<ChildSpec>& children, const std::vector<std::string>& env,
              const std::atomic<bool>& stop);

}  // namespace duepay::cli
