#include "infra/postgres/charge_stats_store.hpp"

#include <array>

#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "infra/postgres/detail/prepared.hpp"

namespace duepay::infra::postgres {

namespace {

namespace rp = domain::reports;
using domain::json::str;
using domain::json::Writer;

void big(Writer& w, const char* key, const rp::BigInt& value) { str(w, key, value.str()); }
void num(Writer& w, const char* key, std::int64_t value) {
    w.Key(key);
    w.Int64(value);
}
std::string text_of(const rapidjson::StringBuffer& b) { return {b.GetString(), b.GetSize()}; }

constexpr std::array<const char*, 7> kStatusColumns = {
    "entered_pending", "entered_confirming", "entered_paid",    "entered_underpaid",
    "entered_expired", "entered_failed",     "entered_refunded"};

// In the order of domain::charge::Status (DailyCounts::entered's index).
static_assert(kStatusColumns.size() == std::size(domain::charge::kAllStatuses));

std::string daily_json(const rp::StatsRows& rows) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartArray();
    int seq = 0;
    for (const auto& [k, c] : rows.daily) {
        w.StartObject();
        num(w, "seq", seq++);
        str(w, "project_id", k.project_id);
        str(w, "mode", domain::events::to_string(k.mode));
        str(w, "day", k.day);
        num(w, "chain_id", static_cast<std::int64_t>(k.chain_id.value));
        str(w, "token", domain::evm::to_checksum(k.token));
        str(w, "fiat_currency", k.currency ? domain::money::to_string(*k.currency) : "");
        str(w, "token_symbol", c.token_symbol);
        num(w, "token_decimals", c.token_decimals);
        num(w, "created", c.created);
        num(w, "converted", c.converted);
        for (std::size_t i = 0; i < c.entered.size(); ++i) num(w, kStatusColumns[i], c.entered[i]);
        num(w, "payments", c.payments);
        big(w, "paid_volume", c.paid);
        big(w, "paid_fiat", c.paid_fiat);
        num(w, "refunds", c.refunds);
        big(w, "refunded_volume", c.refunded);
        big(w, "refunded_fiat", c.refunded_fiat);
        w.EndObject();
    }
    w.EndArray();
    return text_of(b);
}

// The daily upsert, built once: the status columns come from kStatusColumns.
const std::string& upsert_daily_sql() {
    static const std::string sql = [] {
        std::string counts;
        std::string columns;
        for (const char* c : kStatusColumns) {
            columns += std::string(c) + ", ";
            counts += std::string(c) + " = d." + c + " + excluded." + c + ", ";
        }
        return "insert into charge_stats_daily as d (project_id, mode, day, chain_id, token, "
               "  fiat_currency, token_symbol, token_decimals, created, converted, " +
               columns +
               "  payments, paid_volume, paid_fiat, refunds, refunded_volume, refunded_fiat) "
               "select project_id, mode, day, chain_id, token, fiat_currency, token_symbol, "
               "  token_decimals, created, converted, " +
               columns +
               "  payments, paid_volume, paid_fiat, refunds, refunded_volume, refunded_fiat "
               "from jsonb_to_recordset($1::jsonb) as x(seq int, project_id text, mode text, "
               "  day date, chain_id bigint, token text, fiat_currency text, token_symbol text, "
               "  token_decimals int, created bigint, converted bigint, entered_pending bigint, "
               "  entered_confirming bigint, entered_paid bigint, entered_underpaid bigint, "
               "  entered_expired bigint, entered_failed bigint, entered_refunded bigint, "
               "  payments bigint, paid_volume numeric, paid_fiat numeric, refunds bigint, "
               "  refunded_volume numeric, refunded_fiat numeric) order by seq "
               "on conflict (project_id, mode, day, chain_id, token, fiat_currency) do update set "
               "  created = d.created + excluded.created, "
               "  converted = d.converted + excluded.converted, " +
               counts +
               "  payments = d.payments + excluded.payments, "
               "  paid_volume = d.paid_volume + excluded.paid_volume, "
               "  paid_fiat = d.paid_fiat + excluded.paid_fiat, "
               "  refunds = d.refunds + excluded.refunds, "
               "  refunded_volume = d.refunded_volume + excluded.refunded_volume, "
               "  refunded_fiat = d.refunded_fiat + excluded.refunded_fiat";
    }();
    return sql;
}

}  // namespace

