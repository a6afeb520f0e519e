#include "domain/reports/settlement_totals.hpp"

namespace duepay::domain::reports {

void TotalsAccumulator::add(const TotalsInput& row) {
    auto [it, fresh] = tokens_.try_emplace({row.chain_id, std::string(row.token)});
    auto& t = it->second;
    if (fresh) {
        t.chain_id = row.chain_id;
        t.token = std::string(row.token);
        t.symbol = std::string(row.symbol);
        t.decimals = row.decimals;
    }
    if (row.kind == RowKind::payment) {
        ++t.payments;
        t.paid += row.amount;
    } else {
        ++t.refunds;
        t.refunded -= row.amount;
    }
    t.amount += row.amount;
    t.fees += row.fee;
    t.net += row.net;
    if (!row.fiat_currency) return;
    auto found = fiat_.find(*row.fiat_currency);
    if (found == fiat_.end()) {
        found = fiat_.emplace(std::string(*row.fiat_currency), FiatTotal{}).first;
        found->second.currency = std::string(*row.fiat_currency);
    }
    auto& f = found->second;
    ++f.rows;
    f.amount += row.fiat_amount;
    f.fees += row.fiat_fee;
    f.net += row.fiat_net;
}

SettlementTotals TotalsAccumulator::totals() const {
    SettlementTotals out;
    for (const auto& [key, t] : tokens_) out.tokens.push_back(t);
    for (const auto& [key, f] : fiat_) out.fiat.push_back(f);
    return out;
}

std::optional<BigInt> parse_integer(std::string_view text) {
    const bool negative = !text.empty() && text.front() == '-';
    std::string_view digits = negative ? text.substr(1) : text;
    if (digits.empty() || digits.size() > 100) return std::nullopt;
    for (const char c : digits) {
        if (c < '0' || c > '9') return std::nullopt;
    }
    // Boost reads a leading 0 as an octal prefix ("036" would be 30): drop the zeros.
    while (digits.size() > 1 && digits.front() == '0') digits.remove_prefix(1);
    const BigInt value{std::string(digits)};
    return negative ? BigInt(-value) : value;
}

std::optional<BigInt> parse_fixed(std::string_view text, unsigned decimals) {
    if (decimals == 0) return parse_integer(text);
    if (text.size() < decimals + 2) return std::nullopt;
    const auto point = text.size() - decimals - 1;
    if (text[point] != '.') return std::nullopt;
    const std::string_view fraction = text.substr(point + 1);
    for (const char c : fraction) {
        if (c < '0' || c > '9') return std::nullopt;
    }
    const std::string joined = std::string(text.substr(0, point)) + std::string(fraction);
    const std::string_view whole = text.substr(0, point);
    if (whole.empty() || whole == "-") return std::nullopt;
    return parse_integer(joined);
}

}  // namespace duepay::domain::reports
