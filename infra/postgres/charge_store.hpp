// SQL of the `charges` read model and the `charge_events` journal. Functions take the caller's
// transaction so the projector can write events, rows and offsets atomically.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <pqxx/pqxx>
#include <set>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "domain/ports/api.hpp"
#include "infra/postgres/charge_row.hpp"

namespace duepay::infra::postgres {

// The mode column ('test' | 'live') as the domain's enum; throws InfraError (not retryable)
// otherwise.
domain::events::Mode stored_mode(const std::string& text);
// The status column as the domain's Status (domain::charge::parse_status); throws InfraError (not
// retryable) for any other text.
domain::charge::Status stored_status(std::string_view text);

inline constexpr const char* kChargesChannel =
    "duepay_charges";  // NOTIFY payload: invoice ids, comma separated

// Prepares the statements below on a connection (use as the pool's on_connect hook).
void prepare_charge_statements(pqxx::connection& conn);

struct JournalEntry {
    std::string event_id;
    std::string invoice_id;
    std::string topic;
    std::int32_t partition = 0;
    std::int64_t offset = 0;
    std::string type;
    std::string payload;  // event JSON
};

// Inserts the entries whose event_id is not there yet, in one statement (one array per column,
// unnest; ADR 0185); returns the event ids actually inserted. With `first_journaled`: also the
// invoice ids of inserted entries whose invoice had no journal row before this statement (so its
// journal is now exactly its inserted entries), found by the same statement (ADR 0186).
std::set<std::string> insert_journal_entries(pqxx::transaction_base& tx,
                                             std::span<const JournalEntry* const> entries,
                                             std::set<std::string>* first_journaled = nullptr);

// Bulk writes (charge_copy.cpp) for a consumer that alone writes its tables (duepay replay into
// its own schema, ADR 0200): COPY, which Postgres parses field by field, instead of an INSERT of
// column arrays. Copies `entries` into the journal inside a savepoint of `tx`: false, with nothing
// written and `tx` usable, when an event id is already journaled or twice in `entries` (the caller
// then inserts them with insert_journal_entries). A NUL byte throws std::invalid_argument.
bool copy_journal_entries(pqxx::transaction_base& tx, std::span<const JournalEntry* const> entries);

// Copies rows of charges that have no row yet (a duplicate invoice id fails the transaction).
void copy_charges(pqxx::transaction_base& tx, const std::vector<ChargeRow>& rows);

// The stored events (JSON text) of each invoice, in log order, for re-folding.
std::vector<std::pair<std::string, std::string>> load_journal(
    pqxx::transaction_base& tx, const std::vector<std::string>& invoice_ids);

// Upserts many rows in one statement (json_populate_recordset).
void upsert_charges(pqxx::transaction_base& tx, const std::vector<ChargeRow>& rows);

std::optional<ChargeRow> find_charge(pqxx::transaction_base& tx, const std::string& invoice_id);

std::optional<ports::ChargeStatus> find_charge_status(pqxx::transaction_base& tx,
                                                      const std::string& invoice_id);

// One page of GET /v1/charges (ports::ChargeListQuery): rows and their keyset positions. Every
// filter is served by an index of migration 0161.
struct ListedRow {
    ChargeRow row;
    std::int64_t created_us = 0;  // created_at in unix microseconds (the keyset position)
};

// A page with a metadata filter (docs/adr/0300) reads the GIN index first, in a transaction (a
// pqxx::work; a nontransaction is refused) whose planner settings it changes for that read.
std::vector<ListedRow> list_charges(pqxx::transaction_base& tx,
                                    const ports::ChargeListQuery& query);

// A page with a metadata filter first checks the newest kMetadataWalkBudget x (rows fetched)
// charges of its other filters; when fewer than a page of them match, the GIN probe reads the
// keys of kMetadataProbeCap + 1 matches at most: up to kMetadataProbeCap, the page is sorted from
// them; more, and the value is common enough for the keyset walk.
inline constexpr std::size_t kMetadataWalkBudget = 10;
inline constexpr std::size_t kMetadataProbeCap = 1000;

// The statements of a page with a metadata filter, with their parameters (the same for all), as
// list_charges runs them; also for EXPLAIN in tests and by hand. `budget`: the matches among the
// newest charges of the other filters. `probe` (after `probe_settings`, SET LOCAL: bitmap scans
// only): the keys of at most kMetadataProbeCap + 1 matches, through the GIN index, the page's
// rows read from them by primary key, and the number of keys found as an extra last column.
// `walk` (after `walk_settings`: no sort, so an index walk in the page's order): the statement a
// page without the probe would be.
struct MetadataListSql {
    std::string budget;
    std::string probe_settings;
    std::string probe;
    std::string walk_settings;
    std::string walk;
    std::vector<std::string> params;
};
MetadataListSql metadata_list_sql(pqxx::transaction_base& tx, const ports::ChargeListQuery& query);

// Sends NOTIFY on kChargesChannel (delivered at commit), in payloads under Postgres' 8000-byte
// limit.
void notify_charges(pqxx::transaction_base& tx, const std::vector<std::string>& invoice_ids);

}  // namespace duepay::infra::postgres
