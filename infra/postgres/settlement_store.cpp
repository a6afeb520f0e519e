#include "infra/postgres/settlement_store.hpp"

#include <rapidjson/stringbuffer.h>
#include <rapidjson/writer.h>

#include <string>

#include "domain/events/event.hpp"
#include "infra/postgres/detail/prepared.hpp"

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

// settlement_daily's columns after (project_id, mode, day), and their values over a set of
// settlement_lines rows grouped by (project_id, mode, day, chain_id, token, fiat key): what the
// insert adds and what the totals read from the rows of a period's partial days.
constexpr const char* kDailyColumns =
    "chain_id, token, fiat_currency, token_symbol, token_decimals, payments, refunds, paid, "
    "refunded, fee, net, fiat_amount, fiat_fee, fiat_net";
constexpr const char* kDailySums =
    "chain_id, token, coalesce(fiat_currency, ''), min(token_symbol), min(token_decimals), "
    "count(*) filter (where kind = 'payment'), count(*) filter (where kind = 'refund'), "
    "coalesce(sum(amount) filter (where kind = 'payment'), 0), "
    "coalesce(sum(amount) filter (where kind = 'refund'), 0), sum(fee), sum(net), "
    "coalesce(sum(fiat_amount), 0), coalesce(sum(fiat_fee), 0), coalesce(sum(fiat_net), 0)";
// The UTC day of a settlement_lines row.
constexpr const char* kDayOf = "(confirmed_at at time zone 'utc')::date";

