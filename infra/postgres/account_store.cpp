#include "infra/postgres/account_store.hpp"

#include <cstring>

#include "infra/postgres/charge_store.hpp"
#include "infra/postgres/detail/prepared.hpp"

namespace duepay::infra::postgres {

void prepare_account_statements(pqxx::connection& conn) {
    conn.prepare(
        "find_key_owner",
        "select k.id, k.project_id, k.mode, p.plan, p.payment_window_seconds, p.payout_address, "
        "k.key_hash, p.name, p.brand_logo_url, p.brand_color, "
        "(extract(epoch from (k.expires_at - now())) * 1000)::bigint "
        "from api_keys k join projects p on p.id = k.project_id "
        "where k.key_hash = $1 and k.revoked_at is null "
        "and (k.expires_at is null or k.expires_at > now())");
}

std::optional<KeyOwner> find_key_owner(pqxx::transaction_base& tx,
                                       const random::Digest32& key_hash) {
    pqxx::binarystring hash(key_hash.data(), key_hash.size());
    auto rows = tx.exec_prepared("find_key_owner", hash);
    if (rows.empty()) return std::nullopt;
    const auto& r = rows[0];
    KeyOwner owner;
    owner.key_id = r[0].as<std::string>();
    owner.project_id = domain::ProjectId{r[1].as<std::string>()};
    owner.mode = stored_mode(r[2].as<std::string>());
    owner.plan = r[3].as<std::string>();
    owner.payment_window_seconds = r[4].as<int>();
    if (!r[5].is_null()) owner.payout_address = r[5].as<std::string>();
    pqxx::binarystring stored(r[6]);
    if (stored.size() == owner.key_hash.size())
        std::memcpy(owner.key_hash.data(), stored.data(), stored.size());
    owner.project_name = r[7].as<std::string>();
    if (!r[8].is_null()) owner.logo_url = r[8].as<std::string>();
    if (!r[9].is_null()) owner.accent_color = r[9].as<std::string>();
    if (!r[10].is_null()) owner.expires_in_ms = r[10].as<std::int64_t>();
    return owner;
}

void upsert_project(pqxx::work& tx, const ProjectSpec& p) {
    tx.exec_params(
        "insert into projects (id, name, plan, payout_address, payout_verified_at) "
        "values ($1, $2, $3, $4, case when $4::text is null then null else now() end) "
        "on conflict (id) do update set name = excluded.name, plan = excluded.plan, "
        "payout_address = excluded.payout_address, payout_verified_at = "
        "coalesce(projects.payout_verified_at, "
        "excluded.payout_verified_at)",
        p.id, p.name, p.plan, p.payout_address);
}

bool upsert_api_key(pqxx::work& tx, const std::string& key_id, const std::string& project_id,
                    const std::string& mode, const random::Digest32& key_hash,
                    const std::string& key_prefix) {
    pqxx::binarystring hash(key_hash.data(), key_hash.size());
    auto r = tx.exec_params(
        "insert into api_keys as k (id, project_id, mode, key_hash, key_prefix) values ($1, $2, "
        "$3, $4, $5) "
        "on conflict (id) do update set key_hash = excluded.key_hash, key_prefix = "
        "excluded.key_prefix, "
        "mode = excluded.mode where k.revoked_at is null and k.expires_at is null returning 1",
        key_id, project_id, mode, hash, key_prefix);
    return !r.empty();
}

namespace {

constexpr const char* kIso = R"('YYYY-MM-DD"T"HH24:MI:SS"Z"')";

std::string iso(const std::string& column) {
    return "to_char((" + column + ") at time zone 'UTC', " + kIso + ")";
}

}  // namespace

std::string iso_utc(const std::string& column) { return iso(column); }

namespace {

std::optional<std::string> opt(const pqxx::field& f) {
    if (f.is_null()) return std::nullopt;
    return f.as<std::string>();
}

ProjectRecord project_from(const pqxx::row& r) {
    ProjectRecord p;
    p.id = r[0].as<std::string>();
    p.name = r[1].as<std::string>();
    p.plan = r[2].as<std::string>();
    p.payment_window_seconds = r[3].as<int>();
    p.payout_address = opt(r[4]);
    p.payout_verified_at = opt(r[5]);
    p.logo_url = opt(r[6]);
    p.accent_color = opt(r[7]);
    p.created_at = r[8].as<std::string>();
    return p;
}

ApiKeyRecord key_from(const pqxx::row& r) {
    ApiKeyRecord k;
    k.id = r[0].as<std::string>();
    k.project_id = r[1].as<std::string>();
    k.mode = r[2].as<std::string>();
    k.prefix = r[3].as<std::string>();
    pqxx::binarystring stored(r[4]);
    if (stored.size() == k.key_hash.size())
        std::memcpy(k.key_hash.data(), stored.data(), stored.size());
    k.created_at = r[5].as<std::string>();
    k.revoked_at = opt(r[6]);
    k.expires_at = opt(r[7]);
    k.replaced_by = opt(r[8]);
    return k;
}

std::string key_columns() {
    return "id, project_id, mode, key_prefix, key_hash, " + iso("created_at") + ", " +
           iso("revoked_at") + ", " + iso("expires_at") + ", replaced_by";
}

WalletChallenge challenge_from(const pqxx::row& r) {
    WalletChallenge c;
    c.id = r[0].as<std::string>();
    c.project_id = r[1].as<std::string>();
    c.address = r[2].as<std::string>();
    c.nonce = r[3].as<std::string>();
    c.message = r[4].as<std::string>();
    c.expires_at = r[5].as<std::string>();
    c.expired = r[6].as<bool>();
    c.used = r[7].as<bool>();
    return c;
}

std::string challenge_columns() {
    return "id, project_id, address, nonce, message, " + iso("expires_at") +
           ", expires_at <= now(), used_at is not null";
}

}  // namespace

void insert_project(pqxx::work& tx, const ProjectRecord& p) {
    tx.exec_params(
        "insert into projects (id, name, plan, payment_window_seconds, brand_logo_url, "
        "brand_color) "
        "values ($1, $2, $3, $4, $5, $6)",
        p.id, p.name, p.plan, p.payment_window_seconds, p.logo_url, p.accent_color);
}

std::optional<ProjectRecord> find_project(pqxx::transaction_base& tx,
                                          const std::string& project_id) {
    // Prepared: every dashboard page of a project reads its project first.
    static const std::string sql =
        "select id, name, plan, payment_window_seconds, payout_address, " +
        iso("payout_verified_at") + ", brand_logo_url, brand_color, " + iso("created_at") +
        " from projects where id = $1";
    auto rows = detail::exec_prepared_sql(tx, "find_project", sql, project_id);
    if (rows.empty()) return std::nullopt;
    return project_from(rows[0]);
}

bool update_project(pqxx::work& tx, const std::string& project_id, const ProjectChanges& c) {
    // nullif(..., '') turns an explicit empty string into "clear"; a null parameter keeps the
    // value.
    auto rows = tx.exec_params(
        "update projects set name = coalesce($2, name), plan = coalesce($3, plan), "
        "payment_window_seconds = coalesce($4, payment_window_seconds), "
        "brand_logo_url = case when $5::text is null then brand_logo_url else nullif($5, '') end, "
        "brand_color = case when $6::text is null then brand_color else nullif($6, '') end "
        "where id = $1 returning id",
        project_id, c.name, c.plan, c.payment_window_seconds, c.logo_url, c.accent_color);
    return !rows.empty();
}

void set_payout_address(pqxx::work& tx, const std::string& project_id, const std::string& address) {
    tx.exec_params(
        "update projects set payout_address = $2, payout_verified_at = now() where id = $1",
        project_id, address);
}

std::optional<ApiKeyRecord> find_api_key(pqxx::transaction_base& tx, const std::string& key_id) {
    auto rows = tx.exec_params("select " + key_columns() + " from api_keys where id = $1", key_id);
    if (rows.empty()) return std::nullopt;
    return key_from(rows[0]);
}

std::vector<ApiKeyRecord> list_api_keys(pqxx::transaction_base& tx, const std::string& project_id) {
    auto rows = tx.exec_params(
        "select " + key_columns() + " from api_keys where project_id = $1 order by created_at, id",
        project_id);
    std::vector<ApiKeyRecord> out;
    for (const auto& r : rows) out.push_back(key_from(r));
    return out;
}

std::optional<ApiKeyRecord> revoke_api_key(pqxx::work& tx, const std::string& key_id) {
    auto rows = tx.exec_params(
        "update api_keys set revoked_at = coalesce(revoked_at, now()) where id = $1 "
        "returning " +
            key_columns(),
        key_id);
    if (rows.empty()) return std::nullopt;
    return key_from(rows[0]);
}

bool lock_project(pqxx::work& tx, const std::string& project_id) {
    return !tx.exec_params("select 1 from projects where id = $1 for update", project_id).empty();
}

std::optional<RolledKey> roll_api_key(pqxx::work& tx, const std::string& old_key_id,
                                      const std::string& new_key_id,
                                      const random::Digest32& new_key_hash,
                                      const std::string& new_key_prefix, int expires_in_seconds) {
    // Locked first, so two concurrent rolls of one key cannot both pass the check.
    auto old = tx.exec_params(
        "select project_id, mode from api_keys where id = $1 and revoked_at is null "
        "and expires_at is null and replaced_by is null for update",
        old_key_id);
    if (old.empty()) return std::nullopt;
    const auto project_id = old[0][0].as<std::string>();
    const auto mode = old[0][1].as<std::string>();
    pqxx::binarystring hash(new_key_hash.data(), new_key_hash.size());
    auto inserted = tx.exec_params(
        "insert into api_keys (id, project_id, mode, key_hash, key_prefix) values ($1, $2, $3, "
        "$4, $5) returning " +
            key_columns(),
        new_key_id, project_id, mode, hash, new_key_prefix);
    auto previous = tx.exec_params(
        "update api_keys set expires_at = now() + make_interval(secs => $2::int), "
        "replaced_by = $3 where id = $1 returning " +
            key_columns(),
        old_key_id, expires_in_seconds, new_key_id);
    return RolledKey{key_from(inserted[0]), key_from(previous[0])};
}

void insert_account_audit(pqxx::work& tx, const std::string& project_id, const AuditActor& actor,
                          const std::string& action, const std::string& changes_json) {
    const std::optional<std::string> key_id =
        actor.kind == "key" ? actor.id : std::optional<std::string>{};
    tx.exec_params(
        "insert into account_audit (project_id, key_id, action, changes, actor_kind, actor, "
        "session_id) values ($1, $2, $3, $4::jsonb, $5, $6, $7)",
        project_id, key_id, action, changes_json, actor.kind, actor.id, actor.session_id);
}

WalletChallenge insert_wallet_challenge(
    pqxx::work& tx, const std::string& id, const std::string& project_id,
    const std::string& address, const std::string& nonce, int ttl_seconds,
    const std::function<std::string(const std::string&)>& message_for) {
    // The expiry is fixed first (database clock, whole seconds) so the message can quote it.
    auto at = tx.exec_params1(
        "select " + iso("date_trunc('second', now()) + make_interval(secs => $1::int)") +
            ", date_trunc('second', now()) + make_interval(secs => $1::int)",
        ttl_seconds);
    const auto expires_text = at[0].as<std::string>();
    const auto expires_ts = at[1].as<std::string>();
    const auto message = message_for(expires_text);
    auto rows = tx.exec_params(
        "insert into wallet_challenges (id, project_id, address, nonce, message, expires_at) "
        "values ($1, $2, $3, $4, $5, $6::timestamptz) returning " +
            challenge_columns(),
        id, project_id, address, nonce, message, expires_ts);
    return challenge_from(rows[0]);
}

std::optional<WalletChallenge> find_wallet_challenge(pqxx::work& tx, const std::string& project_id,
                                                     const std::string& address,
                                                     const std::optional<std::string>& nonce) {
    auto rows =
        tx.exec_params("select " + challenge_columns() +
                           " from wallet_challenges where project_id = $1 and address = $2 "
                           "and ($3::text is null or nonce = $3) order by created_at desc, id desc "
                           "limit 1 for update",
                       project_id, address, nonce);
    if (rows.empty()) return std::nullopt;
    return challenge_from(rows[0]);
}

void mark_challenge_used(pqxx::work& tx, const std::string& challenge_id) {
    tx.exec_params("update wallet_challenges set used_at = now() where id = $1 and used_at is null",
                   challenge_id);
}

}  // namespace duepay::infra::postgres
