#include "infra/postgres/charge_stats_store.hpp"

#include <algorithm>
#include <array>
#include <charconv>
#include <string_view>
#include <system_error>
#include <tuple>
#include <vector>

#include "domain/events/json_writer.hpp"
#include "domain/evm/address.hpp"
#include "domain/reports/paid_time.hpp"
#include "infra/error.hpp"
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

// The items of a one-dimensional array in Postgres's text form, "{a,b,c}", whose items need no
// quoting (numbers, the statuses' words); `what` names the column in an error.
std::vector<std::string_view> array_items(std::string_view text, const char* what) {
    if (text.size() < 2 || text.front() != '{' || text.back() != '}')
        throw InfraError(std::string(what) + ": not an array: " + std::string(text), false);
    std::vector<std::string_view> out;
    text = text.substr(1, text.size() - 2);
    while (!text.empty()) {
        const auto comma = text.find(',');
        out.push_back(text.substr(0, comma));
        text = comma == std::string_view::npos ? std::string_view() : text.substr(comma + 1);
    }
    return out;
}

// A bigint in Postgres's text form; `what` names the column in an error.
std::int64_t bigint_of(std::string_view text, const char* what) {
    std::int64_t v = 0;
    const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), v);
    if (ec != std::errc() || end != text.data() + text.size())
        throw InfraError(std::string(what) + ": not a bigint: " + std::string(text), false);
    return v;
}

// A bigint[] in Postgres's text form, "{1,-2,3}" (no nulls: the columns' values never are).
std::vector<std::int64_t> bigint_array(std::string_view text, const char* what) {
    std::vector<std::int64_t> out;
    for (const auto item : array_items(text, what)) out.push_back(bigint_of(item, what));
    return out;
}

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