constexpr std::int64_t kDayMs = 86'400'000;
std::int64_t floor_day(std::int64_t ms) {
    return (ms / kDayMs - (ms % kDayMs < 0 ? 1 : 0)) * kDayMs;
}

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
    // The per-day sums (settlement_daily, ADR 0250) add the rows this statement really inserted:
    // a row already there returns nothing. One row per key, in key order (writers lock the sums
    // in the same order).
    static const std::string sql =
        std::string(
            "with added as (insert into settlement_lines select * from "
            "json_populate_recordset(null::settlement_lines, $1::json) "
            "on conflict do nothing returning *) "
            "insert into settlement_daily as d (project_id, mode, day, ") +
        kDailyColumns + ") select project_id, mode, " + kDayOf + ", " + kDailySums +
        " from added group by 1, 2, 3, 4, 5, 6 order by 1, 2, 3, 4, 5, 6 "
        "on conflict (project_id, mode, day, chain_id, token, fiat_currency) do update set "
        "token_symbol = least(d.token_symbol, excluded.token_symbol), "
        "token_decimals = least(d.token_decimals, excluded.token_decimals), "
        "payments = d.payments + excluded.payments, refunds = d.refunds + excluded.refunds, "
        "paid = d.paid + excluded.paid, refunded = d.refunded + excluded.refunded, "
        "fee = d.fee + excluded.fee, net = d.net + excluded.net, "
        "fiat_amount = d.fiat_amount + excluded.fiat_amount, "
        "fiat_fee = d.fiat_fee + excluded.fiat_fee, fiat_net = d.fiat_net + excluded.fiat_net";
    detail::exec_prepared_sql(tx, "insert_settlements", sql,
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
    // The whole UTC days of the period, [first, last), from settlement_daily; the rows before
    // `first` and from `last` on (partial days) from settlement_lines. No whole day: every row
    // from settlement_lines (first = last = to).
    auto first = floor_day(q.from_ms) + (floor_day(q.from_ms) < q.from_ms ? kDayMs : 0);
    auto last = floor_day(q.to_ms);
    if (first >= last) first = last = q.to_ms;
    const auto at = [](int n) {
        return "timestamptz 'epoch' + $" + std::to_string(n) +
               "::bigint * interval '1 millisecond'";
    };
    const auto lines = [&](int from, int to) {
        return "select * from settlement_lines where project_id = $1 and mode = $2 and "
               "confirmed_at >= " +
               at(from) + " and confirmed_at < " + at(to);
    };
    const auto day = [&](int n) { return "((" + at(n) + ") at time zone 'utc')::date"; };
    // Per token (the fiat key rolled up) and per fiat currency (rows with a quote only), over
    // `parts`: rows with settlement_daily's columns.
    const auto totals_of = [](const std::string& parts) {
        return "select grouping(fiat_currency) = 1, chain_id, token, fiat_currency, "
               "min(token_symbol), min(token_decimals), sum(payments), sum(refunds), sum(paid), "
               "-sum(refunded), sum(paid) + sum(refunded), sum(fee), sum(net), sum(fiat_amount), "
               "sum(fiat_fee), sum(fiat_net) from " +
               parts +
               " group by grouping sets ((chain_id, token), (fiat_currency)) "
               "having grouping(fiat_currency) = 1 or fiat_currency <> '' "
               "order by grouping(fiat_currency) desc, chain_id, token, fiat_currency";
    };
    // Both statements built once and prepared (detail::exec_prepared_sql): their texts do not
    // depend on the period (its bounds are parameters).
    // A period of whole UTC days (the dashboard's, and most REST reports'): settlement_daily alone.
    // Without the edges' range scans Postgres settles on the generic plan after its first five
    // runs, where the union below kept planning each request anew (~0.5-0.9 ms), as its custom
    // plans estimate the (empty) edges cheaper than a generic plan can.
    static const std::string whole_days_sql =
        totals_of("settlement_daily where project_id = $1 and mode = $2 and day >= " + day(3) +
                  " and day < " + day(4));
    // Otherwise the whole days from settlement_daily and the partial ones from settlement_lines.
    static const std::string sql =
        totals_of("(with edges as (" + lines(3, 5) + " union all " + lines(6, 4) +
                  // settlement_daily first: it names the union's columns.
                  ") select " + kDailyColumns +
                  " from settlement_daily where project_id = $1 and mode = $2 " +
                  "and day >= " + day(5) + " and day < " + day(6) + " union all select " +
                  kDailySums + " from edges group by 1, 2, 3) as parts");
    const auto rows =
        first == q.from_ms && last == q.to_ms
            ? detail::exec_prepared_sql(tx, "settlement_totals_days", whole_days_sql,
                                        q.project_id.value, mode, first, last)
            : detail::exec_prepared_sql(tx, "settlement_totals", sql, q.project_id.value, mode,
                                        q.from_ms, q.to_ms, first, last);
    rep::SettlementTotals totals;
    for (const auto& r : rows) {
        if (r[0].as<bool>()) {
            rep::TokenTotal t;
            t.chain_id = r[1].as<std::uint64_t>();
            t.token = r[2].as<std::string>();
            t.symbol = r[4].is_null() ? std::string() : r[4].as<std::string>();
            t.decimals = r[5].as<unsigned>();
            t.payments = r[6].as<std::uint64_t>();
            t.refunds = r[7].as<std::uint64_t>();
            t.paid = summed(r[8], 0);
            t.refunded = summed(r[9], 0);
            t.amount = summed(r[10], 0);
            t.fees = summed(r[11], 0);
            t.net = summed(r[12], 0);
            totals.tokens.push_back(std::move(t));
        } else {
            rep::FiatTotal f;
            f.currency = r[3].as<std::string>();
            f.rows = r[6].as<std::uint64_t>() + r[7].as<std::uint64_t>();
            f.amount = summed(r[13], domain::money::kFiatMinorDigits);
            f.fees = summed(r[14], domain::money::kFiatMinorDigits);
            f.net = summed(r[15], domain::money::kFiatMinorDigits);
            totals.fiat.push_back(std::move(f));
        }
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
    // One statement, so one snapshot without a transaction: one round trip, not three.
    return pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) { return settlement_totals(tx, query); });
}

}  // namespace duepay::infra::postgres
