// Statements a consumer runs on every batch, parsed and planned once per connection (internal to
// infra/postgres).
#pragma once

#include <pqxx/pqxx>
#include <string>
#include <utility>

namespace duepay::infra::postgres::detail {

// Runs `sql` as the connection's prepared statement `name`. libpqxx 6.4 registers a definition
// (a no-op when the same one is known) and prepares it on its first use, so Postgres parses and
// plans it once per connection instead of on every call, as exec_params has it do. A name always
// stands for the same text; a statement whose best plan depends on its values stays unprepared.
template <class... Args>
pqxx::result exec_prepared_sql(pqxx::transaction_base& tx, const std::string& name,
                               const std::string& sql, Args&&... args) {
    tx.conn().prepare(name, sql);
    return tx.exec_prepared(name, std::forward<Args>(args)...);
}

}  // namespace duepay::infra::postgres::detail
