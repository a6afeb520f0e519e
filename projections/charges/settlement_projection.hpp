// The pure event -> settlement_lines mapping (docs/reports.md, ADR 0240): a row the events of a
// charge add (domain/reports/settlement.hpp) priced by the charge's terms and described by the
// columns its charge.created fixed (the charges row's created_columns). No I/O; the projector
// (charge_projector.cpp) writes the rows in the transaction of the charge's row and its offsets.
#pragma once

#include <span>
#include <vector>

#include "domain/events/event.hpp"
#include "domain/reports/settlement.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/settlement_row.hpp"

namespace duepay::projections::charges {

// The row of `entry` for the charge whose created columns are `charge` (created_columns) and
// whose terms are `terms` (domain::reports::terms_of its charge.created).
infra::postgres::SettlementRow settlement_row(const infra::postgres::ChargeRow& charge,
                                              const domain::reports::PriceTerms& terms,
                                              const domain::reports::SettlementEntry& entry);

}  // namespace duepay::projections::charges
