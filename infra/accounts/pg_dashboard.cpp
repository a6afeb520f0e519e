#include "infra/accounts/pg_dashboard.hpp"

#include <algorithm>
#include <cctype>
#include <utility>

#include "infra/accounts/account_changes.hpp"
#include "infra/accounts/pg_accounts.hpp"
#include "infra/postgres/account_store.hpp"
#include "infra/postgres/api_ports.hpp"
#include "infra/postgres/charge_store.hpp"
#include "infra/random/key_material.hpp"

namespace duepay::infra::accounts {
namespace {

namespace pg = postgres;
using ports::MemberRole;

Actor actor_of(const ports::DashboardActor& a) { return Actor::wallet(a.address, a.session_id); }

std::optional<std::string> opt(const pqxx::field& f) {
    if (f.is_null()) return std::nullopt;
    return f.as<std::string>();
}

MemberRole role_of(const std::string& text) {
    return domain::accounts::parse_role(text).value_or(MemberRole::viewer);
}

std::string role_text(MemberRole role) { return std::string(domain::accounts::role_name(role)); }

pqxx::binarystring bytes(const ports::TokenHash& h) { return {h.data(), h.size()}; }

// The hot statements of every signed-in page, planned once per connection
// (prepare_dashboard_statements).
constexpr const char* kTouchSession = "dashboard_touch_session";
constexpr const char* kMembership = "dashboard_membership";
constexpr const char* kKeys = "dashboard_keys";

ports::ProjectMembership membership_of(const pqxx::row& r) {
    return {ports::ProjectId{r[0].as<std::string>()}, r[1].as<std::string>(),
            role_of(r[2].as<std::string>()), r[3].as<std::string>()};
}

}  // namespace

void prepare_dashboard_statements(pqxx::connection& conn) {
    pg::prepare_api_statements(conn);  // the charge reader's, which the pages use too
    // One statement, so atomic without an explicit transaction: the CTE's update and the select
    // share the statement's snapshot, and the row lock the update takes is released when the
    // statement commits by itself. Two requests of one session that both find the touch due both
    // update last_seen_at to now(); the second waits for the first's lock only for the length of
    // that statement, and either way each answers the session as its snapshot saw it.
    conn.prepare(kTouchSession,
                 "with s as (select id, address, csrf, last_seen_at from dashboard_sessions "
                 "where token_hash = $1 and ended_at is null and expires_at > now() and "
                 "last_seen_at > now() - make_interval(secs => $2::int)), "
                 "touched as (update dashboard_sessions d set last_seen_at = now() from s "
                 "where d.id = s.id and s.last_seen_at <= now() - make_interval(secs => $3::int)) "
                 "select id, address, csrf from s");
    conn.prepare(kMembership, "select p.id, p.name, m.role, " + pg::iso_utc("p.created_at") +
                                  " from project_members m join projects p on p.id = "
                                  "m.project_id where m.project_id = $1 and m.address = $2");
    conn.prepare(kKeys, "select id, mode, key_prefix, " + pg::iso_utc("created_at") + ", " +
                            pg::iso_utc("revoked_at") + ", " + pg::iso_utc("expires_at") +
                            ", replaced_by, key_hash, revoked_at is null and (expires_at is null "
                            "or expires_at > now()) from api_keys where project_id = $1 order by "
                            "created_at desc, id");
}

// ---- Sign-in nonces ----

void PgDashboard::put_nonce(const std::string& nonce, int ttl_seconds) {
    pool_.with_transaction([&](pqxx::work& tx) {
        // Nonces a day past their expiry are of no use to anyone: dropped as new ones come.
        tx.exec("delete from siwe_nonces where expires_at < now() - interval '1 day'");
        tx.exec_params(
            "insert into siwe_nonces (nonce, expires_at) values ($1, now() + make_interval(secs "
            "=> $2::int))",
            nonce, ttl_seconds);
    });
}

ports::NonceTake PgDashboard::take_nonce(const std::string& nonce) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        // The update takes it; the row as it was says why not (the select sees the snapshot from
        // before the update).
        auto r = tx.exec_params1(
            "with t as (update siwe_nonces set used_at = now() where nonce = $1 and used_at is "
            "null and expires_at > now() returning 1) "
            "select (select count(*) from t), n.used_at is not null, n.expires_at <= now() "
            "from (select 1) one left join siwe_nonces n on n.nonce = $1",
            nonce);
        if (r[0].as<long>() == 1) return ports::NonceTake::taken;
        if (r[1].is_null()) return ports::NonceTake::unknown;
        if (r[1].as<bool>()) return ports::NonceTake::used;
        return ports::NonceTake::expired;
    });
}

