// The pure event -> read-model mapping (docs/style.md): from a charge's folded state and its
// charge.created event to the `charges` row. No I/O; charge_projector.cpp does the SQL.
#pragma once

#include <functional>
#include <optional>
#include <span>
#include <string>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/reports/stats_delta.hpp"
#include "domain/result.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/settlement_row.hpp"

namespace duepay::projections::charges {

// The timeline as the read model and the full read show it: [{status, at, txHash (or null)}], a
// resolution's entry with its `resolution` (domain/charge/resolution_json.hpp).
std::string timeline_json(const std::vector<domain::charge::TimelineEntry>& timeline);

// What the row takes from a charge's latest event.
struct LastEvent {
    std::string id;
    std::string occurred_at;
};

// The row for a charge whose state is `state` after `event_count` events, the last being `last`.
// `created` must hold ChargeCreated data (else std::invalid_argument). It is created_columns then
// set_state_columns: a consumer that keeps a charge (ChargeMemory) maps its charge.created once.
infra::postgres::ChargeRow to_row(const domain::charge::ChargeState& state,
                                  const domain::events::Event& created, const LastEvent& last,
                                  int event_count);

// The columns a charge's charge.created fixes (all but set_state_columns'), from `created`
// (ChargeCreated data, else std::invalid_argument).
infra::postgres::ChargeRow created_columns(const domain::events::Event& created);

// Sets the columns that follow the charge's state and its latest event.
void set_state_columns(infra::postgres::ChargeRow& row, const domain::charge::ChargeState& state,
                       const LastEvent& last, int event_count);

// Folds `events` (one charge, log order) and maps the result; nullopt while no charge.created is
// among them (an orphan chain fact waits for its charge).
std::optional<infra::postgres::ChargeRow> project_charge(
    std::span<const domain::events::Event> events);

// The same fold, and the settlement rows its events add (settlement_projection.hpp, ADR 0240).
struct ProjectedCharge {
    infra::postgres::ChargeRow row;
    std::vector<infra::postgres::SettlementRow> settlements;
};
std::optional<ProjectedCharge> project_charge_and_settlements(
    std::span<const domain::events::Event> events);
// The same fold, and also what the events for which `fresh` is true add to the stats read model
// (domain/reports/stats_delta.hpp) summed into `stats`: the events already counted by an earlier
// batch are folded without counting (ADR 0245). Every settlement row of the charge is returned
// (the insert keeps the rows already there).
std::optional<ProjectedCharge> project_charge(
    std::span<const domain::events::Event> events,
    const std::function<bool(const domain::events::Event&)>& fresh,
    domain::reports::StatsRows& stats);

// Every text column of `row` is storable text (domain/text.hpp): what Postgres accepts.
bool row_is_storable(const infra::postgres::ChargeRow& row);

// The admission check of a create (ADR 0043): encodes `created` (a charge.created event), decodes
// the bytes back, checks they equal `created`, and maps it to the row the projector would write
// (which must be storable). Returns the encoded event, the exact bytes to append; or an error
// `unprocessable_charge` naming what failed, so nothing reaches the topic that a consumer cannot
// apply.
domain::Result<std::string> encode_checked_created(const domain::events::Event& created);

}  // namespace duepay::projections::charges
