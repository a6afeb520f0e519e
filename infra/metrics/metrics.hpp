// Process metrics in the Prometheus text exposition format 0.0.4, written by us (ADR 0131):
// counters, gauges and histograms with labels, and collectors that read a value at scrape time
// (consumer lag, pool in use). One process-wide registry, `metrics::registry()`, shared by every
// role of the process (`duepay dev` runs several); `render()` is what `GET /metrics` answers.
//
//   auto& applied = metrics::registry().counter("duepay_events_processed_total",
//       "Events applied, by consumer group and event type", {{"group", g}, {"type", t}});
//   applied.inc();
//
// A series is created on first use and lives as long as the process; the reference stays valid.
// Label values are escaped (\\, \", \n) when rendered; names are checked (std::invalid_argument).
// All calls are thread-safe; inc/set/observe are lock-free after the first lookup.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace duepay::infra::metrics {

using Labels = std::vector<std::pair<std::string, std::string>>;

class Counter {
  public:
    void inc(double by = 1.0) { value_.fetch_add(by, std::memory_order_relaxed); }
    double value() const { return value_.load(std::memory_order_relaxed); }

  private:
    std::atomic<double> value_{0.0};
};

class Gauge {
  public:
    void set(double v) { value_.store(v, std::memory_order_relaxed); }
    void add(double by) { value_.fetch_add(by, std::memory_order_relaxed); }
    double value() const { return value_.load(std::memory_order_relaxed); }

  private:
    std::atomic<double> value_{0.0};
};

class Histogram {
  public:
    explicit Histogram(std::vector<double> upper_bounds);  // ascending, +Inf implied
    void observe(double v);
    const std::vector<double>& bounds() const { return bounds_; }
    // Per-bucket (not cumulative) counts, the +Inf bucket last; sum; count.
    std::vector<std::uint64_t> bucket_counts() const;
    double sum() const { return sum_.load(std::memory_order_relaxed); }
    std::uint64_t count() const { return count_.load(std::memory_order_relaxed); }

  private:
    std::vector<double> bounds_;
    std::vector<std::atomic<std::uint64_t>> buckets_;  // zero each, sized once
    std::atomic<double> sum_{0.0};
    std::atomic<std::uint64_t> count_{0};
};

// Default buckets, in seconds: 1 ms .. 10 s.
const std::vector<double>& latency_buckets();

// One sample a collector reports: its labels and value.
struct Sample {
    Labels labels;
    double value = 0.0;
};

enum class Type { counter, gauge, histogram };

// A collector stays registered while its Registration lives (move-only); destroy it before what
// the collector reads.
class Registration {
  public:
    Registration() = default;
    explicit Registration(std::function<void()> undo) : undo_(std::move(undo)) {}
    Registration(Registration&& other) noexcept : undo_(std::exchange(other.undo_, nullptr)) {}
    Registration& operator=(Registration&& other) noexcept;
    Registration(const Registration&) = delete;
    Registration& operator=(const Registration&) = delete;
    ~Registration();

  private:
    std::function<void()> undo_;
};

class Registry {
  public:
    Counter& counter(std::string_view name, std::string_view help, const Labels& labels = {});
    Gauge& gauge(std::string_view name, std::string_view help, const Labels& labels = {});
    Histogram& histogram(std::string_view name, std::string_view help, const Labels& labels = {},
                         const std::vector<double>& upper_bounds = latency_buckets());

    // Samples of a counter or gauge family read at scrape time (several collectors may feed one
    // family: each projector thread its own partitions).
    [[nodiscard]] Registration collect(std::string_view name, std::string_view help, Type type,
                                       std::function<std::vector<Sample>()> read);

    // The exposition text: families in name order, HELP and TYPE once per family.
    std::string render() const;

  private:
    struct Family {
        std::string help;
        Type type = Type::counter;
        std::vector<std::string> label_names;  // of the first series; later ones must match
        std::map<std::string, std::pair<Labels, std::unique_ptr<Counter>>> counters;
        std::map<std::string, std::pair<Labels, std::unique_ptr<Gauge>>> gauges;
        std::map<std::string, std::pair<Labels, std::unique_ptr<Histogram>>> histograms;
        std::map<std::uint64_t, std::function<std::vector<Sample>()>> collectors;
    };
    Family& family(std::string_view name, std::string_view help, Type type, const Labels& labels);

    mutable std::mutex mutex_;
    std::map<std::string, Family, std::less<>> families_;
    std::uint64_t next_collector_ = 0;
};

// The registry of this process.
Registry& registry();

// Text format helpers (exposed for tests): a label value with \\, \" and \n escaped; a HELP text
// with \\ and \n escaped; a number as Prometheus reads it (shortest round-trip, +Inf, -Inf, NaN).
std::string escape_label_value(std::string_view value);
std::string escape_help(std::string_view help);
std::string format_number(double value);

}  // namespace duepay::infra::metrics
