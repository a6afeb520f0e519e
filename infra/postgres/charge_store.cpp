#include "infra/postgres/charge_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

namespace duepay::infra::postgres {
namespace {

constexpr const char* kColumns =
    "invoice_id, project_id, mode, chain_id, status, amount::text, token, token_symbol, "
    "token_decimals, "
    "payment_mode, merchant, fee_bps, deadline, deposit_address, reference, return_url, "
    "fiat::text, "
    "amount_confirmed::text, exception, timeline::text, event_count, last_event_id, "
    "to_char(created_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), "
    "to_char(updated_at at time zone 'UTC', 'YYYY-MM-DD\"T\"HH24:MI:SS.MS\"Z\"'), metadata::text, "
    "amount_refunded::text, refunds::text";

template <class T>
std::optional<T> opt(const pqxx::field& f) {
    if (f.is_null()) return std::nullopt;
    return f.as<T>();
}

ChargeRow row_of(const pqxx::row& r) {
    ChargeRow row;
    row.invoice_id = r[0].as<std::string>();
    row.project_id = r[1].as<std::string>();
    row.mode = r[2].as<std::string>();
    row.chain_id = r[3].as<std::uint64_t>();
    row.status = r[4].as<std::string>();
    row.amount = r[5].as<std::string>();
    row.token = r[6].as<std::string>();
    row.token_symbol = opt<std::string>(r[7]);
    row.token_decimals = opt<int>(r[8]);
    row.payment_mode = r[9].as<std::string>();
    row.merchant = r[10].as<std::string>();
    row.fee_bps = r[11].as<int>();
    row.deadline = r[12].as<std::int64_t>();
    row.deposit_address = opt<std::string>(r[13]);
    row.reference = opt<std::string>(r[14]);
    row.return_url = opt<std::string>(r[15]);
    row.fiat_json = opt<std::string>(r[16]);
    row.amount_confirmed = r[17].as<std::string>();
    row.exception = opt<std::string>(r[18]);
    row.timeline_json = r[19].as<std::string>();
    row.event_count = r[20].as<int>();
    row.last_event_id = r[21].as<std::string>();
    row.created_at = r[22].as<std::string>();
    row.updated_at = r[23].as<std::string>();
    row.metadata_json = opt<std::string>(r[24]);
    row.amount_refunded = r[25].as<std::string>();
    row.refunds_json = r[26].as<std::string>();
    return row;
}

using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void put(JsonWriter& w, const char* key, const std::string& value) {
    w.Key(key);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}

void put(JsonWriter& w, const char* key, const std::optional<std::string>& value) {
    w.Key(key);
    if (value) {
        w.String(value->data(), static_cast<rapidjson::SizeType>(value->size()));
    } else {
        w.Null();
    }
}

void put_raw(JsonWriter& w, const char* key, const std::optional<std::string>& json) {
    w.Key(key);
    if (json) {
        w.RawValue(json->data(), json->size(), rapidjson::kObjectType);
    } else {
        w.Null();
    }
}

constexpr const char* kUpsertTail =
    " on conflict (invoice_id) do update set status = excluded.status, amount_confirmed = "
    "excluded.amount_confirmed, exception = excluded.exception, timeline = excluded.timeline, "
    "event_count = excluded.event_count, last_event_id = excluded.last_event_id, "
    "deposit_address = excluded.deposit_address, updated_at = excluded.updated_at, "
    "amount_refunded = excluded.amount_refunded, refunds = excluded.refunds";

}  // namespace

std::set<std::string> insert_journal_entries(pqxx::transaction_base& tx,
                                             const std::vector<JournalEntry>& entries) {
    std::set<std::string> inserted;
    if (entries.empty()) return inserted;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartArray();
    for (const auto& e : entries) {
        w.StartObject();
        put(w, "event_id", e.event_id);
        put(w, "invoice_id", e.invoice_id);
        put(w, "topic", e.topic);
        w.Key("partition");
        w.Int(e.partition);
        w.Key("offset");
        w.Int64(e.offset);
        put(w, "type", e.type);
        w.Key("payload");
        w.RawValue(e.payload.data(), e.payload.size(),
                   rapidjson::kObjectType);  // valid JSON: decoded before
        w.EndObject();
    }
    w.EndArray();
    auto rows =
        tx.exec_prepared("insert_journal", std::string(buffer.GetString(), buffer.GetSize()));
    for (const auto& r : rows) inserted.insert(r[0].as<std::string>());
    return inserted;
}

void upsert_charges(pqxx::transaction_base& tx, const std::vector<ChargeRow>& rows) {
    if (rows.empty()) return;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartArray();
    for (const auto& r : rows) {
        w.StartObject();
        put(w, "invoice_id", r.invoice_id);
        put(w, "project_id", r.project_id);
        put(w, "mode", r.mode);
        w.Key("chain_id");
        w.Uint64(r.chain_id);
        put(w, "status", r.status);
        put(w, "amount", r.amount);
        put(w, "token", r.token);
        put(w, "token_symbol", r.token_symbol);
        w.Key("token_decimals");
        if (r.token_decimals) {
            w.Int(*r.token_decimals);
        } else {
            w.Null();
        }
        put(w, "payment_mode", r.payment_mode);
        put(w, "merchant", r.merchant);
        w.Key("fee_bps");
        w.Int(r.fee_bps);
        w.Key("deadline");
        w.Int64(r.deadline);
        put(w, "deposit_address", r.deposit_address);
        put(w, "reference", r.reference);
        put(w, "return_url", r.return_url);
        put_raw(w, "fiat", r.fiat_json);
        put(w, "amount_confirmed", r.amount_confirmed);
        put(w, "exception", r.exception);
        w.Key("timeline");
        w.RawValue(r.timeline_json.data(), r.timeline_json.size(), rapidjson::kArrayType);
        w.Key("event_count");
        w.Int(r.event_count);
        put(w, "last_event_id", r.last_event_id);
        put(w, "created_at", r.created_at);
        put(w, "updated_at", r.updated_at);
        put_raw(w, "metadata", r.metadata_json);
        put(w, "amount_refunded", r.amount_refunded);
        w.Key("refunds");
        w.RawValue(r.refunds_json.data(), r.refunds_json.size(), rapidjson::kArrayType);
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
    conn.prepare("insert_journal",
                 "insert into charge_events (event_id, invoice_id, topic, partition, \"offset\", "
                 "type, payload) "
                 "select event_id, invoice_id, topic, partition, \"offset\", type, payload "
                 "from json_populate_recordset(null::charge_events, $1::json) "
                 "on conflict (event_id) do nothing returning event_id");
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

std::optional<ChargeStatus> find_charge_status(pqxx::transaction_base& tx,
                                               const std::string& invoice_id) {
    auto rows = tx.exec_prepared("find_charge_status", invoice_id);
    if (rows.empty()) return std::nullopt;
    return ChargeStatus{rows[0][0].as<std::string>(), rows[0][1].as<std::string>(),
                        rows[0][2].as<std::string>()};
}

std::vector<ListedCharge> list_charges(pqxx::transaction_base& tx, const ChargeListQuery& q) {
    // Only the filters given appear in the SQL, so the planner sees the exact shape and picks the
    // index for it; values are always parameters.
    std::string sql = std::string("select ") + kColumns +
                      ", (extract(epoch from created_at) * 1000000)::bigint from charges "
                      "where project_id = $1 and mode = $2";
    std::vector<std::string> params{q.project_id, q.mode};
    auto bind = [&](std::string value, const char* cast) {
        params.push_back(std::move(value));
        sql += '$';
        sql += std::to_string(params.size());
        sql += cast;
    };
    constexpr const char* kMicros = " * interval '1 microsecond'";
    if (q.status) {
        sql += " and status = ";
        bind(*q.status, "::text");
    }
    if (q.chain_id) {
        sql += " and chain_id = ";
        bind(std::to_string(*q.chain_id), "::bigint");
    }
    if (q.reference) {
        sql += " and reference = ";
        bind(*q.reference, "::text");
    }
    if (q.metadata_json) {
        sql += " and metadata @> ";
        bind(*q.metadata_json, "::jsonb");
    }
    if (q.created_gte_us) {
        sql += " and created_at >= timestamptz 'epoch' + ";
        bind(std::to_string(*q.created_gte_us), "::bigint");
        sql += kMicros;
    }
    if (q.created_lt_us) {
        sql += " and created_at < timestamptz 'epoch' + ";
        bind(std::to_string(*q.created_lt_us), "::bigint");
        sql += kMicros;
    }
    if (q.after) {
        sql += " and (created_at, invoice_id) < (timestamptz 'epoch' + ";
        bind(std::to_string(q.after->created_us), "::bigint");
        sql += kMicros;
        sql += ", ";
        bind(q.after->invoice_id, "::text");
        sql += ')';
    }
    sql += " order by created_at desc, invoice_id desc limit ";
    sql += std::to_string(q.limit);
    auto rows = tx.exec_params(sql, pqxx::prepare::make_dynamic_params(params));
    std::vector<ListedCharge> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(ListedCharge{row_of(r), r[27].as<std::int64_t>()});
    return out;
}

void notify_charges(pqxx::transaction_base& tx, const std::vector<std::string>& invoice_ids) {
    std::string payload;
    for (const auto& id : invoice_ids) {
        if (payload.size() + id.size() + 1 > 7900) {
            tx.exec_params("select pg_notify($1, $2)", kChargesChannel, payload);
            payload.clear();
        }
        if (!payload.empty()) payload += ',';
        payload += id;
    }
    if (!payload.empty()) tx.exec_params("select pg_notify($1, $2)", kChargesChannel, payload);
}

}  // namespace duepay::infra::postgres
