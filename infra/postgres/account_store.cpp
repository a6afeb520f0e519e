#include "infra/postgres/account_store.hpp"

#include <cstring>

namespace duepay::infra::postgres {

void prepare_account_statements(pqxx::connection& conn) {
    conn.prepare("find_key_owner",
                 "select k.id, k.project_id, k.mode, p.plan, p.payment_window_seconds, p.payout_address, "
                 "k.key_hash from api_keys k join projects p on p.id = k.project_id "
                 "where k.key_hash = $1 and k.revoked_at is null");
}

std::optional<KeyOwner> find_key_owner(pqxx::transaction_base& tx, const random::Digest32& key_hash) {
    pqxx::binarystring hash(key_hash.data(), key_hash.size());
    auto rows = tx.exec_prepared("find_key_owner", hash);
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    KeyOwner owner;
    owner.key_id = r[0].as<std::string>();
    owner.project_id = r[1].as<std::string>();
    owner.mode = r[2].as<std::string>();
    owner.plan = r[3].as<std::string>();
    owner.payment_window_seconds = r[4].as<int>();
    if (!r[5].is_null()) owner.payout_address = r[5].as<std::string>();
    pqxx::binarystring stored(r[6]);
    if (stored.size() == owner.key_hash.size()) std::memcpy(owner.key_hash.data(), stored.data(), stored.size());
    return owner;
}

void upsert_project(pqxx::work& tx, const ProjectSpec& p) {
    tx.exec_params(
        "insert into projects (id, name, plan, payout_address, payout_verified_at) "
        "values ($1, $2, $3, $4, case when $4::text is null then null else now() end) "
        "on conflict (id) do update set name = excluded.name, plan = excluded.plan, "
        "payout_address = excluded.payout_address, payout_verified_at = coalesce(projects.payout_verified_at, "
        "excluded.payout_verified_at)",
        p.id, p.name, p.plan, p.payout_address);
}

void upsert_api_key(pqxx::work& tx, const std::string& key_id, const std::string& project_id,
                    const std::string& mode, const random::Digest32& key_hash, const std::string& key_prefix) {
    pqxx::binarystring hash(key_hash.data(), key_hash.size());
    tx.exec_params(
        "insert into api_keys (id, project_id, mode, key_hash, key_prefix) values ($1, $2, $3, $4, $5) "
        "on conflict (id) do update set key_hash = excluded.key_hash, key_prefix = excluded.key_prefix, "
        "mode = excluded.mode, revoked_at = null",
        key_id, project_id, mode, hash, key_prefix);
}

}  // namespace duepay::infra::postgres
