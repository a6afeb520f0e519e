#include "infra/postgres/checkout_reader.hpp"

#include <pqxx/pqxx>

#include "infra/postgres/account_store.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_store.hpp"

namespace duepay::infra::postgres {

std::optional<ports::ChargeView> PgCheckoutReader::find(const std::string& invoice_id) {
    auto row = pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return find_charge(tx, invoice_id);
    });
    if (!row) return std::nullopt;
    return charge_view_of(*row);
}

std::optional<ports::Branding> PgCheckoutReader::branding(const ports::ProjectId& project_id) {
    auto project = pool_.with_connection([&](pqxx::connection& conn) {
        pqxx::nontransaction tx(conn);
        return find_project(tx, project_id.value);
    });
    if (!project) return std::nullopt;
    return ports::Branding{project->name, project->logo_url, project->accent_color};
}

std::optional<std::uint64_t> PgCheckoutReader::payment_block(const std::string& invoice_id) {
    return pool_.with_connection([&](pqxx::connection& conn) -> std::optional<std::uint64_t> {
        pqxx::nontransaction tx(conn);
        auto rows = tx.exec_params(
            "select (payload->'data'->>'blockNumber')::bigint from charge_events "
            "where invoice_id = $1 and type in ('charge.payment_detected', 'charge.deposit_seen') "
            "and payload->'data' ? 'blockNumber' order by partition, \"offset\" desc limit 1",
            invoice_id);
        if (rows.empty() || rows[0][0].is_null()) return std::nullopt;
        return rows[0][0].as<std::uint64_t>();
    });
}

}  // namespace duepay::infra::postgres
