#include "consumers/analysts/events_export.hpp"

#include <CLI/CLI.hpp>
#include <cstdio>
#include <iostream>
#include <memory>
#include <set>
#include <unordered_set>
#include <vector>

#include "consumers/analysts/progress.hpp"
#include "consumers/cli/admin.hpp"
#include "domain/events/event_csv.hpp"
#include "domain/events/event_json.hpp"
#include "domain/hex.hpp"
#include "infra/config/env.hpp"
#include "infra/kafka/topic_reader.hpp"
#include "infra/log/log.hpp"

namespace duepay::consumers {
namespace {

namespace ev = domain::events;
constexpr infra::log::Logger kLog{"export"};

struct ExportOptions {
    std::string format = "jsonl";
    std::string since;
    std::string until;
    std::vector<std::string> projects;
    std::vector<std::string> invoices;
    std::vector<std::string> types;
    std::string out;
    std::string topic;
};

struct Filter {
    std::set<std::string> projects;
    std::set<std::string> invoices;  // 0x + 64 lower-case hex
    std::set<std::string, std::less<>> types;

    bool keep(const ev::Event& e) const {
        return (projects.empty() || projects.contains(e.project_id)) &&
               (invoices.empty() || invoices.contains(domain::to_hex(e.invoice_id))) &&
               (types.empty() || types.contains(ev::event_type(e)));
    }
};

// The flags as a filter and a time range, or a usage error (printed) and nullopt.
std::optional<Filter> parse_filter(const ExportOptions& o) {
    Filter f;
    f.projects.insert(o.projects.begin(), o.projects.end());
    for (const auto& text : o.invoices) {
        const auto id = domain::parse_invoice_id(text);
        if (!id) {
            print_admin_error("invalid_invoice_id", "--invoice must be 0x + 64 hex digits");
            return std::nullopt;
        }
        f.invoices.insert(domain::to_hex(*id));
    }
    for (const auto& type : o.types) {
        bool known = false;
        for (const auto t : ev::kEventTypes) known |= t == type;
        if (!known) {
            print_admin_error("invalid_type", "--type " + type + " is not an event type");
            return std::nullopt;
        }
        f.types.insert(type);
    }
    return f;
}

std::optional<std::int64_t> parse_time_flag(const std::string& flag, const std::string& text) {
    const auto ms = ev::parse_rfc3339_millis(text);
    if (!ms) {
        print_admin_error("invalid_time",
                          flag + " must be an RFC 3339 time such as 2026-11-21T22:00:00Z");
    }
    return ms;
}

// stdout or a file, written in large blocks.
class Sink {
  public:
    explicit Sink(const std::string& path)
        : file_(path.empty() ? stdout : std::fopen(path.c_str(), "wb")), own_(!path.empty()) {
        if (file_ == nullptr) throw std::runtime_error("cannot open " + path + " for writing");
        buffer_.reserve(kBlock * 2);
    }
    ~Sink() {
        if (own_ && file_ != nullptr) std::fclose(file_);
    }
    Sink(const Sink&) = delete;
    Sink& operator=(const Sink&) = delete;
    std::string& buffer() { return buffer_; }
    void maybe_flush() {
        if (buffer_.size() >= kBlock) flush();
    }
    void flush() {
        if (!buffer_.empty() &&
            std::fwrite(buffer_.data(), 1, buffer_.size(), file_) != buffer_.size()) {
            throw std::runtime_error("write failed (disk full or pipe closed)");
        }
        buffer_.clear();
        std::fflush(file_);
    }

