// One-shot reads of a single charge (charge_lookup.hpp).
#include "infra/postgres/charge_lookup.hpp"

#include <pqxx/pqxx>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {

std::optional<ChargeChainColumns> find_charge_chain_columns(const std::string& database_url,
                                                            const std::string& invoice_hex) {
    try {
        pqxx::connection conn(database_url);
        pqxx::read_transaction tx(conn);
        auto r = tx.exec_params(
            "select mode, payment_mode, status, chain_id, amount::text, token, merchant, fee_bps, "
            "deadline, "
            "deposit_address from charges where invoice_id = $1",
            invoice_hex);
        if (r.empty()) return std::nullopt;
        const auto row = r[0];
        ChargeChainColumns c;
        c.mode = row[0].as<std::string>();
        c.payment_mode = row[1].as<std::string>();
        c.status = row[2].as<std::string>();
        c.chain_id = row[3].as<std::int64_t>();
        c.amount = row[4].as<std::string>();
        c.token = row[5].as<std::string>();
        c.merchant = row[6].as<std::string>();
        c.fee_bps = row[7].as<int>();
        c.deadline = row[8].as<std::int64_t>();
        if (!row[9].is_null()) c.deposit_address = row[9].as<std::string>();
        return c;
    } catch (const pqxx::broken_connection& e) {
        throw DatabaseUnavailable(e.what());
    }
}

std::vector<std::string> load_charge_journal(const std::string& database_url,
                                             const std::string& invoice_hex) {
    try {
        pqxx::connection conn(database_url);
        pqxx::read_transaction tx(conn);
        std::vector<std::string> out;
        for (auto& [_, payload] : load_journal(tx, {invoice_hex}))
            out.push_back(std::move(payload));
        return out;
    } catch (const pqxx::broken_connection& e) {
        throw DatabaseUnavailable(e.what());
    }
}

}  // namespace duepay::infra::postgres