// charge_paid_through (migration 0275, ADR 0275): the batch's paid-time counts added to the
// cumulative rows of their (project, mode) from their day on. Per (project, mode) and day D of the
// batch, in key order: the running sum of the batch's buckets up to D, added to every row in
// [D, the batch's next day of that project and mode). A batch day without a row gets one first, a
// copy of the latest row before it (zeros when none), which the same additions bring up to date.
// An advisory lock per (schema, project, mode), taken in key order, keeps a second writer (another
// projector, a replay's shadow is another schema) from copying a row this one has yet to add to.
void add_paid_through(pqxx::transaction_base& tx, const rp::StatsRows& rows) {
    rapidjson::StringBuffer b;
    Writer w(b);
    w.StartArray();
    int seq = 0;
    std::array<std::int64_t, rp::kPaidTimeBuckets> running{};
    const rp::PaidTimeKey* group = nullptr;  // the first key of the current (project, mode)
    for (auto it = rows.paid_time.begin(); it != rows.paid_time.end();) {
        const auto& k = it->first;
        if (group == nullptr || group->project_id != k.project_id || group->mode != k.mode) {
            group = &k;
            running.fill(0);
        }
        for (; it != rows.paid_time.end() && it->first.project_id == k.project_id &&
               it->first.mode == k.mode && it->first.day == k.day;
             ++it) {
            running.at(static_cast<std::size_t>(it->first.bucket)) += it->second;
        }
        w.StartObject();
        num(w, "seq", seq++);
        str(w, "project_id", k.project_id);
        str(w, "mode", domain::events::to_string(k.mode));
        str(w, "day", k.day);
        if (it != rows.paid_time.end() && it->first.project_id == k.project_id &&
            it->first.mode == k.mode) {
            str(w, "until", it->first.day);
        }
        w.Key("add");
        w.StartArray();
        for (const auto n : running) w.Int64(n);
        w.EndArray();
        w.EndObject();
    }
    w.EndArray();
    const auto json = text_of(b);
    detail::exec_prepared_sql(
        tx, "lock_charge_paid_through",
        "select pg_advisory_xact_lock(k) from (select distinct hashtextextended(current_schema() "
        "  || ' ' || project_id || ' ' || mode, 0) as k from jsonb_to_recordset($1::jsonb) as "
        "  x(project_id text, mode text)) as s order by k",
        json);
    detail::exec_prepared_sql(
        tx, "insert_charge_paid_through",
        "insert into charge_paid_through (project_id, mode, day, charges) "
        "select x.project_id, x.mode, x.day, coalesce((select t.charges from charge_paid_through t "
        "  where t.project_id = x.project_id and t.mode = x.mode and t.day < x.day "
        "  order by t.day desc limit 1), array_fill(0::bigint, array[232])) "
        "from jsonb_to_recordset($1::jsonb) as x(seq int, project_id text, mode text, day date) "
        "order by x.seq on conflict (project_id, mode, day) do nothing",
        json);
    detail::exec_prepared_sql(
        tx, "add_charge_paid_through",
        "update charge_paid_through t set charges = charge_paid_through_add(t.charges, x.add) "
        "from jsonb_to_recordset($1::jsonb) as "
        "  x(project_id text, mode text, day date, until date, add bigint[]) "
        "where t.project_id = x.project_id and t.mode = x.mode and t.day >= x.day "
        "  and (x.until is null or t.day < x.until)",
        json);
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
        add_paid_through(tx, rows);
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
    // Two prepared statements, each one round trip: the period's daily rows, then one row of
    // everything else. (With a handful of rows each, planning them cost as much as reading them,
    // and every further statement its own round trip.) The daily rows come unsorted and are
    // sorted here: Postgres sorted them (270 for 90 days of three series) by the text of the day
    // and of the token under the database's collation, which cost it more than reading them.
    // Each value written out is a call of its type's output function, the cost that grows with
    // the period (ADR 0310): the day comes as a number of days, not a date's text, and only the
    // columns the overview shows are read (not the refunds' fiat value).
    StoredStats out;
    const auto daily = detail::exec_prepared_sql(
        tx, "overview_daily",
        "select day - $3::date, chain_id, token, fiat_currency, token_symbol, token_decimals, "
        "  created, converted, entered_paid, payments, paid_volume, paid_fiat, refunds, "
        "  refunded_volume "
        "from charge_stats_daily where project_id = $1 and mode = $2 "
        "  and day between $3::date and $4::date",
        project_id, mode, first_day, last_day);
    out.daily.reserve(daily.size());
    for (const auto& r : daily) {
        // One field iterator a row, moved along its columns: `r[i]` makes a field, and a copy of
        // the result's shared pointer, for every value (14 a row, 270 rows for 90 days).
        auto f = r.begin();
        const auto text = [&f] {
            std::string v(f->c_str(), f->size());
            ++f;
            return v;
        };
        const auto int64 = [&f] {
            const auto v = bigint_of({f->c_str(), f->size()}, "charge_stats_daily");
            ++f;
            return v;
        };
        StoredDaily d;
        d.day = static_cast<int>(int64());
        d.chain_id = int64();
        d.token = text();
        d.fiat_currency = text();
        d.token_symbol = text();
        d.token_decimals = static_cast<int>(int64());
        d.created = int64();
        d.converted = int64();
        d.entered_paid = int64();
        d.payments = int64();
        d.paid_volume = text();
        d.paid_fiat = text();
        d.refunds = int64();
        d.refunded_volume = text();
        out.daily.push_back(std::move(d));
    }
    std::sort(out.daily.begin(), out.daily.end(), [](const StoredDaily& a, const StoredDaily& b) {
        return std::tie(a.day, a.chain_id, a.token, a.fiat_currency) <
               std::tie(b.day, b.chain_id, b.token, b.fiat_currency);
    });
    // The counts by status (two arrays in status order; null without a row), the period's
    // histogram from two cumulative rows (ADR 0275: through `last_day` minus through the day
    // before `first_day`, instead of summing every (day, bucket) row) and the webhook attempts.
    const auto rest = detail::exec_prepared_sql(
        tx, "overview_rest",
        "select s.statuses, s.charges, t.last, t.before, w.attempts, w.succeeded "
        "from (select array_agg(status order by status)::text as statuses, "
        "    array_agg(charges order by status)::text as charges "
        "  from charge_status_counts where project_id = $1 and mode = $2) as s, "
        "(select (select charges::text from charge_paid_through where project_id = $1 and "
        "    mode = $2 and day <= $4::date order by day desc limit 1) as last, "
        "  (select charges::text from charge_paid_through where project_id = $1 and mode = $2 "
        "    and day < $3::date order by day desc limit 1) as before) as t, "
        "(select coalesce(sum(attempts), 0)::bigint as attempts, "
        "    coalesce(sum(succeeded), 0)::bigint as succeeded "
        "  from webhook_attempt_stats where project_id = $1 and mode = $2 "
        "    and day between $3::date and $4::date) as w",
        project_id, mode, first_day, last_day)[0];
    if (!rest[0].is_null()) {
        const auto statuses = array_items(rest[0].c_str(), "charge_status_counts");
        const auto charges = bigint_array(rest[1].c_str(), "charge_status_counts");
        if (statuses.size() != charges.size())
            throw InfraError("charge_status_counts: arrays of different lengths", false);
        for (std::size_t i = 0; i < statuses.size(); ++i)
            out.statuses.emplace_back(std::string(statuses[i]), charges[i]);
    }
    if (!rest[2].is_null()) {
        const auto last = bigint_array(rest[2].c_str(), "charge_paid_through");
        const auto before = rest[3].is_null()
                                ? std::vector<std::int64_t>(last.size(), 0)
                                : bigint_array(rest[3].c_str(), "charge_paid_through");
        if (before.size() != last.size())
            throw InfraError("charge_paid_through: rows of different lengths", false);
        for (std::size_t i = 0; i < last.size(); ++i) {
            if (last[i] != before[i])
                out.paid_time.emplace_back(static_cast<int>(i), last[i] - before[i]);
        }
    }
    out.webhook_attempts = rest[4].as<std::int64_t>();
    out.webhook_succeeded = rest[5].as<std::int64_t>();
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