// ---- Sessions ----

ports::DashboardSession PgDashboard::open_session(const ports::TokenHash& token,
                                                  const std::string& address,
                                                  const std::string& csrf,
                                                  const ports::SessionLimits& limits) {
    ports::DashboardSession s{new_id("ses_"), address, csrf};
    pool_.with_transaction([&](pqxx::work& tx) {
        tx.exec_params(
            "insert into dashboard_sessions (id, token_hash, address, csrf, expires_at) values "
            "($1, $2, $3, $4, now() + make_interval(secs => $5::int))",
            s.id, bytes(token), address, csrf, limits.absolute_seconds);
    });
    return s;
}

std::optional<ports::DashboardSession> PgDashboard::touch_session(
    const ports::TokenHash& token, const ports::SessionLimits& limits) {
    // The read and the update that may come with it are one statement, atomic outside an
    // explicit transaction (prepare_dashboard_statements says why): one round trip, not three.
    return pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) -> std::optional<ports::DashboardSession> {
            auto rows = tx.exec_prepared(kTouchSession, bytes(token), limits.idle_seconds,
                                         limits.touch_every_seconds());
            if (rows.empty()) return std::nullopt;
            return ports::DashboardSession{rows[0][0].as<std::string>(),
                                           rows[0][1].as<std::string>(),
                                           rows[0][2].as<std::string>()};
        });
}

void PgDashboard::end_session(const std::string& session_id) {
    pool_.with_transaction([&](pqxx::work& tx) {
        tx.exec_params(
            "update dashboard_sessions set ended_at = now() where id = $1 and ended_at is null",
            session_id);
    });
}

int PgDashboard::end_sessions_of(const std::string& address) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto r = tx.exec_params(
            "update dashboard_sessions set ended_at = now() where address = $1 and ended_at is "
            "null",
            address);
        return static_cast<int>(r.affected_rows());
    });
}

// ---- Projects and members ----

std::vector<ports::ProjectMembership> PgDashboard::projects_of(const std::string& address) {
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        auto rows = tx.exec_params("select p.id, p.name, m.role, " + pg::iso_utc("p.created_at") +
                                       " from project_members m join projects p on p.id = "
                                       "m.project_id where m.address = $1 order by p.created_at, "
                                       "p.id",
                                   address);
        std::vector<ports::ProjectMembership> out;
        for (const auto& r : rows) out.push_back(membership_of(r));
        return out;
    });
}

ports::ProjectMembership PgDashboard::create_project(const std::string& name,
                                                     const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        pg::ProjectRecord p;
        p.id = new_id("prj_");
        p.name = name;
        p.plan = "free";
        pg::insert_project(tx, p);
        tx.exec_params(
            "insert into project_members (project_id, address, role) values ($1, $2, 'owner')",
            p.id, actor.address);
        pg::insert_account_audit(tx, p.id, actor_of(actor), "project.created",
                                 audit_changes({{"name", name}}));
        auto stored = pg::find_project(tx, p.id);
        return ports::ProjectMembership{ports::ProjectId{p.id}, name, MemberRole::owner,
                                        stored ? stored->created_at : std::string()};
    });
}

std::vector<std::pair<ports::ProjectId, ports::Mode>> PgDashboard::charge_scopes(
    const std::vector<std::string>& invoice_ids) {
    // Invoice ids are 0x + hex (the projector's own notifications): a text array literal needs
    // no quoting, and anything else is dropped rather than sent.
    std::string array = "{";
    for (const auto& id : invoice_ids) {
        if (id.empty() || !std::all_of(id.begin(), id.end(),
                                       [](unsigned char ch) { return std::isalnum(ch) != 0; })) {
            continue;
        }
        if (array.size() > 1) array += ',';
        array += id;
    }
    array += '}';
    if (array.size() == 2) return {};
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        auto rows = tx.exec_params(
            "select distinct project_id, mode from charges where invoice_id = any($1::text[])",
            array);
        std::vector<std::pair<ports::ProjectId, ports::Mode>> out;
        for (const auto& r : rows) {
            out.emplace_back(
                ports::ProjectId{r[0].as<std::string>()},
                r[1].as<std::string>() == "live" ? ports::Mode::live : ports::Mode::test);
        }
        return out;
    });
}

std::optional<ports::ProjectMembership> PgDashboard::membership(const ports::ProjectId& project,
                                                                const std::string& address) {
    return pool_.with_single_statement(
        [&](pqxx::transaction_base& tx) -> std::optional<ports::ProjectMembership> {
            auto rows = tx.exec_prepared(kMembership, project.value, address);
            if (rows.empty()) return std::nullopt;
            return membership_of(rows[0]);
        });
}

