// The consumer loop's database adapter (transaction_runner.hpp).
#include "infra/postgres/transaction_runner.hpp"

#include "infra/postgres/offset_store.hpp"

namespace duepay::infra::postgres {

PgTransactionRunner::PgTransactionRunner(std::string database_url, OnConnect on_connect)
    : url_(std::move(database_url)), on_connect_(std::move(on_connect)) {}

pqxx::connection& PgTransactionRunner::connection() {
    if (!conn_ || !conn_->is_open()) {
        auto conn = std::make_unique<pqxx::connection>(url_);
        if (on_connect_) on_connect_(*conn);
        conn_ = std::move(conn);
    }
    return *conn_;
}

std::map<std::int32_t, std::int64_t> PgTransactionRunner::next_offsets(
    const std::string& group_id, const std::string& topic,
    const std::vector<std::int32_t>& partitions) {
    for (int attempt = 0;; ++attempt) {
        try {
            pqxx::read_transaction tx(connection());
            return load_next_offsets(tx, group_id, topic, partitions);
        } catch (const pqxx::broken_connection&) {
            conn_.reset();
            if (attempt >= 1) throw;
        }
    }
}

void PgTransactionRunner::in_transaction(const std::function<void(Transaction&)>& body) {
    pqxx::work work(connection());
    Transaction tx(work);
    body(tx);
    if (tx.discarded()) {
        work.abort();
    } else {
        work.commit();
    }
}

void PgTransactionRunner::probe() {
    try {
        pqxx::nontransaction probe(connection());
        probe.exec("select 1");
    } catch (...) {
        conn_.reset();
        throw;
    }
}

}  // namespace duepay::infra::postgres