  private:
    static constexpr std::size_t kBlock = 1 << 20;
    std::FILE* file_;
    bool own_;
    std::string buffer_;
};

int export_events(const ExportOptions& o, const std::atomic<bool>& stop) {
    if (o.format != "jsonl" && o.format != "csv") {
        print_admin_error("invalid_format", "--format must be jsonl or csv");
        return 2;
    }
    const auto filter = parse_filter(o);
    if (!filter) return 2;
    std::optional<std::int64_t> since;
    std::optional<std::int64_t> until;
    if (!o.since.empty() && !(since = parse_time_flag("--since", o.since))) return 2;
    if (!o.until.empty() && !(until = parse_time_flag("--until", o.until))) return 2;
    try {
        const auto topic = !o.topic.empty()
                               ? o.topic
                               : infra::config::env_or("DUEPAY_TOPIC", "duepay.charge-events.v1");
        infra::kafka::TopicReader reader(infra::config::require_env("KAFKA_BOOTSTRAP"), topic,
                                         "duepay-export");
        const auto marks = reader.watermarks();
        std::map<std::int32_t, std::int64_t> begins;
        std::map<std::int32_t, std::int64_t> ends;
        for (const auto& [p, mark] : marks) {
            begins[p] = mark.first;
            ends[p] = mark.second;
        }
        if (since) begins = reader.offsets_for_time(*since);
        if (until) ends = reader.offsets_for_time(*until);
        std::vector<infra::kafka::PartitionRange> ranges;
        std::int64_t total = 0;
        for (const auto p : reader.partitions()) {
            // Never past the end fixed now: offsets for a future --until are the high watermark.
            const auto end = std::min(ends[p], marks.at(p).second);
            ranges.push_back({p, begins[p], end});
            total += ranges.back().size();
        }
        reader.assign(ranges);
        Sink sink(o.out);
        if (o.format == "csv") sink.buffer() += ev::csv_header();
        Progress progress("export", total, Progress::stderr_is_tty(), std::cerr);
        std::int64_t read = 0;
        std::int64_t written = 0;
        std::int64_t undecodable = 0;
        std::int64_t repeated = 0;
        // Each event once: a record repeating an id already read (a producer retry, a chain fact
        // re-emitted after a restart) is what every consumer drops, so the export drops it too.
        std::unordered_set<std::string> ids;
        std::string line;
        while (!reader.done() && !stop) {
            for (const auto& m : reader.poll(10000, std::chrono::milliseconds(500))) {
                ++read;
                auto event = ev::decode_event(m.value);
                if (!event) {
                    ++undecodable;
                    continue;
                }
                if (!ids.insert(event->id).second) {
                    ++repeated;
                    continue;
                }
                if (!filter->keep(*event)) continue;
                ++written;
                if (o.format == "csv") {
                    ev::append_csv_row(sink.buffer(), *event, m.partition, m.offset);
                } else {
                    ev::encode_event(*event, line);
                    sink.buffer() += line;
                    sink.buffer() += '\n';
                }
            }
            sink.maybe_flush();
            progress.update(read);
        }
        sink.flush();
        progress.finish(read);
        auto summary = kLog.info();
        summary << "export: " << with_commas(written) << " events written";
        if (undecodable > 0) {
            summary << ", " << with_commas(undecodable)
                    << " records skipped (not a valid event; see duepay admin quarantine list)";
        }
        if (repeated > 0) {
            summary << ", " << with_commas(repeated)
                    << " records skipped (an event id already read)";
        }
        return stop ? 130 : 0;
    } catch (const infra::kafka::UnknownTopic& e) {
        print_admin_error("unknown_topic", std::string(e.what()) + " (--topic, DUEPAY_TOPIC)");
        return 2;
    } catch (...) {
        return report_admin_exception();
    }
}

}  // namespace

cli::Run define_events(CLI::App& cmd) {
    cmd.require_subcommand(1);
    auto* sub = cmd.add_subcommand(
        "export", "stream events as JSON Lines or CSV (docs/analysts.md); progress on stderr");
    auto o = std::make_shared<ExportOptions>();
    sub->add_option("--format", o->format, "jsonl (default) or csv");
    sub->add_option("--since", o->since,
                    "first record time, RFC 3339 (Kafka offsets for times; inclusive)");
    sub->add_option("--until", o->until, "end record time, RFC 3339 (exclusive); default: now");
    sub->add_option("--project", o->projects, "only this project (repeatable)");
    sub->add_option("--invoice", o->invoices, "only this charge (repeatable)");
    sub->add_option("--type", o->types, "only this event type, e.g. charge.paid (repeatable)");
    sub->add_option("--out", o->out, "write to this file instead of stdout");
    sub->add_option("--topic", o->topic, "event topic (DUEPAY_TOPIC)");
    return [o](const std::atomic<bool>& stop) { return export_events(*o, stop); };
}

}  // namespace duepay::consumers
