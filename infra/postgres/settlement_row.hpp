// One row of the `settlement_lines` read model (schemas/migrations/0240_settlement_lines.sql): a
// payment or a refund of the settlement report (docs/reports.md, ADR 0240). The projection writes
// it and the report reads it back; its fields are the port's row (domain/ports/reports.hpp).
#pragma once

#include "domain/ports/reports.hpp"

namespace duepay::infra::postgres {

using SettlementRow = ports::SettlementLine;

}  // namespace duepay::infra::postgres