// Each statement prepared (detail::exec_prepared_sql): the projector runs all three per batch,
// and planning the daily upsert cost more than running it.
void upsert_charge_stats(pqxx::transaction_base& tx, const rp::StatsRows& rows) {
    if (!rows.daily.empty()) {
        detail::exec_prepared_sql(tx, "upsert_charge_stats_daily", upsert_daily_sql(),
                                  daily_json(rows));
    }
    if (!rows.paid_time.empty()) {
        rapidjson::StringBuffer b;
        Writer w(b);
        w.StartArray();
        int seq = 0;
        for (const auto& [k, n] : rows.paid_time) {
            w.StartObject();
            num(w, "seq", seq++);
            str(w, "project_id", k.project_id);
            str(w, "mode", domain::events::to_string(k.mode));
            str(w, "day", k.day);
            num(w, "bucket", k.bucket);
            num(w, "charges", n);
            w.EndObject();
        }
        w.EndArray();
        detail::exec_prepared_sql(
            tx, "upsert_charge_paid_seconds",
            "insert into charge_paid_seconds as p (project_id, mode, day, bucket, charges) "
            "select project_id, mode, day, bucket, charges from jsonb_to_recordset($1::jsonb) as "
            "  x(seq int, project_id text, mode text, day date, bucket smallint, charges bigint) "
            "order by seq on conflict (project_id, mode, day, bucket) do update set "
            "  charges = p.charges + excluded.charges",
            text_of(b));
    }
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartArray();
    int seq = 0;
    for (const auto& [k, n] : rows.statuses) {
        if (n == 0) continue;  // entered and left within the batch
        w.StartObject();
        num(w, "seq", seq++);
        str(w, "project_id", k.project_id);
        str(w, "mode", domain::events::to_string(k.mode));
        str(w, "status", domain::charge::to_string(k.status));
        num(w, "charges", n);
        w.EndObject();
    }
    w.EndArray();
    if (seq == 0) return;
    detail::exec_prepared_sql(
        tx, "upsert_charge_status_counts",
        "insert into charge_status_counts as c (project_id, mode, status, charges) "
        "select project_id, mode, status, charges from jsonb_to_recordset($1::jsonb) as "
        "  x(seq int, project_id text, mode text, status text, charges bigint) "
        "order by seq on conflict (project_id, mode, status) do update set "
        "  charges = c.charges + excluded.charges",
        text_of(b));
}

StoredStats read_project_stats(pqxx::transaction_base& tx, const std::string& project_id,
                               const std::string& mode, const std::string& first_day,
                               const std::string& last_day) {
    // Each statement prepared: the overview runs all four per request, and with a handful of
    // rows each, planning them cost as much as reading them.
    StoredStats out;
    for (const auto& r : detail::exec_prepared_sql(
             tx, "overview_daily",
             "select day::text, chain_id, token, fiat_currency, token_symbol, token_decimals, "
             "  created, converted, entered_paid, payments, paid_volume::text, paid_fiat::text, "
             "  refunds, refunded_volume::text, refunded_fiat::text "
             "from charge_stats_daily where project_id = $1 and mode = $2 "
             "  and day between $3::date and $4::date "
             "order by day, chain_id, token, fiat_currency",
             project_id, mode, first_day, last_day)) {
        StoredDaily d;
        d.day = r[0].as<std::string>();
        d.chain_id = r[1].as<std::int64_t>();
        d.token = r[2].as<std::string>();
        d.fiat_currency = r[3].as<std::string>();
        d.token_symbol = r[4].as<std::string>();
        d.token_decimals = r[5].as<int>();
        d.created = r[6].as<std::int64_t>();
        d.converted = r[7].as<std::int64_t>();
        d.entered_paid = r[8].as<std::int64_t>();
        d.payments = r[9].as<std::int64_t>();
        d.paid_volume = r[10].as<std::string>();
        d.paid_fiat = r[11].as<std::string>();
        d.refunds = r[12].as<std::int64_t>();
        d.refunded_volume = r[13].as<std::string>();
        d.refunded_fiat = r[14].as<std::string>();
        out.daily.push_back(std::move(d));
    }
    for (const auto& r : detail::exec_prepared_sql(
             tx, "overview_statuses",
             "select status, charges from charge_status_counts where project_id = $1 and "
             "mode = $2 order by status",
             project_id, mode)) {
        out.statuses.emplace_back(r[0].as<std::string>(), r[1].as<std::int64_t>());
    }
    for (const auto& r : detail::exec_prepared_sql(
             tx, "overview_paid_time",
             "select bucket, sum(charges)::bigint from charge_paid_seconds where project_id = $1 "
             "and mode = $2 and day between $3::date and $4::date group by bucket order by bucket",
             project_id, mode, first_day, last_day)) {
        out.paid_time.emplace_back(r[0].as<int>(), r[1].as<std::int64_t>());
    }
    const auto w = detail::exec_prepared_sql(
        tx, "overview_webhook_attempts",
        "select coalesce(sum(attempts), 0)::bigint, coalesce(sum(succeeded), 0)::bigint "
        "from webhook_attempt_stats where project_id = $1 and mode = $2 "
        "and day between $3::date and $4::date",
        project_id, mode, first_day, last_day)[0];
    out.webhook_attempts = w[0].as<std::int64_t>();
    out.webhook_succeeded = w[1].as<std::int64_t>();
    return out;
}

void count_webhook_attempts(pqxx::transaction_base& tx, const std::string& outcomes_json) {
    tx.exec_params(
        "insert into webhook_attempt_stats as s (project_id, mode, day, attempts, succeeded) "
        "select e.project_id, e.mode, (now() at time zone 'utc')::date, count(*), "
        "  count(*) filter (where x.delivered) "
        "from jsonb_to_recordset($1::jsonb) as x(endpoint_id text, delivered boolean) "
        "join webhook_endpoints e on e.id = x.endpoint_id "
        "group by e.project_id, e.mode order by e.project_id, e.mode "
        "on conflict (project_id, mode, day) do update set "
        "  attempts = s.attempts + excluded.attempts, succeeded = s.succeeded + excluded.succeeded",
        outcomes_json);
}

}  // namespace duepay::infra::postgres
