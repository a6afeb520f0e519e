// What a subcommand of build/duepay is to the composition root (consumers/cli/main.cpp): a
// function that declares its flags on its CLI11 subcommand and returns what runs it once the
// command line is parsed. Long-running roles watch `stop`, which SIGINT/SIGTERM set; tools
// (admin, settle, simulate-payment) run once and ignore it.
#pragma once

#include <atomic>
#include <functional>

namespace CLI {
class App;
}

namespace duepay::cli {

// Runs the parsed command; returns the process exit code (2: usage, 78: configuration).
using Run = std::function<int(const std::atomic<bool>& stop)>;

// Declares the flags of one command on `cmd`; the returned Run reads them when it is called.
using Define = Run (*)(CLI::App& cmd);

}  // namespace duepay::cli
