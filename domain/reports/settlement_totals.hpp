// The totals of a settlement report (docs/reports.md): per token (chain id + token address) and
// per fiat currency, the sums of the rows' signed columns. An accumulator, so a streamed report
// totals the very rows it sent without holding them. Pure.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "domain/reports/settlement.hpp"

namespace duepay::domain::reports {

// The sums of one token's rows, in its smallest unit. amount = paid - refunded; net = amount -
// fees.
struct TokenTotal {
    std::uint64_t chain_id = 0;
    std::string token;  // the address as the rows write it (EIP-55)
    std::string symbol;
    unsigned decimals = 0;
    std::uint64_t payments = 0;  // payment rows
    std::uint64_t refunds = 0;   // refund rows
    BigInt paid;                 // the payment rows' amounts
    BigInt refunded;             // the refund rows' amounts, as a positive number
    BigInt amount;               // the amount column's sum
    BigInt fees;
    BigInt net;
    bool operator==(const TokenTotal&) const = default;
};

// The sums of the fiat columns of the rows priced in one currency, in its minor unit.
struct FiatTotal {
    std::string currency;
    std::uint64_t rows = 0;
    BigInt amount;
    BigInt fees;
    BigInt net;
    bool operator==(const FiatTotal&) const = default;
};

struct SettlementTotals {
    std::vector<TokenTotal> tokens;  // by chain id, then token
    std::vector<FiatTotal> fiat;     // by currency
    bool operator==(const SettlementTotals&) const = default;
};

// One row as the totals read it.
struct TotalsInput {
    std::uint64_t chain_id = 0;
    std::string_view token;
    std::string_view symbol;
    unsigned decimals = 0;
    RowKind kind = RowKind::payment;
    BigInt amount;  // signed, as PricedRow
    BigInt fee;
    BigInt net;
    std::optional<std::string_view> fiat_currency;  // with the three below
    BigInt fiat_amount;
    BigInt fiat_fee;
    BigInt fiat_net;
};

class TotalsAccumulator {
  public:
    void add(const TotalsInput& row);
    SettlementTotals totals() const;

  private:
    std::map<std::pair<std::uint64_t, std::string>, TokenTotal> tokens_;
    std::map<std::string, FiatTotal, std::less<>> fiat_;
};

// A signed decimal integer ("-12", "0") as a number; nullopt for anything else.
std::optional<BigInt> parse_integer(std::string_view text);

// A signed decimal with exactly `decimals` fraction digits ("-351.75" for 2) as an integer of the
// smallest unit (-35175); the inverse of format_fixed. nullopt for anything else.
std::optional<BigInt> parse_fixed(std::string_view text, unsigned decimals);

}  // namespace duepay::domain::reports
