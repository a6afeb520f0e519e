#include "projections/charges/read_model_schema.hpp"

#include <algorithm>
#include <iterator>
#include <set>
#include <stdexcept>
#include <string_view>

namespace duepay::projections::charges {
namespace {

// Quoted identifier (names are validated too; this is defence in depth).
std::string ident(pqxx::transaction_base& tx, const std::string& name) {
    return tx.conn().quote_name(name);
}

// A text[] literal of plain identifiers (no quoting needed).
std::string text_array(const std::vector<std::string>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        out += values[i];
    }
    return out + '}';
}

std::string int_array(const std::vector<std::int64_t>& values) {
    std::string out = "{";
    for (std::size_t i = 0; i < values.size(); ++i) {
        if (i) out += ',';
        out += std::to_string(values[i]);
    }
    return out + '}';
}

// The non-unique indexes of `schema`.`table`: name and the definition from USING on (what two
// equal indexes on different tables share).
std::vector<std::pair<std::string, std::string>> plain_indexes(pqxx::transaction_base& tx,
                                                               const std::string& schema,
                                                               const std::string& table) {
    std::vector<std::pair<std::string, std::string>> out;
    for (const auto& r : tx.exec_params(
             "select c.relname, substring(pg_get_indexdef(i.indexrelid) from ' USING .*$') "
             "from pg_index i join pg_class c on c.oid = i.indexrelid "
             "join pg_class t on t.oid = i.indrelid join pg_namespace n on n.oid = t.relnamespace "
             "where n.nspname = $1 and t.relname = $2 and not i.indisunique order by c.relname",
             schema, table)) {
        out.emplace_back(r[0].as<std::string>(), r[1].as<std::string>());
    }
    return out;
}

bool exists(pqxx::transaction_base& tx, const std::string& schema, const std::string& table) {
    return tx
        .exec_params1("select to_regclass($1) is not null",
                      ident(tx, schema) + "." + ident(tx, table))[0]
        .as<bool>();
}

}  // namespace

