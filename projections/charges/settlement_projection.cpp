#include "projections/charges/settlement_projection.hpp"

#include <stdexcept>

#include "domain/hex.hpp"
#include "domain/money/rate.hpp"

namespace duepay::projections::charges {

namespace rep = domain::reports;

namespace {

std::string fixed(const rep::BigInt& value, unsigned decimals) {
    auto text = rep::format_fixed(domain::money::to_decimal(value), decimals);
    if (!text) throw std::logic_error("settlement: an integer that does not format");
    return *text;
}

}  // namespace

infra::postgres::SettlementRow settlement_row(const infra::postgres::ChargeRow& charge,
                                              const rep::PriceTerms& terms,
                                              const rep::SettlementEntry& entry) {
    const auto priced = rep::price(terms, entry);
    infra::postgres::SettlementRow row;
    row.invoice_id = charge.invoice_id;
    row.kind = std::string(rep::to_string(entry.kind));
    row.tx_hash = domain::to_hex(entry.tx_hash);
    row.log_index = entry.log_index;
    row.project_id = charge.project_id;
    row.mode = charge.mode;
    row.chain_id = charge.chain_id;
    row.token = charge.token;
    row.token_symbol = charge.token_symbol;
    row.token_decimals = static_cast<int>(terms.decimals);
    row.block_number = entry.block_number;
    row.confirmed_at = entry.occurred_at;
    row.reference = charge.reference;
    row.metadata_json = charge.metadata_json;
    row.amount = domain::money::to_decimal(priced.amount);
    row.fee = domain::money::to_decimal(priced.fee);
    row.net = domain::money::to_decimal(priced.net);
    if (priced.fiat_currency && priced.fiat_rate) {
        row.fiat_currency = std::string(domain::money::to_string(*priced.fiat_currency));
        row.fiat_rate = domain::money::to_string(*priced.fiat_rate);
        row.fiat_amount = fixed(*priced.fiat_amount, domain::money::kFiatMinorDigits);
        row.fiat_fee = fixed(*priced.fiat_fee, domain::money::kFiatMinorDigits);
        row.fiat_net = fixed(*priced.fiat_net, domain::money::kFiatMinorDigits);
    }
    if (entry.kind == rep::RowKind::refund) row.refund_id = entry.refund_id;
    return row;
}

}  // namespace duepay::projections::charges
