// Consumer offsets kept in Postgres, written in the same transaction as a consumer's side effects
// (so "processed" and "offset moved" can never disagree).
#pragma once

#include <cstdint>
#include <map>
#include <pqxx/pqxx>
#include <string>
#include <vector>

namespace duepay::infra::postgres {

std::map<std::int32_t, std::int64_t> load_next_offsets(pqxx::transaction_base& tx,
                                                       const std::string& group_id,
                                                       const std::string& topic,
                                                       const std::vector<std::int32_t>& partitions);

void store_next_offset(pqxx::transaction_base& tx, const std::string& group_id,
                       const std::string& topic, std::int32_t partition, std::int64_t next_offset);

}  // namespace duepay::infra::postgres
