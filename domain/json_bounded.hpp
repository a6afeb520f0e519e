// Bounded JSON parsing: the one way duepay turns bytes it did not write itself (request bodies,
// chain-node answers, rate-source answers, events read from the topic) into a RapidJSON DOM.
//
// A SAX filter sits between RapidJSON's iterative reader (constant call-stack depth) and the
// document it fills. It refuses, before any value is built past the point of the problem:
//   - nesting deeper than Limits::max_depth (32 by default): "too_deep";
//   - a member name given twice in one object, at any depth: "duplicate_member";
//   - with Limits::storable_text, a string or member name that is not valid UTF-8 without NUL
//     (domain/text.hpp): "unstorable_string".
// Whoever walks the resulting DOM afterwards therefore sees at most max_depth levels and unique
// names; no code of ours recurses over a parsed document (docs/adr/0202-bounded-json.md).
//
// This header names no RapidJSON type: it is shared by translation units that configure RapidJSON
// in different namespaces (domain/events compiles its own). Callers pass their reader and stream;
// domain/json.hpp is the ready-made entry for the default configuration.
#pragma once

#include <boost/container/small_vector.hpp>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <unordered_set>
#include <utility>

#include "domain/text.hpp"

namespace duepay::domain::json {

inline constexpr std::uint32_t kMaxDepth = 32;

struct Limits {
    std::uint32_t max_depth = kMaxDepth;
    bool storable_text = false;  // refuse strings and names that Postgres text could not hold
};

enum class Refusal { none, syntax, too_deep, duplicate_member, unstorable_string };

// What went wrong, for messages: the kind, and where ("fiat.amount", "items[3]", "" for the root;
// for a duplicate the repeated member's path, for too_deep the path of the container that went
// one level too deep). The offending bytes of a bad string are never part of `path`: a bad member
// name is reported at its parent.
struct Problem {
    Refusal refusal = Refusal::none;
    std::string path;
    std::size_t offset = 0;  // syntax: RapidJSON's error offset
    int syntax_code = 0;     // syntax: RapidJSON's ParseErrorCode
    bool bad_member_name = false;
};

// Forwards every SAX event to `sink` (a GenericDocument) unless a limit is crossed; then returns
// false, which stops the reader with a termination error that parse_with turns into the Problem.
//
// The names of the open objects live in one arena (names_, spans_), truncated when an object
// closes; arena and frames start inline, so a typical event or body parses without a heap
// allocation here. A name is looked up among its
// object's names by a linear scan up to kLinear names, then through a hash set of span indices.
template <class Sink>
class BoundedFilter {
  public:
    BoundedFilter(Sink& sink, const Limits& limits) : sink_(sink), limits_(limits) {}

    // RapidJSON's Handler concept names these methods (the reader calls them by these names).
    // NOLINTBEGIN(readability-identifier-naming)
    bool Null() { return scalar() && sink_.Null(); }
    bool Bool(bool b) { return scalar() && sink_.Bool(b); }
    bool Int(int i) { return scalar() && sink_.Int(i); }
    bool Uint(unsigned u) { return scalar() && sink_.Uint(u); }
    bool Int64(std::int64_t i) { return scalar() && sink_.Int64(i); }
    bool Uint64(std::uint64_t u) { return scalar() && sink_.Uint64(u); }
    bool Double(double d) { return scalar() && sink_.Double(d); }
    template <class Ch, class Size>
    bool RawNumber(const Ch* s, Size n, bool copy) {
        return scalar() && sink_.RawNumber(s, n, copy);
    }
    template <class Ch, class Size>
    bool String(const Ch* s, Size n, bool copy) {
        if (!scalar()) return false;
        if (limits_.storable_text && !is_storable_text(std::string_view(s, n)))
            return refuse(Refusal::unstorable_string, false);
        return sink_.String(s, n, copy);
    }
    bool StartObject() { return open(true) && sink_.StartObject(); }
    template <class Ch, class Size>
    bool Key(const Ch* s, Size n, bool copy) {
        const std::string_view name(s, n);
        if (limits_.storable_text && !is_storable_text(name))
            return refuse(Refusal::unstorable_string, true);
        if (!add_name(name)) return refuse(Refusal::duplicate_member, false);
        return sink_.Key(s, n, copy);
    }
    template <class Size>
    bool EndObject(Size n) {
        close();
        return sink_.EndObject(n);
    }
    bool StartArray() { return open(false) && sink_.StartArray(); }
    template <class Size>
    bool EndArray(Size n) {
        close();
        return sink_.EndArray(n);
    }
    // NOLINTEND(readability-identifier-naming)

    const Problem& problem() const { return problem_; }

  private:
    static constexpr std::size_t kLinear = 16;
    struct Span {
        std::size_t at, size;
    };
    struct SpanHash {
        const BoundedFilter* f;
        std::size_t operator()(std::size_t i) const {
            return std::hash<std::string_view>{}(f->name(i));
        }
    };
    struct SpanEq {
        const BoundedFilter* f;
        bool operator()(std::size_t a, std::size_t b) const { return f->name(a) == f->name(b); }
    };
    using SpanSet = std::unordered_set<std::size_t, SpanHash, SpanEq>;
    struct Frame {
        bool object = false;
        std::size_t index = 0;          // arrays: the number of elements begun
        std::size_t first_span = 0;     // objects: spans_[first_span..] are this object's names
        std::size_t arena_start = 0;    // and names_[arena_start..] their bytes
        std::unique_ptr<SpanSet> many;  // once the object has more than kLinear names
    };

