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

}  // namespace duepay::infra::postgres::detail
