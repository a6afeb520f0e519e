// chainwatch's Postgres state: the checkpoint of a chain (schemas/migrations/0020_chainwatch.sql)
// and the leader lock that makes one chainwatch per chain (docs/chainwatch.md). Driver errors
// stay in here: callers see an InfraError (DatabaseUnavailable for a lost connection; the round
// fails, the role exits and resumes from the checkpoint) or a bool.
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>

#include "domain/ports/chain_checkpoints.hpp"
#include "domain/types.hpp"

namespace duepay::infra::postgres {

// The last block at confirmation depth whose events Kafka acknowledged.
using ports::ChainCheckpoint;

// The adapter of the checkpoint port (domain/ports/chain_checkpoints.hpp).
class ChainCheckpointStore final : public ports::ChainCheckpoints {
  public:
    explicit ChainCheckpointStore(const std::string& database_url);
    ~ChainCheckpointStore() override;
    ChainCheckpointStore(const ChainCheckpointStore&) = delete;
    ChainCheckpointStore& operator=(const ChainCheckpointStore&) = delete;

    std::optional<ChainCheckpoint> load(std::uint64_t chain_id) override;
    void store(std::uint64_t chain_id, const ChainCheckpoint& checkpoint) override;

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

// Leadership of one chain: pg_try_advisory_lock(0x6477, chainId) on a connection of its own; the
// lock lives exactly as long as that connection.
class ChainLeaderLock {
  public:
    ChainLeaderLock(const std::string& database_url, std::uint64_t chain_id);
    ~ChainLeaderLock();
    ChainLeaderLock(const ChainLeaderLock&) = delete;
    ChainLeaderLock& operator=(const ChainLeaderLock&) = delete;

    bool try_acquire();  // true once this connection holds the lock
    bool alive();        // false when the connection (and with it the lock) is gone

  private:
    struct Impl;
    std::unique_ptr<Impl> impl_;
};

}  // namespace duepay::infra::postgres