    std::string_view name(std::size_t span) const {
        return std::string_view(names_.data() + spans_[span].at, spans_[span].size);
    }

    // Records `n` as the current member of the innermost object; false when it was seen there.
    bool add_name(std::string_view n) {
        auto& frame = frames_.back();
        const std::size_t count = spans_.size() - frame.first_span;
        if (!frame.many) {
            for (std::size_t i = frame.first_span; i < spans_.size(); ++i) {
                if (name(i) == n) {
                    push(n);  // the current member, for the path
                    return false;
                }
            }
        } else if (frame.many->count(push(n)) > 0) {
            return false;  // pushed for the lookup: it stays the current member for the path
        } else {
            frame.many->insert(spans_.size() - 1);
            return true;
        }
        push(n);
        if (count + 1 > kLinear) {
            frame.many = std::make_unique<SpanSet>(64, SpanHash{this}, SpanEq{this});
            for (std::size_t i = frame.first_span; i < spans_.size(); ++i) frame.many->insert(i);
        }
        return true;
    }
    std::size_t push(std::string_view n) {
        spans_.push_back(Span{names_.size(), n.size()});
        names_.insert(names_.end(), n.begin(), n.end());
        return spans_.size() - 1;
    }

    // A value begins: in an array it is the next element.
    bool scalar() {
        if (!frames_.empty() && !frames_.back().object) ++frames_.back().index;
        return true;
    }
    bool open(bool object) {
        scalar();
        if (frames_.size() >= limits_.max_depth) return refuse(Refusal::too_deep, false);
        auto& frame = frames_.emplace_back();
        frame.object = object;
        frame.first_span = spans_.size();
        frame.arena_start = names_.size();
        return true;
    }
    void close() {
        spans_.erase(spans_.begin() + static_cast<std::ptrdiff_t>(frames_.back().first_span),
                     spans_.end());
        names_.erase(names_.begin() + static_cast<std::ptrdiff_t>(frames_.back().arena_start),
                     names_.end());
        frames_.pop_back();
    }
    // `at_parent`: report the path of the container, not of the current member (its name is bad).
    bool refuse(Refusal r, bool at_parent) {
        problem_.refusal = r;
        problem_.bad_member_name = at_parent;
        problem_.path = path(at_parent);
        return false;
    }
    std::string path(bool at_parent) const {
        std::string out;
        for (std::size_t i = 0; i < frames_.size(); ++i) {
            const auto& f = frames_[i];
            if (i + 1 == frames_.size() && at_parent) break;
            if (f.object) {
                // The current member is the object's last name (the next frame's first_span
                // bounds it for an outer object).
                const std::size_t end =
                    i + 1 < frames_.size() ? frames_[i + 1].first_span : spans_.size();
                if (end == f.first_span) continue;
                if (!out.empty()) out += '.';
                out += name(end - 1);
            } else if (f.index > 0) {
                out += '[' + std::to_string(f.index - 1) + ']';
            }
        }
        return out;
    }

    Sink& sink_;
    Limits limits_;
    boost::container::small_vector<Frame, 8> frames_;
    boost::container::small_vector<Span, 32> spans_;
    boost::container::small_vector<char, 512> names_;
    Problem problem_;
};

// Parses `stream` with `reader` (RapidJSON's GenericReader of the caller's configuration) into
// `doc` through a BoundedFilter. ParseFlags must include kParseIterativeFlag. On a refusal `doc`
// keeps what it held before (Populate replaces it only on success).
template <unsigned ParseFlags, class Reader, class Stream, class Document>
Problem parse_with(Reader& reader, Stream& stream, Document& doc, const Limits& limits) {
    static_assert((ParseFlags & 4u) != 0, "bounded parsing uses RapidJSON's iterative reader");
    Problem result;
    auto generate = [&](Document& sink) {
        BoundedFilter<Document> filter(sink, limits);
        const auto parsed = reader.template Parse<ParseFlags>(stream, filter);
        if (!parsed.IsError()) return true;
        if (filter.problem().refusal != Refusal::none) {
            result = filter.problem();
        } else {
            result.refusal = Refusal::syntax;
            result.offset = parsed.Offset();
            result.syntax_code = static_cast<int>(parsed.Code());
        }
        return false;
    };
    doc.Populate(generate);
    return result;
}

// One line for logs and messages, e.g. "request body nests deeper than 32 levels at x[0]";
// `syntax_reason` is the reader's own text of a syntax error, when the caller has it.
inline std::string describe_problem(const Problem& p, std::string_view what, const Limits& limits,
                                    std::string_view syntax_reason = {}) {
    const std::string w(what);
    const std::string at = p.path.empty() ? std::string() : " at " + p.path;
    switch (p.refusal) {
        case Refusal::none:
            return w + " is valid JSON";
        case Refusal::syntax:
            return w + " is not valid JSON (" +
                   (syntax_reason.empty() ? std::string("error ") + std::to_string(p.syntax_code)
                                          : std::string(syntax_reason)) +
                   " at offset " + std::to_string(p.offset) + ")";
        case Refusal::too_deep:
            return w + " nests deeper than " + std::to_string(limits.max_depth) + " levels" + at;
        case Refusal::duplicate_member:
            return w + " gives member " + p.path + " more than once";
        case Refusal::unstorable_string:
            return w + (p.bad_member_name ? " has a member name" : " has a string") +
                   " that is not valid UTF-8 without NUL characters" + at;
    }
    return w + " could not be parsed";
}

}  // namespace duepay::domain::json
