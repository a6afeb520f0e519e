// The database side of the one consumer loop (consumers/roles/consumer_loop.hpp): its stored
// offsets, one read-write transaction per batch, and a probe while it waits out an outage (ADR
// 0044). `TransactionRunner` is the port the loop sees, so consumers/ names no libpqxx type (ADR
// 0205); `PgTransactionRunner` is the adapter over one libpqxx connection, opened on first use (a
// role started while Postgres is down waits for it instead of failing) and replaced when broken.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace duepay::infra::postgres {

// One open read-write transaction, handed to a batch handler. Outside infra/ and projections/ it is
// only passed on (to `projections::charges::apply_batch` and the like): SQL stays in those layers.
class Transaction {
  public:
    explicit Transaction(pqxx::work& work) : work_(work) {}
    pqxx::work& work() { return work_; }
    // The runner rolls the transaction back instead of committing it when the body returns.
    void discard() { discarded_ = true; }
    bool discarded() const { return discarded_; }

  private:
    pqxx::work& work_;
    bool discarded_ = false;
};

class TransactionRunner {
  public:
    virtual ~TransactionRunner() = default;

    // The next offsets stored for `group_id` on `topic`'s `partitions` (no row: not in the map). A
    // stale connection (Postgres restarted) is replaced once; if the database is still away it
    // throws.
    virtual std::map<std::int32_t, std::int64_t> next_offsets(
        const std::string& group_id, const std::string& topic,
        const std::vector<std::int32_t>& partitions) = 0;

    // Runs `body` in one read-write transaction and commits it (unless `body` discarded it); if
    // `body` or the commit throws, nothing of it is kept and the exception propagates.
    virtual void in_transaction(const std::function<void(Transaction&)>& body) = 0;

    // Returns once the database answers a trivial query; throws (and drops the connection) when it
    // does not.
    virtual void probe() = 0;
};

class PgTransactionRunner final : public TransactionRunner {
  public:
    // `on_connect` runs on each new connection (prepared statements), may be empty.
    using OnConnect = std::function<void(pqxx::connection&)>;
    explicit PgTransactionRunner(std::string database_url, OnConnect on_connect = {});

    std::map<std::int32_t, std::int64_t> next_offsets(
        const std::string& group_id, const std::string& topic,
        const std::vector<std::int32_t>& partitions) override;
    void in_transaction(const std::function<void(Transaction&)>& body) override;
    void probe() override;

  private:
    pqxx::connection& connection();

    std::string url_;
    OnConnect on_connect_;
    std::unique_ptr<pqxx::connection> conn_;
};

}  // namespace duepay::infra::postgres
