#include "consumers/analysts/progress.hpp"

#include <unistd.h>

#include <algorithm>
#include <array>
#include <cstdio>

namespace duepay::consumers {

std::string with_commas(std::int64_t n) {
    std::string digits = std::to_string(n < 0 ? -n : n);
    std::string out;
    for (std::size_t i = 0; i < digits.size(); ++i) {
        if (i > 0 && (digits.size() - i) % 3 == 0) out += ',';
        out += digits[i];
    }
    return n < 0 ? "-" + out : out;
}

Progress::Progress(std::string label, std::int64_t total, bool tty, std::ostream& out)
    : label_(std::move(label)),
      total_(total),
      tty_(tty),
      out_(out),
      started_(std::chrono::steady_clock::now()),
      last_draw_(started_) {}

bool Progress::stderr_is_tty() { return isatty(STDERR_FILENO) == 1; }

std::string Progress::line(std::int64_t done, double seconds) const {
    const double rate = seconds > 0 ? static_cast<double>(done) / seconds : 0;
    std::array<char, 160> buf{};
    std::string text = label_;
    text += ": ";
    if (total_ > 0) {
        const double fraction =
            std::min(1.0, static_cast<double>(done) / static_cast<double>(total_));
        if (tty_) {
            constexpr int kWidth = 30;
            const int filled = static_cast<int>(fraction * kWidth);
            text += '[';
            text.append(static_cast<std::size_t>(filled), '#');
            text.append(static_cast<std::size_t>(kWidth - filled), '.');
            text += "] ";
        }
        std::snprintf(buf.data(), buf.size(), "%3.0f%% ", fraction * 100);
        text += buf.data();
        text += with_commas(done) + "/" + with_commas(total_) + " events";
    } else {
        text += with_commas(done) + " events";
    }
    std::snprintf(buf.data(), buf.size(), ", %s/s",
                  with_commas(static_cast<std::int64_t>(rate)).c_str());
    text += buf.data();
    if (total_ > 0 && rate > 0 && done < total_) {
        const auto eta = static_cast<std::int64_t>(static_cast<double>(total_ - done) / rate);
        std::snprintf(buf.data(), buf.size(), ", ETA %lld:%02lld:%02lld",
                      static_cast<long long>(eta / 3600), static_cast<long long>(eta / 60 % 60),
                      static_cast<long long>(eta % 60));
        text += buf.data();
    }
    return text;
}

void Progress::update(std::int64_t done) {
    const auto now = std::chrono::steady_clock::now();
    const auto every = tty_ ? std::chrono::milliseconds(200) : std::chrono::milliseconds(5000);
    if (now - last_draw_ < every) return;
    last_draw_ = now;
    const double seconds = std::chrono::duration<double>(now - started_).count();
    if (tty_) {
        out_ << '\r' << line(done, seconds) << "\x1b[K" << std::flush;
    } else {
        out_ << line(done, seconds) << std::endl;
    }
}

void Progress::finish(std::int64_t done) {
    const double seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - started_).count();
    std::array<char, 64> buf{};
    std::snprintf(buf.data(), buf.size(), " in %.1f s", seconds);
    if (tty_) out_ << '\r';
    out_ << line(done, seconds) << buf.data() << (tty_ ? "\x1b[K" : "") << std::endl;
}

}  // namespace duepay::consumers
