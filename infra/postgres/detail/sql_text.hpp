// Text for SQL parameters shared by the Postgres adapters (internal to infra/postgres).
#pragma once

#include <string>
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

}  // namespace duepay::infra::postgres::detail