std::vector<ports::Member> PgDashboard::members(const ports::ProjectId& project) {
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        auto rows = tx.exec_params(
            "select address, role, " + pg::iso_utc("added_at") +
                ", added_by from project_members where project_id = $1 order by role = 'owner' "
                "desc, added_at, address",
            project.value);
        std::vector<ports::Member> out;
        for (const auto& r : rows) {
            out.push_back({r[0].as<std::string>(), role_of(r[1].as<std::string>()),
                           r[2].as<std::string>(), opt(r[3])});
        }
        return out;
    });
}

domain::Result<ports::Member> PgDashboard::put_member(const ports::ProjectId& project,
                                                      const std::string& address, MemberRole role,
                                                      const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) -> domain::Result<ports::Member> {
        // Serialised per project: the owner check and the write see the same members.
        pg::lock_project(tx, project.value);
        auto before = tx.exec_params(
            "select role from project_members where project_id = $1 and address = $2",
            project.value, address);
        if (!before.empty() && before[0][0].as<std::string>() == "owner") {
            return domain::make_error("member_is_owner",
                                      "that address is the project's owner; its role stays");
        }
        auto r = tx.exec_params1(
            "insert into project_members (project_id, address, role, added_by) values ($1, $2, "
            "$3, $4) on conflict (project_id, address) do update set role = excluded.role "
            "returning " +
                pg::iso_utc("added_at") + ", added_by",
            project.value, address, role_text(role), actor.address);
        pg::insert_account_audit(tx, project.value, actor_of(actor),
                                 before.empty() ? "member.added" : "member.updated",
                                 audit_changes({{"address", address}, {"role", role_text(role)}}));
        return ports::Member{address, role, r[0].as<std::string>(), opt(r[1])};
    });
}

bool PgDashboard::remove_member(const ports::ProjectId& project, const std::string& address,
                                const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto r = tx.exec_params(
            "delete from project_members where project_id = $1 and address = $2 and role <> "
            "'owner' returning role",
            project.value, address);
        if (r.empty()) return false;
        pg::insert_account_audit(
            tx, project.value, actor_of(actor), "member.removed",
            audit_changes({{"address", address}, {"role", r[0][0].as<std::string>()}}));
        return true;
    });
}

// ---- Keys ----

std::vector<ports::KeySummary> PgDashboard::keys(const ports::ProjectId& project) {
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        auto rows = tx.exec_prepared(kKeys, project.value);
        std::vector<ports::KeySummary> out;
        for (const auto& r : rows) {
            ports::KeySummary k;
            k.id = r[0].as<std::string>();
            k.mode = pg::stored_mode(r[1].as<std::string>());
            k.prefix = r[2].as<std::string>();
            k.created_at = r[3].as<std::string>();
            k.revoked_at = opt(r[4]);
            k.expires_at = opt(r[5]);
            k.replaced_by = opt(r[6]);
            const pqxx::binarystring hash(r[7]);
            k.revealable =
                k.mode == ports::Mode::test &&
                derivable(k.id, {reinterpret_cast<const std::uint8_t*>(hash.data()), hash.size()});
            k.active = r[8].as<bool>();
            out.push_back(std::move(k));
        }
        return out;
    });
}

bool PgDashboard::derivable(const std::string& key_id, std::span<const std::uint8_t> hash) const {
    if (test_keys_.empty()) return false;
    const auto digest = random::sha256(random::derive_test_key(test_keys_, key_id));
    return random::constant_time_equal(digest, hash);
}

ports::CreatedKey PgDashboard::create_key(const ports::ProjectId& project, ports::Mode mode,
                                          const ports::DashboardActor& actor) {
    auto created = pool_.with_transaction([&](pqxx::work& tx) {
        return accounts::create_key(tx, project.value, std::string(domain::events::to_string(mode)),
                                    actor_of(actor), test_keys_);
    });
    ports::CreatedKey out;
    out.key.id = created.key.id;
    out.key.mode = mode;
    out.key.prefix = created.key.prefix;
    out.key.created_at = created.key.created_at;
    out.key.revealable = mode == ports::Mode::test && !test_keys_.empty();
    out.key.active = true;
    out.secret = std::move(created.secret);
    return out;
}

