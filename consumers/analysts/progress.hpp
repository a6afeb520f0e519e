// Progress of a long read on stderr (`duepay replay`, `duepay events export`): on a terminal a bar
// redrawn in place (done of total, events/s, ETA); otherwise, for logs and pipes, one plain line
// every few seconds. Output only; the caller counts.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <string>

namespace duepay::consumers {

class Progress {
  public:
    // `label` starts each line; `total` may be 0 (unknown: no bar, no ETA). `tty`: draw a bar.
    Progress(std::string label, std::int64_t total, bool tty, std::ostream& out);

    // Reports `done` events so far; draws at most every 200 ms (bar) or 5 s (lines).
    void update(std::int64_t done);

    // The final report: one line with the count, the elapsed time and the mean rate.
    void finish(std::int64_t done);

    // Whether stderr is a terminal.
    static bool stderr_is_tty();

  private:
    std::string line(std::int64_t done, double seconds) const;

    std::string label_;
    std::int64_t total_;
    bool tty_;
    std::ostream& out_;
    std::chrono::steady_clock::time_point started_;
    std::chrono::steady_clock::time_point last_draw_;
};

// "1,234,567"
std::string with_commas(std::int64_t n);

}  // namespace duepay::consumers
