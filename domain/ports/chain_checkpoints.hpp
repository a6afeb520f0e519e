// The chain checkpoint port: where chainwatch's follower (consumers/roles/chain_follower.hpp)
// keeps the last block at confirmation depth whose events the broker acknowledged, per chain, and
// resumes from. The adapter is infra::postgres::ChainCheckpointStore; unit tests keep it in
// memory. ADR 0205.
#pragma once

#include <cstdint>
#include <optional>

#include "domain/types.hpp"

namespace duepay::ports {

struct ChainCheckpoint {
    std::uint64_t number = 0;
    domain::Bytes32 hash{};
};

class ChainCheckpoints {
  public:
    virtual ~ChainCheckpoints() = default;

    virtual std::optional<ChainCheckpoint> load(std::uint64_t chain_id) = 0;
    virtual void store(std::uint64_t chain_id, const ChainCheckpoint& checkpoint) = 0;
};

}  // namespace duepay::ports
