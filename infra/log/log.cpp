#include "infra/log/log.hpp"

#include <unistd.h>

#include <array>
#include <atomic>
#include <cctype>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <mutex>
#include <string_view>

#include "infra/config/env.hpp"

namespace duepay::infra::log {
namespace {

std::atomic<int> g_level{static_cast<int>(Level::info)};

std::mutex& sink_mutex() {
    static std::mutex m;
    return m;
}

Sink& sink() {
    static Sink s;
    return s;
}

void write_all(std::string_view line) {
    while (!line.empty()) {
        const auto n = ::write(STDERR_FILENO, line.data(), line.size());
        if (n <= 0) return;  // nowhere to report a failing stderr
        line.remove_prefix(static_cast<std::size_t>(n));
    }
}

bool bare(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '.' || c == '_' || c == ':' ||
           c == '/' || c == '@' || c == '+' || c == '-';
}

}  // namespace

std::string_view level_name(Level level) {
    switch (level) {
        case Level::debug:
            return "debug";
        case Level::info:
            return "info";
        case Level::warn:
            return "warn";
        case Level::error:
            return "error";
    }
    return "info";
}

std::optional<Level> parse_level(std::string_view text) {
    std::string lower(text);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    if (lower == "debug") return Level::debug;
    if (lower == "info") return Level::info;
    if (lower == "warn" || lower == "warning") return Level::warn;
    if (lower == "error") return Level::error;
    return std::nullopt;
}

void set_level(Level level) { g_level = static_cast<int>(level); }

Level current_level() { return static_cast<Level>(g_level.load()); }

bool enabled(Level level) { return static_cast<int>(level) >= g_level.load(); }

void init_from_env() {
    const std::string text = config::env_or("DUEPAY_LOG_LEVEL", "info");
    const auto level = parse_level(text);
    if (!level) {
        throw config::ConfigError("DUEPAY_LOG_LEVEL must be debug, info, warn or error, not '" +
                                  escape_value(text, 32) + "'");
    }
    set_level(*level);
}

void set_sink(Sink s) {
    std::lock_guard lock(sink_mutex());
    sink() = std::move(s);
}

namespace {

// escape_value's text, appended to `out`.
void append_escaped(std::string& out, std::string_view value, std::size_t max_bytes) {
    static constexpr std::string_view kHex = "0123456789abcdef";
    const bool truncated = value.size() > max_bytes;
    if (truncated) value = value.substr(0, max_bytes);
    out.reserve(out.size() + value.size() + 8);
    for (char ch : value) {
        const auto c = static_cast<unsigned char>(ch);
        if (c == '"' || c == '\\') {
            out.push_back('\\');
            out.push_back(ch);
        } else if (c >= 0x20 && c <= 0x7e) {
            out.push_back(ch);
        } else {
            out.append("\\x").push_back(kHex[c >> 4]);
            out.push_back(kHex[c & 0xf]);
        }
    }
    if (truncated) out.append("...");
}

// format_value's text, appended to `out`: a line is built in one string, without a temporary
// per field (CPU per request: the access log line of every request).
void append_value(std::string& out, std::string_view value) {
    bool plain = !value.empty() && value.size() <= 4096;
    for (char c : value) plain = plain && bare(c);
    if (plain) {
        out.append(value);
        return;
    }
    out.push_back('"');
    append_escaped(out, value, 4096);
    out.push_back('"');
}

}  // namespace

std::string escape_value(std::string_view value, std::size_t max_bytes) {
    std::string out;
    append_escaped(out, value, max_bytes);
    return out;
}

std::string format_value(std::string_view value) {
    std::string out;
    append_value(out, value);
    return out;
}

std::string format_line(std::chrono::system_clock::time_point at, Level level,
                        std::string_view role, const Fields& fields, std::string_view message) {
    using namespace std::chrono;
    const auto ms = duration_cast<milliseconds>(at.time_since_epoch()).count();
    const auto secs = static_cast<std::time_t>(ms / 1000);
    std::tm utc{};
    gmtime_r(&secs, &utc);
    std::array<char, 96> ts{};  // room for any int the compiler can imagine
    std::snprintf(ts.data(), ts.size(), "%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", utc.tm_year + 1900,
                  utc.tm_mon + 1, utc.tm_mday, utc.tm_hour, utc.tm_min, utc.tm_sec,
                  static_cast<int>(ms % 1000));
    std::size_t size = 64 + role.size() + message.size();
    for (const auto& [key, value] : fields) size += key.size() + value.size() + 4;
    std::string line;
    line.reserve(size);
    line.append("ts=").append(ts.data()).append(" level=").append(level_name(level));
    line.append(" role=");
    append_value(line, role);
    for (const auto& [key, value] : fields) {
        line.append(" ").append(key).append("=");
        append_value(line, value);
    }
    line.append(" msg=");
    append_value(line, message);
    line.append("\n");
    return line;
}

Record::Record(std::string_view role, Level level)
    : role_(role), level_(level), on_(enabled(level)) {}

Record::~Record() {
    if (!on_) return;
    const std::string line =
        format_line(std::chrono::system_clock::now(), level_, role_, fields_, message_.view());
    std::lock_guard lock(sink_mutex());
    if (sink()) {
        sink()(line);
    } else {
        write_all(line);
    }
}

Record& Record::with(std::string_view key, std::string_view value) {
    if (!on_) return *this;
    if (fields_.empty()) fields_.reserve(8);  // one allocation for a usual record's fields
    fields_.emplace_back(std::string(key), std::string(value));
    return *this;
}

}  // namespace duepay::infra::log
