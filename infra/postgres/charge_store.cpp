#include "infra/postgres/charge_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string_view>
#include <type_traits>

#include "domain/events/event.hpp"
#include "infra/error.hpp"
#include "infra/postgres/detail/charge_columns.hpp"
#include "infra/postgres/detail/prepared.hpp"
#include "infra/postgres/detail/sql_text.hpp"

namespace duepay::infra::postgres {
namespace {

constexpr const char* kColumns =
    "invoice_id, project_id, mode, chain_id, status, amount::text, token, token_symbol, "
    "token_decimals, "
    "payment_mode, merchant, fee_bps, deadline, deposit_address, reference, return_url, "
    "fiat::text, "
    "amount_confirmed::text, exception, timeline::text, event_count, last_event_id, "
    "(extract(epoch from created_at) * 1000000)::bigint, "
    "(extract(epoch from updated_at) * 1000000)::bigint, metadata::text, "
    "amount_refunded::text, refunds::text, open_exception, exception_resolution::text, "
    "(extract(epoch from exception_resolved_at) * 1000000)::bigint, amount_late::text";

// created_at and updated_at come as unix microseconds and are formatted here, RFC 3339 UTC with
// milliseconds truncated as to_char's MS was ("2026-11-23T10:00:00.123Z"): two to_char() calls
// a row cost Postgres about as much as the rest of a 21-row list page (docs/adr/0188).
std::string rfc3339_of_micros(std::int64_t us) {
    return domain::events::format_rfc3339_millis_utc(us / 1000);
}

// The columns of a row in order, through one field walked along them: r[i] makes a field holding
// a copy of the result (reference counts) per column, which showed in a list page's profile.
class Columns {
  public:
    explicit Columns(const pqxx::row& r) : it_(r.begin()) {}
    template <class T>
    T get() {
        T value = it_->as<T>();
        ++it_;
        return value;
    }
    template <class T>
    std::optional<T> opt() {
        std::optional<T> value;
        if (!it_->is_null()) value = it_->as<T>();
        ++it_;
        return value;
    }

