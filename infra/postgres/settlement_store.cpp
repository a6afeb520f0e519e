#include "infra/postgres/settlement_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "domain/events/event.hpp"

namespace duepay::infra::postgres {
namespace {

namespace rep = domain::reports;
using JsonWriter = rapidjson::Writer<rapidjson::StringBuffer>;

void text(JsonWriter& w, const char* name, const std::string& value) {
    w.Key(name);
    w.String(value.data(), static_cast<rapidjson::SizeType>(value.size()));
}
void text(JsonWriter& w, const char* name, const std::optional<std::string>& value) {
    if (value) return text(w, name, *value);
    w.Key(name);
    w.Null();
}

// The columns the report reads, in SettlementRow order; confirmed_at as unix microseconds.
constexpr const char* kColumns =
    "invoice_id, kind, tx_hash, log_index, project_id, mode, chain_id, token, token_symbol, "
    "token_decimals, block_number, (extract(epoch from confirmed_at) * 1000000)::bigint, "
    "reference, metadata, amount::text, fee::text, net::text, fiat_currency, fiat_rate, "
    "fiat_amount::text, fiat_fee::text, fiat_net::text, refund_id";

constexpr const char* kPeriod =
    "project_id = $1 and mode = $2 "
    "and confirmed_at >= timestamptz 'epoch' + $3::bigint * interval '1 millisecond' "
    "and confirmed_at < timestamptz 'epoch' + $4::bigint * interval '1 millisecond'";

SettlementRow row_of(const pqxx::row& r) {
    SettlementRow row;
    auto it = r.begin();
    const auto next = [&it]() { return it++; };
    const auto opt = [](const pqxx::field& f) -> std::optional<std::string> {
        if (f.is_null()) return std::nullopt;
        return f.as<std::string>();
    };
    row.invoice_id = next()->as<std::string>();
    row.kind = next()->as<std::string>();
    row.tx_hash = next()->as<std::string>();
    row.log_index = next()->as<std::int64_t>();
    row.project_id = next()->as<std::string>();
    row.mode = next()->as<std::string>();
    row.chain_id = next()->as<std::uint64_t>();
    row.token = next()->as<std::string>();
    row.token_symbol = opt(*next());
    row.token_decimals = next()->as<int>();
    row.block_number = next()->as<std::uint64_t>();
    row.confirmed_us = next()->as<std::int64_t>();
    row.confirmed_at = domain::events::format_rfc3339_millis_utc(row.confirmed_us / 1000);
    row.reference = opt(*next());
    row.metadata_json = opt(*next());
    row.amount = next()->as<std::string>();
    row.fee = next()->as<std::string>();
    row.net = next()->as<std::string>();
    row.fiat_currency = opt(*next());
    row.fiat_rate = opt(*next());
    row.fiat_amount = opt(*next());
    row.fiat_fee = opt(*next());
    row.fiat_net = opt(*next());
    row.refund_id = opt(*next());
    return row;
}

// A summed numeric column: an integer, or with `decimals` fraction digits (numeric keeps the
// scale of what it summed). Anything else is a broken read model.
rep::BigInt summed(const pqxx::field& f, unsigned decimals) {
    const auto text = f.is_null() ? std::string("0") : f.as<std::string>();
    auto value = text.find('.') == std::string::npos ? rep::parse_integer(text)
                                                     : rep::parse_fixed(text, decimals);
    if (!value) throw InfraError("settlement_lines: a sum that is not a number: " + text, false);
    if (text.find('.') == std::string::npos) {
        for (unsigned i = 0; i < decimals; ++i) *value *= 10;
    }
    return *value;
}

}  // namespace

void insert_settlements(pqxx::transaction_base& tx, const std::vector<SettlementRow>& rows) {
    if (rows.empty()) return;
    rapidjson::StringBuffer buffer;
    JsonWriter w(buffer);
    w.StartArray();
    for (const auto& r : rows) {
        w.StartObject();
        text(w, "invoice_id", r.invoice_id);
        text(w, "kind", r.kind);
        text(w, "tx_hash", r.tx_hash);
        w.Key("log_index");
        w.Int64(r.log_index);
        text(w, "project_id", r.project_id);
        text(w, "mode", r.mode);
        w.Key("chain_id");
        w.Uint64(r.chain_id);
        text(w, "token", r.token);
        text(w, "token_symbol", r.token_symbol);
        w.Key("token_decimals");
        w.Int(r.token_decimals);
        w.Key("block_number");
        w.Uint64(r.block_number);
        text(w, "confirmed_at", r.confirmed_at);
        text(w, "reference", r.reference);
        text(w, "metadata", r.metadata_json);
        text(w, "amount", r.amount);
        text(w, "fee", r.fee);
        text(w, "net", r.net);
        text(w, "fiat_currency", r.fiat_currency);
        text(w, "fiat_rate", r.fiat_rate);
        text(w, "fiat_amount", r.fiat_amount);
        text(w, "fiat_fee", r.fiat_fee);
        text(w, "fiat_net", r.fiat_net);
        text(w, "refund_id", r.refund_id);
        w.EndObject();
    }
    w.EndArray();
    tx.exec_params(
        "insert into settlement_lines select * from "
        "json_populate_recordset(null::settlement_lines, $1::json) on conflict do nothing",
        std::string(buffer.GetString(), buffer.GetSize()));
}

std::vector<SettlementRow> settlement_page(pqxx::transaction_base& tx,
                                           const ports::SettlementQuery& q) {
    const std::string mode(domain::events::to_string(q.mode));
    const auto limit = static_cast<std::int64_t>(q.limit);
    std::string sql = std::string("select ") + kColumns + " from settlement_lines where " + kPeriod;
    constexpr const char* kOrder =
        " order by confirmed_at, invoice_id, kind, tx_hash, log_index limit ";
    pqxx::result rows;
    if (!q.after) {
        rows = tx.exec_params(sql + kOrder + "$5", q.project_id.value, mode, q.from_ms, q.to_ms,
                              limit);
    } else {
        const auto& a = *q.after;
        sql +=
            " and (confirmed_at, invoice_id, kind, tx_hash, log_index) > (timestamptz 'epoch' + "
            "$5::bigint * interval '1 microsecond', $6, $7, $8, $9)";
        rows = tx.exec_params(sql + kOrder + "$10", q.project_id.value, mode, q.from_ms, q.to_ms,
                              a.confirmed_us, a.invoice_id, a.kind, a.tx_hash, a.log_index, limit);
    }
    std::vector<SettlementRow> out;
    out.reserve(rows.size());
    for (const auto& r : rows) out.push_back(row_of(r));
    return out;
}

rep::SettlementTotals settlement_totals(pqxx::transaction_base& tx,
                                        const ports::SettlementQuery& q) {
    const std::string mode(domain::events::to_string(q.mode));
    rep::SettlementTotals totals;
    for (const auto& r : tx.exec_params(
             std::string("select chain_id, token, min(token_symbol), min(token_decimals), "
                         "count(*) filter (where kind = 'payment'), "
                         "count(*) filter (where kind = 'refund'), "
                         "sum(amount) filter (where kind = 'payment'), "
                         "-sum(amount) filter (where kind = 'refund'), "
                         "sum(amount), sum(fee), sum(net) from settlement_lines where ") +
                 kPeriod + " group by chain_id, token order by chain_id, token",
             q.project_id.value, mode, q.from_ms, q.to_ms)) {
        rep::TokenTotal t;
        t.chain_id = r[0].as<std::uint64_t>();
        t.token = r[1].as<std::string>();
        t.symbol = r[2].is_null() ? std::string() : r[2].as<std::string>();
        t.decimals = r[3].as<unsigned>();
        t.payments = r[4].as<std::uint64_t>();
        t.refunds = r[5].as<std::uint64_t>();
        t.paid = summed(r[6], 0);
        t.refunded = summed(r[7], 0);
        t.amount = summed(r[8], 0);
        t.fees = summed(r[9], 0);
        t.net = summed(r[10], 0);
        totals.tokens.push_back(std::move(t));
    }
    for (const auto& r : tx.exec_params(
             std::string("select fiat_currency, count(*), sum(fiat_amount), "
                         "sum(fiat_fee), sum(fiat_net) from settlement_lines where ") +
                 kPeriod + " and fiat_currency is not null group by fiat_currency order by 1",
             q.project_id.value, mode, q.from_ms, q.to_ms)) {
        rep::FiatTotal f;
        f.currency = r[0].as<std::string>();
        f.rows = r[1].as<std::uint64_t>();
        f.amount = summed(r[2], domain::money::kFiatMinorDigits);
        f.fees = summed(r[3], domain::money::kFiatMinorDigits);
        f.net = summed(r[4], domain::money::kFiatMinorDigits);
        totals.fiat.push_back(std::move(f));
    }
    return totals;
}

std::vector<ports::SettlementLine> PgSettlementReports::page(const ports::SettlementQuery& query) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return settlement_page(tx, query);
    });
}

rep::SettlementTotals PgSettlementReports::totals(const ports::SettlementQuery& query) {
    return pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::read_transaction tx(conn);
        return settlement_totals(tx, query);
    });
}

}  // namespace duepay::infra::postgres
