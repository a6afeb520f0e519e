// Text for SQL parameters shared by the Postgres adapters (internal to infra/postgres).
#pragma once

#include <stdexcept>
#include <string>
#include <string_view>
#include <vector>

namespace duepay::infra::postgres::detail {

// A Postgres text[] literal; the items are validated tokens (event type names, 0x-hex ids), so
// no quoting is needed.
inline std::string array_literal(const std::vector<std::string>& items) {
    std::string out = "{";
    for (std::size_t i = 0; i < items.size(); ++i) {
        if (i) out += ',';
        out += items[i];
    }
    return out + "}";
}

// Refuses a NUL byte (no Postgres text holds one, and a parameter would end there) as
// std::invalid_argument: the projector quarantines the event that carries it.
[[noreturn]] inline void throw_nul(const char* where) {
    throw std::invalid_argument(std::string("a NUL byte in ") + where);
}
inline void refuse_nul(std::string_view text, const char* where) {
    if (text.find('\0') != std::string_view::npos) throw_nul(where);
}

// A Postgres array literal of text elements ({"a","b\"c"}): every element quoted, `"` and `\`
// escaped. A NUL byte (no Postgres text holds one; a parameter would end there) is refused as
// std::invalid_argument: a consumer quarantines the event, as Postgres' refusal of a \u0000 did
// when the rows went as JSON.
class TextArray {
  public:
    void add(std::string_view element) {
        refuse_nul(element, "a journal column");
        text_ += text_.empty() ? "{\"" : ",\"";
        for (const char c : element) {
            if (c == '"' || c == '\\') text_ += '\\';
            text_ += c;
        }
        text_ += '"';
    }
    std::string text() const { return text_.empty() ? "{}" : text_ + '}'; }

  private:
    std::string text_;
};

}  // namespace duepay::infra::postgres::detail