bool is_valid_shadow_schema(const std::string& name) {
    if (name.empty() || name.size() > 63) return false;
    if (name == "public" || name.rfind("pg_", 0) == 0 || name.rfind(kRetiredPrefix, 0) == 0 ||
        name == "information_schema")
        return false;
    if (!(name[0] == '_' || (name[0] >= 'a' && name[0] <= 'z'))) return false;
    for (char c : name) {
        if (!(c == '_' || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9'))) return false;
    }
    return true;
}

void create_shadow(pqxx::transaction_base& tx, const std::string& schema, bool unlogged) {
    if (!is_valid_shadow_schema(schema)) throw std::invalid_argument("bad schema name " + schema);
    tx.exec("create schema if not exists " + ident(tx, schema));
    bool created = false;
    for (const char* table : kRebuiltTables) {
        if (exists(tx, schema, table)) continue;
        created = true;
        tx.exec(std::string(unlogged ? "create unlogged table " : "create table ") +
                ident(tx, schema) + "." + ident(tx, table) + " (like public." + ident(tx, table) +
                " including all)");
        if (std::find_if(std::begin(kDeferredIndexTables), std::end(kDeferredIndexTables),
                         [&](const char* t) { return std::string_view(t) == table; }) ==
            std::end(kDeferredIndexTables))
            continue;
        for (const auto& [name, definition] : plain_indexes(tx, schema, table)) {
            tx.exec("drop index " + ident(tx, schema) + "." + ident(tx, name));
        }
    }
    // A shadow made before a table joined kRebuiltTables gets it now; its marker (or the lack of
    // one, after a crash) stays as it was.
    if (created && unlogged && !exists(tx, schema, kUnloggedMarker)) {
        const auto marker = ident(tx, schema) + "." + ident(tx, kUnloggedMarker);
        tx.exec("create unlogged table " + marker + " (since timestamptz not null default now())");
        tx.exec("insert into " + marker + " default values");
    }
}

bool shadow_incomplete(pqxx::transaction_base& tx, const std::string& schema) {
    const auto present = std::count_if(std::begin(kRebuiltTables), std::end(kRebuiltTables),
                                       [&](const char* t) { return exists(tx, schema, t); });
    return present > 0 && present < static_cast<std::ptrdiff_t>(std::size(kRebuiltTables));
}

bool unlogged_shadow_lost(pqxx::transaction_base& tx, const std::string& schema) {
    std::vector<std::string> tables(std::begin(kRebuiltTables), std::end(kRebuiltTables));
    const bool unlogged =
        tx.exec_params1(
              "select exists (select 1 from pg_class c join pg_namespace n on n.oid = "
              "c.relnamespace where n.nspname = $1 and c.relname = any($2::text[]) "
              "and c.relpersistence = 'u')",
              schema, text_array(tables))[0]
            .as<bool>();
    if (!unlogged) return false;
    if (!exists(tx, schema, kUnloggedMarker)) return true;
    return tx
        .exec1("select not exists (select 1 from " + ident(tx, schema) + "." +
               ident(tx, kUnloggedMarker) + ")")[0]
        .as<bool>();
}

void make_shadow_logged(pqxx::transaction_base& tx, const std::string& schema) {
    if (!is_valid_shadow_schema(schema)) throw std::invalid_argument("bad schema name " + schema);
    for (const char* table : kRebuiltTables) {
        const bool unlogged =
            tx.exec_params1("select relpersistence = 'u' from pg_class where oid = $1::regclass",
                            ident(tx, schema) + "." + ident(tx, table))[0]
                .as<bool>();
        if (unlogged)
            tx.exec("alter table " + ident(tx, schema) + "." + ident(tx, table) + " set logged");
    }
    tx.exec("drop table if exists " + ident(tx, schema) + "." + ident(tx, kUnloggedMarker));
}

std::vector<std::string> deferred_index_statements(pqxx::transaction_base& tx,
                                                   const std::string& schema) {
    if (!is_valid_shadow_schema(schema)) throw std::invalid_argument("bad schema name " + schema);
    std::vector<std::string> out;
    for (const char* table : kDeferredIndexTables) {
        std::set<std::string> present;
        for (const auto& [name, definition] : plain_indexes(tx, schema, table)) {
            present.insert(definition);
        }
        for (const auto& [name, definition] : plain_indexes(tx, "public", table)) {
            if (present.contains(definition)) continue;
            out.push_back("create index " + ident(tx, name) + " on " + ident(tx, schema) + "." +
                          ident(tx, table) + definition);
        }
    }
    return out;
}

void drop_shadow(pqxx::transaction_base& tx, const std::string& schema) {
    if (!is_valid_shadow_schema(schema)) throw std::invalid_argument("bad schema name " + schema);
    tx.exec("drop schema if exists " + ident(tx, schema) + " cascade");
}

Comparison compare_with_live(pqxx::transaction_base& tx, const std::string& schema,
                             const std::string& topic,
                             const std::map<std::int32_t, std::int64_t>& bound,
                             const std::map<std::int32_t, std::int64_t>* since,
                             const std::vector<std::string>* invoices) {
    if (invoices != nullptr && invoices->empty()) return {};
    std::vector<std::int64_t> partitions;
    std::vector<std::int64_t> offsets;
    for (const auto& [p, o] : bound) {
        partitions.push_back(p);
        offsets.push_back(o);
    }
    std::vector<std::int64_t> since_partitions;
    std::vector<std::int64_t> since_offsets;
    if (since != nullptr) {
        for (const auto& [p, o] : *since) {
            since_partitions.push_back(p);
            since_offsets.push_back(o);
        }
    }
    const auto shadow = ident(tx, schema);
    // Events of the topic on each side from `since` on (all without it), with the bound of their
    // partition (0 when absent). An event beyond the bound is beyond `since` too, so a charge
    // that is settled here has all its events below the bound on both sides.
    const auto side = [&](const std::string& table) {
        return "select e.event_id, e.invoice_id, e.\"offset\" >= coalesce(b.upto, 0) as beyond "
               "  from " +
               table +
               " e left join bound b on b.partition = e.partition "
               "  left join since f on f.partition = e.partition "
               "  where e.topic = $1 and e.\"offset\" >= coalesce(f.from_offset, 0)" +
               (invoices != nullptr ? " and e.invoice_id = any($6::text[])" : "");
    };
    // Invoice ids are 0x-hex (no quoting needed); keys that are not (a poison record's) are
    // left out: no journal row has them.
    std::vector<std::string> params{topic, int_array(partitions), int_array(offsets),
                                    int_array(since_partitions), int_array(since_offsets)};
    if (invoices != nullptr) {
        std::vector<std::string> ids;
        for (const auto& id : *invoices) {
            if (!id.empty() && id.find_first_not_of("0123456789abcdefx") == std::string::npos)
                ids.push_back(id);
        }
        params.push_back(text_array(ids));
    }
    const std::string sides =
        "with bound as (select * from unnest($2::int[], $3::bigint[]) as b(partition, upto)), "
        "since as (select * from unnest($4::int[], $5::bigint[]) as f(partition, from_offset)), "
        "live as (" +
        side("public.charge_events") + "), rebuilt as (" + side(shadow + ".charge_events") + "), ";
    Comparison c;
    const auto rows = tx.exec_params(
        sides +
            "unsettled as (select invoice_id from live where beyond union "
            "  select invoice_id from rebuilt where beyond), "
            "settled as (select invoice_id from live union select invoice_id from rebuilt "
            "  except select invoice_id from unsettled), "
            // Whole rows compared column by column (the shadow's table is made LIKE the live
            // one): to_jsonb of both sides cost most of the comparison's time (ADR 0200).
            // The settled charges whose settlement rows differ (or exist on one side only).
            "lines as (select distinct coalesce(a.invoice_id, r.invoice_id) as invoice_id from "
            "  (select l.* from public.settlement_lines l join settled using (invoice_id)) a "
            "  full join (select l.* from " +
            shadow +
            ".settlement_lines l join settled using (invoice_id)) r "
            "  on a.invoice_id = r.invoice_id and a.kind = r.kind and a.tx_hash = r.tx_hash "
            "  and a.log_index = r.log_index where a is distinct from r), "
            "pairs as (select s.invoice_id, a is distinct from r "
            "  or s.invoice_id in (select invoice_id from lines) as differs from settled s "
            "  left join public.charges a on a.invoice_id = s.invoice_id "
            "  left join " +
            shadow +
            ".charges r on r.invoice_id = s.invoice_id) "
            "select count(*), count(*) filter (where differs), "
            "  coalesce((array_agg(invoice_id order by invoice_id) "
            "    filter (where differs))[1:5], '{}') from pairs",
        pqxx::prepare::make_dynamic_params(params));
    c.charges = rows[0][0].as<std::int64_t>();
    c.mismatches = rows[0][1].as<std::int64_t>();
    auto examples = rows[0][2].as_array();
    for (auto item = examples.get_next(); item.first != pqxx::array_parser::done;
         item = examples.get_next()) {
        if (item.first == pqxx::array_parser::string_value) c.examples.push_back(item.second);
    }
    const auto journal = tx.exec_params(
        sides +
            "l as (select event_id from live where not beyond), "
            "r as (select event_id from rebuilt where not beyond) "
            // EXCEPT (hashed or sorted), not NOT IN: a million ids must not make a nested loop.
            "select (select count(*) from (select event_id from l except select event_id from r) "
            "  m), (select count(*) from (select event_id from r except select event_id from l) x)",
        pqxx::prepare::make_dynamic_params(params));
    c.journal_missing = journal[0][0].as<std::int64_t>();
    c.journal_extra = journal[0][1].as<std::int64_t>();
    return c;
}

void lock_live(pqxx::transaction_base& tx, int lock_timeout_ms) {
    tx.exec("set local lock_timeout = " + std::to_string(lock_timeout_ms));
    std::string tables;
    for (const char* table : kRebuiltTables) {
        if (!tables.empty()) tables += ", ";
        tables += "public." + ident(tx, table);
    }
    tx.exec("lock table " + tables + " in exclusive mode");
}

std::string swap_in(pqxx::transaction_base& tx, const std::string& schema,
                    const std::string& suffix) {
    if (!is_valid_shadow_schema(schema)) throw std::invalid_argument("bad schema name " + schema);
    std::string retired = std::string(kRetiredPrefix) + suffix;
    tx.exec("create schema " + ident(tx, retired));
    for (const char* table : kRebuiltTables) {
        tx.exec("alter table public." + ident(tx, table) + " set schema " + ident(tx, retired));
    }
    for (const char* table : kRebuiltTables) {
        tx.exec("alter table " + ident(tx, schema) + "." + ident(tx, table) + " set schema public");
    }
    tx.exec("drop schema " + ident(tx, schema));  // empty now: fails loudly otherwise
    return retired;
}

std::vector<std::string> retired_schemas(pqxx::transaction_base& tx) {
    std::vector<std::string> out;
    for (const auto& r : tx.exec_params(
             "select nspname from pg_namespace where starts_with(nspname, $1) order by nspname",
             std::string(kRetiredPrefix))) {
        out.push_back(r[0].as<std::string>());
    }
    return out;
}

}  // namespace duepay::projections::charges
