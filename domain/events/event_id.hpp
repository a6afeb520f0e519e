// Deterministic ids for chain facts, so that chainwatch re-emitting a fact (after a restart or a
// replayed block range) produces a duplicate that evolve ignores.
//
// id = 0x-hex keccak256( "duepay:chain-fact:v1" 0x00 type 0x00 chainId[8, big-endian]
//                        txHash[32] logIndex[4, big-endian] [blockHash[32]] )
// Event types never contain 0x00, so the encoding is unambiguous.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "domain/types.hpp"

namespace duepay::domain::events {

// For facts that are final once emitted: deposit_seen, paid, underpaid, late_deposit, failed,
// settled (logIndex 0 when the fact is a transaction rather than a log).
std::string chain_fact_id(std::string_view type, ChainId chain_id, const Bytes32& tx_hash,
                          std::uint32_t log_index);

// For facts tied to one block: payment_detected and payment_reorged. The same transaction
// re-mined in another block after a reorg is a new detection, not a duplicate.
std::string chain_fact_id(std::string_view type, ChainId chain_id, const Bytes32& tx_hash,
                          std::uint32_t log_index, const Bytes32& block_hash);

}  // namespace duepay::domain::events
