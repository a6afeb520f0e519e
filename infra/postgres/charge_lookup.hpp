// One-shot reads of a single charge for the dev tools and the analysts' commands (`duepay settle`,
// `simulate-payment`, `charge history`): each opens its own connection for one read. A connection
// that cannot be opened or is lost is DatabaseUnavailable (their `database_unavailable`). Here so
// consumers/ names no libpqxx type (ADR 0205).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace duepay::infra::postgres {

// The columns of a `charges` row the on-chain tools need, as text (null: nullopt).
struct ChargeChainColumns {
    std::string mode;
    std::string payment_mode;
    std::string status;
    std::int64_t chain_id = 0;
    std::string amount;  // decimal
    std::string token;
    std::string merchant;
    int fee_bps = 0;
    std::int64_t deadline = 0;
    std::optional<std::string> deposit_address;
};
std::optional<ChargeChainColumns> find_charge_chain_columns(const std::string& database_url,
                                                            const std::string& invoice_hex);

// The journaled events (JSON text) of one invoice, in log order.
std::vector<std::string> load_charge_journal(const std::string& database_url,
                                             const std::string& invoice_hex);

}  // namespace duepay::infra::postgres