  private:
    pqxx::row::const_iterator it_;
};

ChargeRow row_of(const pqxx::row& r, std::int64_t* created_us = nullptr) {
    Columns c(r);
    ChargeRow row;
    row.invoice_id = c.get<std::string>();
    row.project_id = c.get<std::string>();
    row.mode = c.get<std::string>();
    row.chain_id = c.get<std::uint64_t>();
    row.status = c.get<std::string>();
    row.amount = c.get<std::string>();
    row.token = c.get<std::string>();
    row.token_symbol = c.opt<std::string>();
    row.token_decimals = c.opt<int>();
    row.payment_mode = c.get<std::string>();
    row.merchant = c.get<std::string>();
    row.fee_bps = c.get<int>();
    row.deadline = c.get<std::int64_t>();
    row.deposit_address = c.opt<std::string>();
    row.reference = c.opt<std::string>();
    row.return_url = c.opt<std::string>();
    row.fiat_json = c.opt<std::string>();
    row.amount_confirmed = c.get<std::string>();
    row.exception = c.opt<std::string>();
    row.timeline_json = c.get<std::string>();
    row.event_count = c.get<int>();
    row.last_event_id = c.get<std::string>();
    const auto created = c.get<std::int64_t>();
    row.created_at = rfc3339_of_micros(created);
    if (created_us != nullptr) *created_us = created;
    row.updated_at = rfc3339_of_micros(c.get<std::int64_t>());
    row.metadata_json = c.opt<std::string>();
    row.amount_refunded = c.get<std::string>();
    row.refunds_json = c.get<std::string>();
    row.open_exception = c.opt<std::string>();
    row.exception_resolution_json = c.opt<std::string>();
    if (auto resolved = c.opt<std::int64_t>())
        row.exception_resolved_at = rfc3339_of_micros(*resolved);
    row.amount_late = c.get<std::string>();
    return row;
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

// A ChargeRow as a JSON object, column name -> value (visit_columns), as the upsert's
// json_populate_recordset reads it: numbers as numbers, the JSON columns as JSON, nulls as null.
class JsonColumns {
  public:
    explicit JsonColumns(JsonWriter& w) : w_(w) {}
    void text(const char* name, const std::string& value) {
        w_.Key(name);
        w_.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
    }
    void text(const char* name, const std::optional<std::string>& value) {
        if (value) return text(name, *value);
        w_.Key(name);
        w_.Null();
    }
    template <class Integer>
    void number(const char* name, Integer value) {
        w_.Key(name);
        if constexpr (std::is_unsigned_v<Integer>) {
            w_.Uint64(value);
        } else {
            w_.Int64(value);
        }
    }
    void number(const char* name, std::optional<int> value) {
        if (value) return number(name, *value);
        w_.Key(name);
        w_.Null();
    }
    void json(const char* name, const std::string& value) {
        w_.Key(name);
        w_.RawValue(value.data(), value.size(), rapidjson::kObjectType);
    }
    void json(const char* name, const std::optional<std::string>& value) {
        if (value) return json(name, *value);
        w_.Key(name);
        w_.Null();
    }

  private:
    JsonWriter& w_;
};

// The rows a list statement fetches for `limit` wanted: one of a few sizes (the page sizes 1, 5,
// 10, 20, 25, 50 and 100 plus the hasMore row), so that a connection holds at most 7 statements a
// filter shape; list_charges returns `limit` of them at most.
std::size_t list_fetch_size(std::size_t limit) {
    for (std::size_t n : {2, 6, 11, 21, 26, 51, 101}) {
        if (limit <= n) return n;
    }
    return limit;
}

constexpr const char* kUpsertTail =
    " on conflict (invoice_id) do update set status = excluded.status, amount_confirmed = "
    "excluded.amount_confirmed, exception = excluded.exception, timeline = excluded.timeline, "
    "event_count = excluded.event_count, last_event_id = excluded.last_event_id, "
    "deposit_address = excluded.deposit_address, updated_at = excluded.updated_at, "
    "amount_refunded = excluded.amount_refunded, refunds = excluded.refunds, "
    "open_exception = excluded.open_exception, exception_resolution = "
    "excluded.exception_resolution, exception_resolved_at = excluded.exception_resolved_at, "
    "amount_late = excluded.amount_late";

}  // namespace

std::set<std::string> insert_journal_entries(pqxx::transaction_base& tx,
                                             std::span<const JournalEntry* const> entries,
                                             std::set<std::string>* first_journaled) {
    std::set<std::string> inserted;
    if (entries.empty()) return inserted;
    // One array per column (unnest): Postgres parses each payload once, straight to jsonb; a
    // JSON document of the rows (json_populate_recordset) cost 4x as much (ADR 0185).
    detail::TextArray ids, invoices, topics, partitions, offsets, types, payloads;
    for (const auto* e : entries) {
        ids.add(e->event_id);
        invoices.add(e->invoice_id);
        topics.add(e->topic);
        partitions.add(std::to_string(e->partition));
        offsets.add(std::to_string(e->offset));
        types.add(e->type);
        payloads.add(e->payload);
    }
    auto rows =
        tx.exec_prepared(first_journaled != nullptr ? "insert_journal_first" : "insert_journal",
                         ids.text(), invoices.text(), topics.text(), partitions.text(),
                         offsets.text(), types.text(), payloads.text());
    for (const auto& r : rows) {
        inserted.insert(r[0].as<std::string>());
        if (first_journaled != nullptr && r[2].as<bool>())
            first_journaled->insert(r[1].as<std::string>());
    }
    return inserted;
}

void upsert_charges(pqxx::transaction_base& tx, const std::vector<ChargeRow>& rows) {
    if (rows.empty()) return;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartArray();
    JsonColumns columns(w);
    for (const auto& r : rows) {
        w.StartObject();
        detail::visit_columns(r, columns);
        w.EndObject();
    }
    w.EndArray();
    tx.exec_prepared("upsert_charges", std::string(buffer.GetString(), buffer.GetSize()));
}

void prepare_charge_statements(pqxx::connection& conn) {
    conn.prepare("find_charge",
                 std::string("select ") + kColumns + " from charges where invoice_id = $1");
    conn.prepare("find_charge_status",
                 "select project_id, status, mode from charges where invoice_id = $1");
    const std::string insert_journal =
        "insert into charge_events (event_id, invoice_id, topic, partition, \"offset\", type, "
        "payload) "
        "select * from unnest($1::text[], $2::text[], $3::text[], $4::int[], $5::bigint[], "
        "$6::text[], $7::jsonb[]) "
        "on conflict (event_id) do nothing returning event_id";
    conn.prepare("insert_journal", insert_journal);
    // The subquery sees the journal as it was before this statement (rows inserted by the
    // statement itself are invisible to its snapshot): true = the invoice's first rows.
    // `offset 0` keeps it a per-row index lookup: without it Postgres may turn the EXISTS into a
    // hashed subplan, and a generic plan made while the journal was small then reads the whole
    // journal once per batch (seen on a fresh stack: 12 ms of Postgres CPU per create, ADR 0186).
    conn.prepare("insert_journal_first",
                 insert_journal +
                     ", invoice_id, not exists (select 1 from charge_events prior "
                     "where prior.invoice_id = charge_events.invoice_id offset 0)");
    conn.prepare(
        "upsert_charges",
        std::string(
            "insert into charges select * from json_populate_recordset(null::charges, $1::json)") +
            kUpsertTail);
}

std::vector<std::pair<std::string, std::string>> load_journal(
    pqxx::transaction_base& tx, const std::vector<std::string>& invoice_ids) {
    std::vector<std::pair<std::string, std::string>> out;
    if (invoice_ids.empty()) return out;
    std::string array = "{";
    for (std::size_t i = 0; i < invoice_ids.size(); ++i) {
        if (i) array += ',';
        array += invoice_ids[i];  // 0x-hex: no quoting needed
    }
    array += '}';
    auto rows = tx.exec_params(
        "select invoice_id, payload::text from charge_events where invoice_id = any($1::text[]) "
        "order by invoice_id, partition, \"offset\"",
        array);
    out.reserve(rows.size());
    for (const auto& r : rows) out.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
    return out;
}

std::optional<ChargeRow> find_charge(pqxx::transaction_base& tx, const std::string& invoice_id) {
    auto rows = tx.exec_prepared("find_charge", invoice_id);
    if (rows.empty()) return std::nullopt;
    return row_of(rows[0]);
}

domain::events::Mode stored_mode(const std::string& text) {
    if (text == "test") return domain::events::Mode::test;
    if (text == "live") return domain::events::Mode::live;
    throw InfraError("stored mode is neither test nor live: " + text, false);
}

domain::charge::Status stored_status(std::string_view text) {
    if (auto status = domain::charge::parse_status(text)) return *status;
    throw InfraError("stored status is not a charge status: " + std::string(text), false);
}

std::optional<ports::ChargeStatus> find_charge_status(pqxx::transaction_base& tx,
                                                      const std::string& invoice_id) {
    auto rows = tx.exec_prepared("find_charge_status", invoice_id);
    if (rows.empty()) return std::nullopt;
    return ports::ChargeStatus{domain::ProjectId{rows[0][0].as<std::string>()},
                               stored_status(rows[0][1].c_str()),
                               stored_mode(rows[0][2].as<std::string>())};
}

namespace {

// The filters of a list page, from " where" on (order and limit excepted), with their
// parameters; `shape` has one bit a filter (the prepared statement's name).
struct ListFilters {
    std::string sql;
    std::string without_metadata;  // sql but its metadata containment, the last parameter
    std::vector<std::string> params;
    unsigned shape = 0;
};

ListFilters list_filters(pqxx::transaction_base& tx, const ports::ChargeListQuery& q) {
    ListFilters f;
    f.sql = " where project_id = $1 and mode = $2";
    f.params = {q.project_id.value, std::string(to_string(q.mode))};
    auto bind = [&](unsigned bit, std::string value, const char* cast) {
        f.shape |= bit;
        f.params.push_back(std::move(value));
        f.sql += '$';
        f.sql += std::to_string(f.params.size());
        f.sql += cast;
    };
    constexpr const char* kMicros = " * interval '1 microsecond'";
    if (q.status) {
        // A literal, and part of the statement's name (7 values): with `status = $n` Postgres
        // estimated a quarter of the rows, costed the generic plan above the custom one and so
        // planned every request of a status page (docs/adr/0194); the plan is the same for each.
        f.shape |= 1;
        f.sql += " and status = '";
        f.sql += tx.esc(std::string(domain::charge::to_string(*q.status)));
        f.sql += '\'';
    }
    if (q.chain_id) {
        f.sql += " and chain_id = ";
        bind(2, std::to_string(*q.chain_id), "::bigint");
    }
    if (q.reference) {
        f.sql += " and reference = ";
        bind(4, *q.reference, "::text");
    }
    if (q.created_gte_us) {
        f.sql += " and created_at >= timestamptz 'epoch' + ";
        bind(8, std::to_string(*q.created_gte_us), "::bigint");
        f.sql += kMicros;
    }
    if (q.created_lt_us) {
        f.sql += " and created_at < timestamptz 'epoch' + ";
        bind(16, std::to_string(*q.created_lt_us), "::bigint");
        f.sql += kMicros;
    }
    if (q.after) {
        f.sql += " and (created_at, invoice_id) < (timestamptz 'epoch' + ";
        bind(32, std::to_string(q.after->created_us), "::bigint");
        f.sql += kMicros;
        f.sql += ", ";
        bind(32, q.after->invoice_id, "::text");
        f.sql += ')';
    }
    if (q.exceptions) {
        // A literal, like the status: each list has its own partial index (migration 0230).
        const bool open = *q.exceptions == ports::ExceptionList::open;
        f.shape |= open ? 128 : 256;
        f.sql += open ? " and open_exception is not null"
                      : " and open_exception is null and exception_resolved_at is not null";
    }
    if (q.metadata_json) {
        f.without_metadata = f.sql;
        f.sql += " and metadata @> ";
        bind(64, *q.metadata_json, "::jsonb");
    }
    return f;
}

constexpr const char* kListOrder = " order by created_at desc, invoice_id desc";

// The probe reads through bitmap scans alone: the GIN index, or a btree's range of another filter
// when the planner finds it smaller (a reference, a few minutes), never the keyset walk nor the
// whole table, whatever it estimates for the value. The walk then may only read an index in the
// page's order: no sort. Local to the transaction (docs/adr/0300).
constexpr const char* kProbeSettings =
    "set local enable_seqscan = off; set local enable_indexscan = off; "
    "set local enable_indexonlyscan = off";
constexpr const char* kWalkSettings =
    "set local enable_seqscan to default; set local enable_indexscan to default; "
    "set local enable_indexonlyscan to default; set local enable_sort = off; "
    "set local enable_incremental_sort = off";

}  // namespace

MetadataListSql metadata_list_sql(pqxx::transaction_base& tx, const ports::ChargeListQuery& q) {
    const std::size_t fetch = list_fetch_size(q.limit);
    auto f = list_filters(tx, q);
    const std::string filtered = std::string(kColumns) + " from charges" + f.sql;
    MetadataListSql out;
    // The newest kMetadataWalkBudget x fetch charges of the other filters, in order; the matches
    // among them, newest first.
    out.budget = "select " + std::string(kColumns) + " from (select * from charges" +
                 f.without_metadata + kListOrder + " limit " +
                 std::to_string(kMetadataWalkBudget * fetch) + ") w where metadata @> $" +
                 std::to_string(f.params.size()) + "::jsonb" + kListOrder + " limit " +
                 std::to_string(fetch);
    out.probe_settings = kProbeSettings;
    // The matches' keys, kMetadataProbeCap + 1 at most; the page's rows are then read by primary
    // key, newest first, with the number of keys found as a last column.
    out.probe = "with p as materialized (select invoice_id, created_at from charges" + f.sql +
                " limit " + std::to_string(kMetadataProbeCap + 1) + ") select " + kColumns +
                ", (select count(*) from p) from charges where invoice_id = any (array(select "
                "invoice_id from p" +
                kListOrder + " limit " + std::to_string(fetch) + "))" + kListOrder;
    out.walk_settings = kWalkSettings;
    out.walk = "select " + filtered + kListOrder + " limit " + std::to_string(fetch);
    out.params = std::move(f.params);
    return out;
}

namespace {

std::vector<ListedRow> listed_rows(const pqxx::result& rows, std::size_t limit) {
    std::vector<ListedRow> out;
    out.reserve(std::min<std::size_t>(rows.size(), limit));
    for (auto it = rows.begin(); it != rows.end() && out.size() < limit; ++it) {
        ListedRow listed;
        listed.row = row_of(*it, &listed.created_us);
        out.push_back(std::move(listed));
    }
    return out;
}

// A page with a metadata filter (docs/adr/0300): the newest charges first, a bounded number; when
// they hold less than a page of matches, the GIN probe; when it found at most kMetadataProbeCap
// matches they are all the page can hold, sorted; otherwise the keyset walk.
pqxx::result list_by_metadata(pqxx::transaction_base& tx, const ports::ChargeListQuery& q) {
    if (dynamic_cast<pqxx::dbtransaction*>(&tx) == nullptr) {
        throw InfraError(
            "a charge list by metadata needs a transaction (its planner settings "
            "are local to it)",
            false);
    }
    const auto sql = metadata_list_sql(tx, q);
    const auto params = [&] { return pqxx::prepare::make_dynamic_params(sql.params); };
    auto rows = tx.exec_params(sql.budget, params());
    if (rows.size() >= list_fetch_size(q.limit)) return rows;
    tx.exec(sql.probe_settings);
    rows = tx.exec_params(sql.probe, params());
    if (rows.empty() || rows[0][rows.columns() - 1].as<std::size_t>() <= kMetadataProbeCap)
        return rows;
    tx.exec(sql.walk_settings);
    return tx.exec_params(sql.walk, params());
}

}  // namespace

std::vector<ListedRow> list_charges(pqxx::transaction_base& tx, const ports::ChargeListQuery& q) {
    if (q.metadata_json) return listed_rows(list_by_metadata(tx, q), q.limit);
    // Only the filters given appear in the SQL, so the planner sees the exact shape and picks the
    // index for it; values are always parameters. The shape (one bit a filter) and the row count
    // name a prepared statement, so a page is planned once per connection, not per request.
    auto f = list_filters(tx, q);
    const std::size_t fetch = list_fetch_size(q.limit);
    const std::string sql = std::string("select ") + kColumns + " from charges" + f.sql +
                            kListOrder + " limit " + std::to_string(fetch);
    // libpqxx 6.4 registers the definition (a no-op when known) and prepares it on first use.
    std::string name = "list_charges_" + std::to_string(f.shape) + "_" + std::to_string(fetch);
    if (q.status) {
        name += '_';
        name += domain::charge::to_string(*q.status);
    }
    tx.conn().prepare(name, sql);
    return listed_rows(tx.exec_prepared(name, pqxx::prepare::make_dynamic_params(f.params)),
                       q.limit);
}

void notify_charges(pqxx::transaction_base& tx, const std::vector<std::string>& invoice_ids) {
    std::string payload;
    for (const auto& id : invoice_ids) {
        if (payload.size() + id.size() + 1 > 7900) {
            detail::exec_prepared_sql(tx, "notify", "select pg_notify($1, $2)", kChargesChannel,
                                      payload);
            payload.clear();
        }
        if (!payload.empty()) payload += ',';
        payload += id;
    }
    if (!payload.empty()) {
        detail::exec_prepared_sql(tx, "notify", "select pg_notify($1, $2)", kChargesChannel,
                                  payload);
    }
}

}  // namespace duepay::infra::postgres
