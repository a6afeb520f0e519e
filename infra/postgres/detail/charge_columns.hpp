// The `charges` table's columns as ChargeRow fields, in table order: the one list the row writers
// walk (the upsert's JSON document, COPY's lines, COPY's column list). Internal to infra/postgres.
#pragma once

#include <optional>
#include <string>

#include "infra/postgres/charge_row.hpp"

namespace duepay::infra::postgres::detail {

// Calls, for each column of `r` in table order, one of
//   out.text(name, const std::string&)              text, numeric and timestamptz columns
//   out.text(name, const std::optional<std::string>&)  the same, nullable
//   out.number(name, integer) / out.number(name, std::optional<int>)
//   out.json(name, const std::string&) / out.json(name, const std::optional<std::string>&)
template <class Out>
void visit_columns(const ChargeRow& r, Out& out) {
    out.text("invoice_id", r.invoice_id);
    out.text("project_id", r.project_id);
    out.text("mode", r.mode);
    out.number("chain_id", r.chain_id);
    out.text("status", r.status);
    out.text("amount", r.amount);
    out.text("token", r.token);
    out.text("token_symbol", r.token_symbol);
    out.number("token_decimals", r.token_decimals);
    out.text("payment_mode", r.payment_mode);
    out.text("merchant", r.merchant);
    out.number("fee_bps", r.fee_bps);
    out.number("deadline", r.deadline);
    out.text("deposit_address", r.deposit_address);
    out.text("reference", r.reference);
    out.text("return_url", r.return_url);
    out.json("fiat", r.fiat_json);
    out.text("amount_confirmed", r.amount_confirmed);
    out.text("exception", r.exception);
    out.json("timeline", r.timeline_json);
    out.number("event_count", r.event_count);
    out.text("last_event_id", r.last_event_id);
    out.text("created_at", r.created_at);
    out.text("updated_at", r.updated_at);
    out.json("metadata", r.metadata_json);
    out.text("amount_refunded", r.amount_refunded);
    out.json("refunds", r.refunds_json);
    out.text("open_exception", r.open_exception);
    out.json("exception_resolution", r.exception_resolution_json);
    out.text("exception_resolved_at", r.exception_resolved_at);
    out.text("amount_late", r.amount_late);
}

}  // namespace duepay::infra::postgres::detail
