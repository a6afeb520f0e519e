// The folded charges a replay keeps in memory between batches (duepay replay, ADR 0184), so a
// batch folds only its own new events into each touched charge instead of re-reading and
// re-decoding the charge's whole journal. The fold is domain::charge::apply and the row is
// to_row (charge_projection.hpp): the same rules and mapping as project_charge, applied
// incrementally. A charge it does not hold is folded once from its journal (a loader the caller
// gives: after a resume, or after an eviction), then kept.
//
// Staging follows the projector's savepoints: fold() stages the touched charges' new states;
// keep() makes them the memory when the savepoint is released, discard() drops them when it is
// rolled back. The memory is valid while the transactions it folded into commit; a caller whose
// transaction fails must drop it (the replay exits; a rerun resumes from the stored offsets).
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <optional>
#include <span>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "domain/charge/charge_state.hpp"
#include "domain/events/event.hpp"
#include "domain/reports/settlement.hpp"
#include "domain/reports/stats_delta.hpp"
#include "infra/postgres/charge_row.hpp"
#include "infra/postgres/settlement_row.hpp"
#include "projections/charges/charge_projection.hpp"

namespace duepay::projections::charges {

// A charge's journaled events (decoded, log order), per invoice id (0x hex).
using ChargeEvents = std::vector<std::pair<std::string, std::vector<domain::events::Event>>>;

class ChargeMemory {
  public:
    // The journal's events of these invoice ids, in log order (the events fold() is given are
    // journaled before it is called, so they are among them).
    using Loader = std::function<ChargeEvents(const std::vector<std::string>& invoice_ids)>;

    // `journal_empty`: the journal held no event when this memory started, and only this memory
    // writes it (a replay's worker over its own partitions into a fresh schema): a charge it
    // does not hold then has no journaled event but the new ones, and nothing is loaded.
    // `capacity`: charges held at most; beyond it the charges not touched by the last two folds
    // are dropped (and loaded again when they come back). The default holds the 222,223 charges
    // a worker of two meets in bench/replay's 1,000,000 events (memory used: bench/RESULTS.md,
    // "Moved from ADR 0184").
    explicit ChargeMemory(bool journal_empty, std::size_t capacity = 300'000);

    struct Folded {
        std::vector<infra::postgres::ChargeRow> rows;  // charges that had a row before the fold
        // Charges whose charge.created is among the fresh events: no row was written for them
        // yet (rows are written whenever a charge with its charge.created is folded).
        std::vector<infra::postgres::ChargeRow> new_rows;
        std::vector<std::string> deferred;  // touched, no charge.created yet: no row
        domain::reports::StatsRows stats;   // what the fresh events add to the stats (ADR 0245)
        // The settlement rows the fresh events added (settlement_projection.hpp, ADR 0240).
        std::vector<infra::postgres::SettlementRow> settlements;
    };

    // The rows of the charges `fresh` touches after folding it in (staged until keep()):
    // `fresh` are newly journaled events (each event id once), in log order. A charge without
    // its charge.created yet has no row (as project_charge).
    Folded fold(std::span<const domain::events::Event* const> fresh, const Loader& load);

    void keep();
    void discard();

    std::size_t size() const { return held_.size(); }
    std::size_t loaded() const { return loaded_; }  // charges folded from their journal so far

  private:
    struct Charge {
        domain::charge::ChargeState state = domain::charge::initial_state();
        // created_columns of the first charge.created (mapped once).
        std::optional<infra::postgres::ChargeRow> row;
        std::optional<domain::reports::ChargeTerms> terms;       // of the same charge.created
        std::optional<domain::reports::PriceTerms> price_terms;  // the settlement rows' terms
        bool created_now = false;  // that charge.created is among the current fold's events
        LastEvent last;
        int events = 0;  // journaled events (the row's event_count)
        std::uint64_t touched = 0;
        // Applies `event`; with `stats`, sums what it adds to the stats there; with `settlements`,
        // appends the settlement rows it adds.
        void add(const domain::events::Event& event, domain::reports::StatsRows* stats,
                 std::vector<infra::postgres::SettlementRow>* settlements);
    };
    struct KeyHash {
        std::size_t operator()(const domain::InvoiceId& id) const;
    };
    using Charges = std::unordered_map<domain::InvoiceId, Charge, KeyHash>;

    bool complete_;
    std::size_t capacity_;
    std::uint64_t folds_ = 0;
    std::size_t loaded_ = 0;
    Charges held_;
    Charges staged_;
};

}  // namespace duepay::projections::charges
