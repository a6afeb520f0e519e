// Blue/green rebuilds of the charges read model (duepay replay, ADR 0120): the tables the
// projector rebuilds from the topic (kRebuiltTables) get a shadow copy in a schema of their own,
// filled by the same apply_batch with that schema first on the search_path; consumer_offsets and
// quarantined_events stay in public (the replay's rows under its own consumer group). The shadow
// is compared with the live tables over the offsets both have seen, then swapped in by renames in
// one transaction; the live set moves to a "duepay_retired_<time>" schema until dropped.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace duepay::projections::charges {

// The rebuilt tables, in the order the projector writes them (and the swap locks them): the
// journal, the charges, the settlement lines (ADR 0240) with their per-day sums (ADR 0250) and
// the stats read model (ADR 0245) with its cumulative paid-time rows (ADR 0275).
inline constexpr auto kRebuiltTables = std::to_array<const char*>(
    {"charge_events", "charges", "settlement_lines", "settlement_daily", "charge_stats_daily",
     "charge_paid_seconds", "charge_paid_through", "charge_status_counts"});

// The rebuilt tables whose non-unique indexes a shadow gets only once it is loaded (bulk-load
// cost, ADR 0185): `charges` (six list indexes) and `settlement_lines` (the report's period
// index). charge_events keeps its invoice index, which the replay reads by (loading a charge it
// does not hold).
inline constexpr auto kDeferredIndexTables =
    std::to_array<const char*>({"charges", "settlement_lines"});

// The prefix of the schemas that hold swapped-out tables.
inline constexpr const char* kRetiredPrefix = "duepay_retired_";

// A lower-case identifier [a-z_][a-z0-9_]{0,62}, not public, pg_* or a retired schema name.
bool is_valid_shadow_schema(const std::string& name);

// The shadow's marker table while its tables load UNLOGGED (ADR 0190): one row, written when
// the tables are created; a Postgres crash empties it with them.
inline constexpr const char* kUnloggedMarker = "replay_unlogged";

// Creates `schema` and its empty copies of kRebuiltTables (columns, defaults, constraints and
// indexes of the live tables) unless they exist; a table of kDeferredIndexTables it creates
// without its non-unique indexes. With `unlogged`, tables it creates are UNLOGGED (no WAL while
// loading), with the kUnloggedMarker row beside them. Idempotent.
void create_shadow(pqxx::transaction_base& tx, const std::string& schema, bool unlogged = true);

// The shadow `schema` holds some of kRebuiltTables but not all (an older build made it, before a
// table joined them): its rows cannot be resumed, the caller must start over from offset 0.
bool shadow_incomplete(pqxx::transaction_base& tx, const std::string& schema);

// The shadow's tables are UNLOGGED and its marker row is gone: a Postgres crash reset them to
// empty, while the replay's offsets (logged, in public.consumer_offsets) survived; the caller
// must start over from offset 0.
bool unlogged_shadow_lost(pqxx::transaction_base& tx, const std::string& schema);

// Makes the shadow's tables durable (ALTER TABLE ... SET LOGGED: rewritten and WAL-logged once)
// and drops the marker, in the caller's transaction. Before any comparison or swap. Idempotent.
void make_shadow_logged(pqxx::transaction_base& tx, const std::string& schema);

// The CREATE INDEX statements of every non-unique index of a live kDeferredIndexTables table that
// the shadow's lacks (same definition, same name), to run once the shadow is loaded, each in a
// transaction of its own (with maintenance_work_mem raised, kDeferredIndexSettings), several at
// once if wanted: CREATE INDEX's lock lets others build on the same table meanwhile. Running
// them all and asking again gives none.
std::vector<std::string> deferred_index_statements(pqxx::transaction_base& tx,
                                                   const std::string& schema);
inline constexpr const char* kDeferredIndexSettings = "set local maintenance_work_mem = '256MB'";

// Drops `schema` and everything in it, if it exists.
void drop_shadow(pqxx::transaction_base& tx, const std::string& schema);

struct Comparison {
    std::int64_t charges = 0;           // charges compared (every event below the bound)
    std::int64_t mismatches = 0;        // rows that differ (or exist on one side only)
    std::int64_t journal_missing = 0;   // journaled live, not in the shadow
    std::int64_t journal_extra = 0;     // journaled in the shadow, not live
    std::vector<std::string> examples;  // up to 5 invoice ids of mismatching rows
    bool equal() const { return mismatches == 0 && journal_missing == 0 && journal_extra == 0; }
};

// Compares the shadow's rows with the live ones for the charges of `topic` whose every journaled
// event lies below `bound` (partition -> offset; a partition not in it counts as 0): the offsets
// both sides have seen. Rows compare whole, column by column; a charge whose settlement rows
// differ (ADR 0240) is a mismatch too. With `since` (partition -> offset),
// only the charges with an event at or after it and the journal rows from it on: what changed
// after an earlier comparison up to `since` (the swap's recheck under the lock, ADR 0200). With
// `invoices` too, only those charges' events are read (by the journals' invoice index, instead of
// a scan of both journals): the caller knows every charge with an event from `since` on.
Comparison compare_with_live(pqxx::transaction_base& tx, const std::string& schema,
                             const std::string& topic,
                             const std::map<std::int32_t, std::int64_t>& bound,
                             const std::map<std::int32_t, std::int64_t>* since = nullptr,
                             const std::vector<std::string>* invoices = nullptr);

// Takes the live tables out of the projector's hands until commit: EXCLUSIVE locks (reads go on)
// in the projector's write order, so a projector transaction either committed before or waits.
// Gives up with an exception after `lock_timeout_ms`.
void lock_live(pqxx::transaction_base& tx, int lock_timeout_ms);

// Moves the live tables to a new "duepay_retired_<suffix>" schema and the shadow's into public,
// then drops the empty shadow schema. Returns the retired schema's name. Call after lock_live.
std::string swap_in(pqxx::transaction_base& tx, const std::string& schema,
                    const std::string& suffix);

// The retired schemas (oldest first).
std::vector<std::string> retired_schemas(pqxx::transaction_base& tx);

}  // namespace duepay::projections::charges
