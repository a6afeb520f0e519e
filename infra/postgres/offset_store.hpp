// Consumer offsets kept in Postgres, written in the same transaction as a consumer's side effects
// (so "processed" and "offset moved" can never disagree).
#pragma once

#include <cstdint>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <utility>
#include <vector>

namespace duepay::infra::postgres {

class Transaction;

std::map<std::int32_t, std::int64_t> load_next_offsets(pqxx::transaction_base& tx,
                                                       const std::string& group_id,
                                                       const std::string& topic,
                                                       const std::vector<std::int32_t>& partitions);

// The same in a consumer's transaction (transaction_runner.hpp).
std::map<std::int32_t, std::int64_t> load_next_offsets(Transaction& tx, const std::string& group_id,
                                                       const std::string& topic,
                                                       const std::vector<std::int32_t>& partitions);

// (topic, partition) -> next offset to read.
using NextOffsets = std::map<std::pair<std::string, std::int32_t>, std::int64_t>;

// Upserts every partition's next offset of `group_id`: one statement per topic, whatever the
// number of partitions (a batch of the projector spans up to all of them; ADR 0140).
void store_next_offsets(pqxx::transaction_base& tx, const std::string& group_id,
                        const NextOffsets& next_offsets);

}  // namespace duepay::infra::postgres
