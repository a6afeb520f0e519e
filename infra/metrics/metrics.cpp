#include "infra/metrics/metrics.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <cmath>
#include <stdexcept>

namespace duepay::infra::metrics {
namespace {

bool valid_name(std::string_view name, bool colon_allowed) {
    if (name.empty()) return false;
    for (std::size_t i = 0; i < name.size(); ++i) {
        const char c = name[i];
        const bool letter = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' ||
                            (colon_allowed && c == ':');
        if (!letter && !(i > 0 && c >= '0' && c <= '9')) return false;
    }
    return true;
}

std::string key_of(const Labels& labels) {
    std::string key;
    for (const auto& [name, value] : labels) key.append(name).append("=").append(value) += '\0';
    return key;
}

// {a="x",b="y"} plus an optional extra label (le), or "" when there is none.
std::string label_text(const Labels& labels, std::string_view extra_name = {},
                       std::string_view extra_value = {}) {
    if (labels.empty() && extra_name.empty()) return "";
    std::string out = "{";
    bool first = true;
    for (const auto& [name, value] : labels) {
        if (!first) out += ',';
        first = false;
        out.append(name).append("=\"").append(escape_label_value(value)).append("\"");
    }
    if (!extra_name.empty()) {
        if (!first) out += ',';
        out.append(extra_name).append("=\"").append(extra_value).append("\"");
    }
    return out + "}";
}

std::string_view type_name(Type type) {
    switch (type) {
        case Type::counter:
            return "counter";
        case Type::gauge:
            return "gauge";
        case Type::histogram:
            return "histogram";
    }
    return "untyped";
}

}  // namespace

Histogram::Histogram(std::vector<double> upper_bounds)
    : bounds_(std::move(upper_bounds)), buckets_(bounds_.size() + 1) {
    if (!std::is_sorted(bounds_.begin(), bounds_.end())) {
        throw std::invalid_argument("histogram buckets must be ascending");
    }
}

void Histogram::observe(double v) {
    const auto at = std::lower_bound(bounds_.begin(), bounds_.end(), v) - bounds_.begin();
    buckets_[static_cast<std::size_t>(at)].fetch_add(1, std::memory_order_relaxed);
    sum_.fetch_add(v, std::memory_order_relaxed);
    count_.fetch_add(1, std::memory_order_relaxed);
}

std::vector<std::uint64_t> Histogram::bucket_counts() const {
    std::vector<std::uint64_t> out(bounds_.size() + 1);
    for (std::size_t i = 0; i < out.size(); ++i) {
        out[i] = buckets_[i].load(std::memory_order_relaxed);
    }
    return out;
}

const std::vector<double>& latency_buckets() {
    static const std::vector<double> b{0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1,
                                       0.25,  0.5,    1.0,   2.5,  5.0,   10.0};
    return b;
}

Registration& Registration::operator=(Registration&& other) noexcept {
    if (this != &other) {
        if (undo_) undo_();
        undo_ = std::exchange(other.undo_, nullptr);
    }
    return *this;
}

Registration::~Registration() {
    if (undo_) undo_();
}

Registry::Family& Registry::family(std::string_view name, std::string_view help, Type type,
                                   const Labels& labels) {
    if (!valid_name(name, true)) {
        throw std::invalid_argument("metric name '" + std::string(name) + "' is not valid");
    }
    std::vector<std::string> names;
    for (const auto& [label, value] : labels) {
        if (!valid_name(label, false) || label.starts_with("__") || label == "le") {
            throw std::invalid_argument("label name '" + label + "' is not valid");
        }
        names.push_back(label);
    }
    auto it = families_.find(name);
    if (it == families_.end()) {
        it = families_.emplace(std::string(name), Family{}).first;
        it->second.help = help;
        it->second.type = type;
        it->second.label_names = names;
    } else if (it->second.type != type) {
        throw std::invalid_argument("metric '" + std::string(name) + "' has another type");
    }
    return it->second;
}

Counter& Registry::counter(std::string_view name, std::string_view help, const Labels& labels) {
    std::lock_guard lock(mutex_);
    auto& f = family(name, help, Type::counter, labels);
    auto& slot = f.counters[key_of(labels)];
    if (!slot.second) slot = {labels, std::make_unique<Counter>()};
    return *slot.second;
}

Gauge& Registry::gauge(std::string_view name, std::string_view help, const Labels& labels) {
    std::lock_guard lock(mutex_);
    auto& f = family(name, help, Type::gauge, labels);
    auto& slot = f.gauges[key_of(labels)];
    if (!slot.second) slot = {labels, std::make_unique<Gauge>()};
    return *slot.second;
}

Histogram& Registry::histogram(std::string_view name, std::string_view help, const Labels& labels,
                               const std::vector<double>& upper_bounds) {
    std::lock_guard lock(mutex_);
    auto& f = family(name, help, Type::histogram, labels);
    auto& slot = f.histograms[key_of(labels)];
    if (!slot.second) slot = {labels, std::make_unique<Histogram>(upper_bounds)};
    return *slot.second;
}

Registration Registry::collect(std::string_view name, std::string_view help, Type type,
                               std::function<std::vector<Sample>()> read) {
    if (type == Type::histogram) throw std::invalid_argument("collectors are counters or gauges");
    std::lock_guard lock(mutex_);
    auto& f = family(name, help, type, {});
    const std::uint64_t id = next_collector_++;
    f.collectors.emplace(id, std::move(read));
    const std::string key(name);
    return Registration([this, key, id] {
        std::lock_guard undo_lock(mutex_);
        auto it = families_.find(key);
        if (it != families_.end()) it->second.collectors.erase(id);
    });
}

std::string Registry::render() const {
    std::lock_guard lock(mutex_);
    std::string out;
    for (const auto& [name, f] : families_) {
        std::vector<Sample> collected;
        for (const auto& [id, read] : f.collectors) {
            auto samples = read();
            collected.insert(collected.end(), samples.begin(), samples.end());
        }
        if (f.counters.empty() && f.gauges.empty() && f.histograms.empty() && collected.empty()) {
            continue;
        }
        out.append("# HELP ").append(name).append(" ").append(escape_help(f.help)).append("\n");
        out.append("# TYPE ").append(name).append(" ").append(type_name(f.type)).append("\n");
        for (const auto& [key, series] : f.counters) {
            out.append(name).append(label_text(series.first)).append(" ");
            out.append(format_number(series.second->value())).append("\n");
        }
        for (const auto& [key, series] : f.gauges) {
            out.append(name).append(label_text(series.first)).append(" ");
            out.append(format_number(series.second->value())).append("\n");
        }
        for (const auto& s : collected) {
            out.append(name).append(label_text(s.labels)).append(" ");
            out.append(format_number(s.value)).append("\n");
        }
        for (const auto& [key, series] : f.histograms) {
            const Histogram& h = *series.second;
            const auto counts = h.bucket_counts();
            std::uint64_t cumulative = 0;
            for (std::size_t i = 0; i < counts.size(); ++i) {
                cumulative += counts[i];
                const std::string le =
                    i < h.bounds().size() ? format_number(h.bounds()[i]) : "+Inf";
                out.append(name).append("_bucket").append(label_text(series.first, "le", le));
                out.append(" ").append(std::to_string(cumulative)).append("\n");
            }
            out.append(name).append("_sum").append(label_text(series.first)).append(" ");
            out.append(format_number(h.sum())).append("\n");
            out.append(name).append("_count").append(label_text(series.first)).append(" ");
            out.append(std::to_string(cumulative)).append("\n");
        }
    }
    return out;
}

Registry& registry() {
    static Registry r;
    return r;
}

std::string escape_label_value(std::string_view value) {
    std::string out;
    out.reserve(value.size());
    for (char c : value) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '"') {
            out += "\\\"";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string escape_help(std::string_view help) {
    std::string out;
    out.reserve(help.size());
    for (char c : help) {
        if (c == '\\') {
            out += "\\\\";
        } else if (c == '\n') {
            out += "\\n";
        } else {
            out += c;
        }
    }
    return out;
}

std::string format_number(double value) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "+Inf" : "-Inf";
    std::array<char, 64> buf{};
    const auto [end, ec] = std::to_chars(buf.data(), buf.data() + buf.size(), value);
    return ec == std::errc() ? std::string(buf.data(), end) : "NaN";
}

}  // namespace duepay::infra::metrics
