// The one log of every role (ADR 0130): one logfmt line per record on stderr,
//   ts=2026-11-23T15:20:51.123Z level=info role=projector invoice_id=inv_.. msg="..."
// in that order: timestamp (UTC, milliseconds), level, the role that wrote it, the record's fields
// (request_id, invoice_id, ...), then the message. Values that are not plain words are quoted, and
// every byte outside printable ASCII is written as \xHH, so no value (a path, an exception text,
// a broker's message) can start a second line or forge a field. DUEPAY_LOG_LEVEL (debug, info,
// warn, error; default info) drops records below it. Thread-safe: a record is formatted on the
// caller's thread and written by one write(2) under a mutex, so lines never interleave.
//
//   const log::Logger kLog{"projector"};
//   kLog.info() << "projector: batch " << n << " msgs";
//   kLog.warn().with("invoice_id", id) << "projector: row deferred";
//
// Secrets (keys, passwords, URLs with credentials) are never given to the log: the callers pass
// what an operator needs and nothing else (docs/security.md "Logs").
#pragma once

#include <chrono>
#include <cstddef>
#include <functional>
#include <limits>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duepay::infra::log {

enum class Level { debug = 0, info = 1, warn = 2, error = 3 };

std::string_view level_name(Level level);

// "debug", "info", "warn" (or "warning"), "error", any case; nullopt for anything else.
std::optional<Level> parse_level(std::string_view text);

// The threshold: records below it are dropped (info until set).
void set_level(Level level);
Level current_level();
bool enabled(Level level);

// Sets the threshold from DUEPAY_LOG_LEVEL (unset or empty: info); throws config::ConfigError
// naming the variable for an unknown value.
void init_from_env();

// Where finished lines go (each ends in '\n'): stderr unless replaced (unit tests capture them).
// An empty function restores stderr.
using Sink = std::function<void(std::string_view line)>;
void set_sink(Sink sink);

// Bytes 0x20..0x7e pass, except '"' -> \" and '\' -> \\; every other byte (controls, DEL,
// non-ASCII) becomes \xHH. At most `max_bytes` input bytes are written; a longer value ends in
// "..." (the truncation is visible).
std::string escape_value(std::string_view value,
                         std::size_t max_bytes = std::numeric_limits<std::size_t>::max());

// A logfmt value: bare when non-empty and made of [A-Za-z0-9._:/@+-] only, else quoted and
// escaped as above (at most 4096 bytes of it).
std::string format_value(std::string_view value);

using Fields = std::vector<std::pair<std::string, std::string>>;

// One whole line, '\n' included: ts level role fields... msg. Pure (the time comes in).
std::string format_line(std::chrono::system_clock::time_point at, Level level,
                        std::string_view role, const Fields& fields, std::string_view message);

// One record under construction: collects the message (operator<<) and fields (with), and writes
// the line when it goes out of scope. A record below the threshold formats nothing.
class Record {
  public:
    Record(std::string_view role, Level level);
    ~Record();
    Record(const Record&) = delete;
    Record& operator=(const Record&) = delete;

    Record& with(std::string_view key, std::string_view value);
    template <class T>
    Record& operator<<(const T& value) {
        if (on_) message_ << value;
        return *this;
    }

  private:
    std::string_view role_;
    Level level_;
    bool on_;
    Fields fields_;
    std::ostringstream message_;
};

// A named source of records; its name is the `role` field (a role, or "kafka", "duepay").
class Logger {
  public:
    explicit constexpr Logger(std::string_view role) : role_(role) {}
    std::string_view role() const { return role_; }
    Record debug() const { return Record(role_, Level::debug); }
    Record info() const { return Record(role_, Level::info); }
    Record warn() const { return Record(role_, Level::warn); }
    Record error() const { return Record(role_, Level::error); }
    Record at(Level level) const { return Record(role_, level); }

  private:
    std::string_view role_;  // a string literal: Loggers are constants
};

}  // namespace duepay::infra::log
