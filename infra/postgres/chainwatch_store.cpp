#include "infra/postgres/chainwatch_store.hpp"

#include <pqxx/pqxx>
#include <string>

#include "domain/hex.hpp"
#include "infra/postgres/pool.hpp"

namespace duepay::infra::postgres {
namespace {

constexpr int kLockClass = 0x6477;  // pg_advisory_lock(int, int): (chainwatch, chain id)

// A lost or refused connection may come back (DatabaseUnavailable, retryable); any other driver
// failure (a statement the server rejects) will not.
[[noreturn]] void rethrow_as_infra(const char* what, const pqxx::failure& e) {
    const std::string message = std::string(what) + ": " + e.what();
    if (dynamic_cast<const pqxx::broken_connection*>(&e) != nullptr)
        throw DatabaseUnavailable(message);
    throw InfraError(message, false);
}

}  // namespace

struct ChainCheckpointStore::Impl {
    explicit Impl(const std::string& url) : conn(url) {}
    pqxx::connection conn;
};

ChainCheckpointStore::ChainCheckpointStore(const std::string& database_url) {
    try {
        impl_ = std::make_unique<Impl>(database_url);
    } catch (const pqxx::failure& e) {
        rethrow_as_infra("chainwatch checkpoint store: connect", e);
    }
}

ChainCheckpointStore::~ChainCheckpointStore() = default;

std::optional<ChainCheckpoint> ChainCheckpointStore::load(std::uint64_t chain_id) {
    try {
        pqxx::read_transaction tx(impl_->conn);
        auto r = tx.exec_params(
            "select block_number, block_hash from chainwatch_checkpoints where chain_id = $1",
            static_cast<std::int64_t>(chain_id));
        if (r.empty()) return std::nullopt;
        const auto hash = domain::from_hex_fixed<32>(r[0][1].as<std::string>());
        if (!hash) throw InfraError("chainwatch checkpoint: malformed block hash", false);
        return ChainCheckpoint{static_cast<std::uint64_t>(r[0][0].as<std::int64_t>()), *hash};
    } catch (const pqxx::failure& e) {
        rethrow_as_infra("chainwatch checkpoint: load", e);
    }
}

void ChainCheckpointStore::store(std::uint64_t chain_id, const ChainCheckpoint& checkpoint) {
    try {
        pqxx::work tx(impl_->conn);
        tx.exec_params(
            "insert into chainwatch_checkpoints (chain_id, block_number, block_hash) "
            "values ($1, $2, $3) on conflict (chain_id) do update set "
            "block_number = excluded.block_number, block_hash = excluded.block_hash, "
            "updated_at = now()",
            static_cast<std::int64_t>(chain_id), static_cast<std::int64_t>(checkpoint.number),
            domain::to_hex(checkpoint.hash));
        tx.commit();
    } catch (const pqxx::failure& e) {
        rethrow_as_infra("chainwatch checkpoint: store", e);
    }
}

struct ChainLeaderLock::Impl {
    Impl(const std::string& url, std::uint64_t id) : conn(url), chain_id(id) {}
    pqxx::connection conn;
    std::uint64_t chain_id;
};

ChainLeaderLock::ChainLeaderLock(const std::string& database_url, std::uint64_t chain_id) {
    try {
        impl_ = std::make_unique<Impl>(database_url, chain_id);
    } catch (const pqxx::failure& e) {
        rethrow_as_infra("chainwatch leader lock: connect", e);
    }
}

ChainLeaderLock::~ChainLeaderLock() = default;

bool ChainLeaderLock::try_acquire() {
    try {
        pqxx::nontransaction q(impl_->conn);
        return q
            .exec_params1("select pg_try_advisory_lock($1, $2)", kLockClass,
                          static_cast<int>(impl_->chain_id))[0]
            .as<bool>();
    } catch (const pqxx::failure& e) {
        rethrow_as_infra("chainwatch leader lock", e);
    }
}

bool ChainLeaderLock::alive() {
    try {
        pqxx::nontransaction q(impl_->conn);
        q.exec("select 1");
        return true;
    } catch (const pqxx::failure&) {
        return false;
    }
}

}  // namespace duepay::infra::postgres