std::optional<std::string> PgDashboard::reveal_test_key(const ports::ProjectId& project,
                                                        const std::string& key_id,
                                                        const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) -> std::optional<std::string> {
        auto rows = tx.exec_params(
            "select key_hash from api_keys where id = $1 and project_id = $2 and mode = 'test' "
            "and revoked_at is null and (expires_at is null or expires_at > now())",
            key_id, project.value);
        if (rows.empty()) return std::nullopt;
        const pqxx::binarystring hash(rows[0][0]);
        if (!derivable(key_id, {reinterpret_cast<const std::uint8_t*>(hash.data()), hash.size()}))
            return std::nullopt;  // a random test key (a REST roll) or an older server secret
        pg::insert_account_audit(tx, project.value, actor_of(actor), "api_key.revealed",
                                 audit_changes({{"keyId", key_id}}));
        return random::derive_test_key(test_keys_, key_id);
    });
}

bool PgDashboard::revoke_key(const ports::ProjectId& project, const std::string& key_id,
                             const ports::DashboardActor& actor) {
    return pool_.with_transaction([&](pqxx::work& tx) {
        auto r = tx.exec_params(
            "update api_keys set revoked_at = now() where id = $1 and project_id = $2 and "
            "revoked_at is null returning 1",
            key_id, project.value);
        if (r.empty()) return false;
        pg::insert_account_audit(tx, project.value, actor_of(actor), "api_key.revoked",
                                 audit_changes({{"keyId", key_id}}));
        return true;
    });
}

std::optional<ports::KeyRoll> PgDashboard::roll_key(const ports::ProjectId& project,
                                                    const std::string& key_id,
                                                    int expires_in_seconds,
                                                    const ports::DashboardActor& actor) {
    auto rolled = pool_.with_transaction([&](pqxx::work& tx) -> std::optional<NewKey> {
        auto key = pg::find_api_key(tx, key_id);
        if (!key || key->project_id != project.value) return std::nullopt;
        return accounts::roll_key(tx, key_id, expires_in_seconds, actor_of(actor), test_keys_);
    });
    if (!rolled) return std::nullopt;
    return key_roll(std::move(*rolled));
}

// ---- Settings, payout wallet, audit ----

std::optional<ports::ProjectView> PgDashboard::find_project(const ports::ProjectId& project) {
    return PgAccounts(pool_).find_project(project);
}

std::optional<ports::ProjectView> PgDashboard::update_project(const ports::ProjectId& project,
                                                              const ports::ProjectUpdate& update,
                                                              const ports::DashboardActor& actor) {
    pg::ProjectChanges c;
    c.name = update.name;
    c.payment_window_seconds = update.payment_window_seconds;
    c.logo_url = update.logo_url;
    c.accent_color = update.accent_color;
    auto p = pool_.with_transaction([&](pqxx::work& tx) {
        return accounts::update_project(tx, project.value, c, actor_of(actor));
    });
    if (!p) return std::nullopt;
    return project_view(std::move(*p));
}

ports::IssuedChallenge PgDashboard::issue_wallet_challenge(const ports::ProjectId& project,
                                                           const std::string& address,
                                                           int ttl_seconds) {
    return PgAccounts(pool_).issue_wallet_challenge(project, address, ttl_seconds);
}

domain::Result<ports::ProjectView> PgDashboard::verify_wallet(
    const ports::WalletProofRequest& proof, const ports::DashboardActor& actor) {
    WalletVerification v;
    v.project_id = proof.project_id.value;
    v.address = proof.address;
    v.signature = proof.signature;
    v.nonce = proof.nonce;
    v.current_signature = proof.current_signature;
    v.require_current_wallet = true;  // as over REST: a change proves the current wallet too
    v.actor = actor_of(actor);
    auto p = pool_.with_transaction([&](pqxx::work& tx) { return accounts::verify_wallet(tx, v); });
    if (!p) return p.error();
    return project_view(std::move(p).value());
}

std::vector<ports::AuditEntry> PgDashboard::audit(const ports::ProjectId& project,
                                                  std::size_t limit) {
    return pool_.with_single_statement([&](pqxx::transaction_base& tx) {
        auto rows = tx.exec_params("select id, " + pg::iso_utc("at") +
                                       ", actor_kind, actor, session_id, action, changes::text "
                                       "from account_audit where project_id = $1 order by id "
                                       "desc limit $2",
                                   project.value, static_cast<long>(limit));
        std::vector<ports::AuditEntry> out;
        for (const auto& r : rows) {
            out.push_back({r[0].as<std::int64_t>(), r[1].as<std::string>(), r[2].as<std::string>(),
                           opt(r[3]), opt(r[4]), r[5].as<std::string>(), r[6].as<std::string>()});
        }
        return out;
    });
}

}  // namespace duepay::infra::accounts
