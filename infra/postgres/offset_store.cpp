#include "infra/postgres/offset_store.hpp"

#include "infra/postgres/detail/prepared.hpp"
#include "infra/postgres/transaction_runner.hpp"

namespace duepay::infra::postgres {

std::map<std::int32_t, std::int64_t> load_next_offsets(
    Transaction& tx, const std::string& group_id, const std::string& topic,
    const std::vector<std::int32_t>& partitions) {
    return load_next_offsets(tx.work(), group_id, topic, partitions);
}

std::map<std::int32_t, std::int64_t> load_next_offsets(
    pqxx::transaction_base& tx, const std::string& group_id, const std::string& topic,
    const std::vector<std::int32_t>& partitions) {
    std::map<std::int32_t, std::int64_t> out;
    auto rows = tx.exec_params(
        "select partition, next_offset from consumer_offsets where group_id = $1 and topic = $2",
        group_id, topic);
    for (const auto& r : rows) {
        const auto partition = r[0].as<std::int32_t>();
        for (auto wanted : partitions) {
            if (wanted == partition) out[partition] = r[1].as<std::int64_t>();
        }
    }
    return out;
}

void store_next_offsets(pqxx::transaction_base& tx, const std::string& group_id,
                        const NextOffsets& next_offsets) {
    auto it = next_offsets.begin();
    while (it != next_offsets.end()) {
        const std::string& topic = it->first.first;
        std::string partitions = "{";
        std::string offsets = "{";
        for (; it != next_offsets.end() && it->first.first == topic; ++it) {
            if (partitions.size() > 1) {
                partitions += ',';
                offsets += ',';
            }
            partitions += std::to_string(it->first.second);
            offsets += std::to_string(it->second);
        }
        partitions += '}';
        offsets += '}';
        detail::exec_prepared_sql(
            tx, "store_next_offsets",
            "insert into consumer_offsets (group_id, topic, partition, next_offset, updated_at) "
            "select $1, $2, p, o, now() from unnest($3::int[], $4::bigint[]) as u(p, o) "
            "on conflict (group_id, topic, partition) do update "
            "set next_offset = excluded.next_offset, updated_at = now()",
            group_id, topic, partitions, offsets);
    }
}

}  // namespace duepay::infra::postgres
