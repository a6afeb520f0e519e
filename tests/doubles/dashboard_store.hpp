// An in-memory DashboardStore (domain/ports/dashboard.hpp) for the dashboard's unit tests: the
// same answers as the Postgres adapter for what the routes ask, with a clock the test moves
// (`now_s`) so idle and absolute session ends, and nonce expiry, are deterministic. Every change
// appends an audit entry, as the adapter does, so a test can assert that a refused request
// changed nothing.
#pragma once

#include <algorithm>
#include <map>
#include <set>
#include <string>
#include <vector>

#include "domain/ports/dashboard.hpp"

namespace duepay::testing {

class DashboardStoreDouble final : public ports::DashboardStore {
  public:
    using Actor = ports::DashboardActor;
    long long now_s = 1'000'000;

    struct Nonce {
        long long expires = 0;
        bool used = false;
    };
    struct Session {
        ports::DashboardSession s;
        ports::TokenHash token{};
        long long created = 0, last_seen = 0, expires = 0;
        bool ended = false;
    };
    struct Key {
        ports::KeySummary summary;
        ports::ProjectId project;
        std::string secret;
    };

    std::map<std::string, Nonce> nonces;
    std::vector<Session> sessions;
    std::map<std::string, ports::ProjectView> projects;
    std::map<std::string, std::vector<ports::Member>> project_members;
    // invoice id -> (project, mode), for charge_scopes; `scope_reads` counts its calls.
    std::map<std::string, std::pair<ports::ProjectId, ports::Mode>> charge_owners;
    int scope_reads = 0;
    std::vector<Key> key_rows;
    std::vector<ports::AuditEntry> audit_log;
    int counter = 0;

    std::string next(const std::string& prefix) { return prefix + std::to_string(++counter); }
    void record(const ports::ProjectId& p, const Actor& a, std::string action) {
        ports::AuditEntry e;
        e.id = static_cast<std::int64_t>(audit_log.size() + 1);
        e.at = std::to_string(now_s);
        e.actor_kind = "wallet";
        e.actor = a.address;
        e.session_id = a.session_id;
        e.action = std::move(action);
        e.changes_json = "{\"project\":\"" + p.value + "\"}";
        audit_log.push_back(e);
    }

    // A project with `owner`, for tests that start inside one.
    ports::ProjectId add_project(const std::string& name, const std::string& owner) {
        return create_project(name, {owner, "ses_setup"}).project_id;
    }

    void put_nonce(const std::string& nonce, int ttl_seconds) override {
        nonces[nonce] = Nonce{now_s + ttl_seconds, false};
    }
    ports::NonceTake take_nonce(const std::string& nonce) override {
        auto it = nonces.find(nonce);
        if (it == nonces.end()) return ports::NonceTake::unknown;
        if (it->second.used) return ports::NonceTake::used;
        if (it->second.expires <= now_s) return ports::NonceTake::expired;
        it->second.used = true;
        return ports::NonceTake::taken;
    }

    ports::DashboardSession open_session(const ports::TokenHash& token, const std::string& address,
                                         const std::string& csrf,
                                         const ports::SessionLimits& limits) override {
        Session s;
        s.s = {next("ses_"), address, csrf};
        s.token = token;
        s.created = s.last_seen = now_s;
        s.expires = now_s + limits.absolute_seconds;
        sessions.push_back(s);
        return s.s;
    }
    std::optional<ports::DashboardSession> touch_session(
        const ports::TokenHash& token, const ports::SessionLimits& limits) override {
        for (auto& s : sessions) {
            if (s.token != token) continue;
            if (s.ended || now_s >= s.expires || now_s - s.last_seen >= limits.idle_seconds)
                return std::nullopt;
            if (now_s - s.last_seen >= limits.touch_every_seconds()) s.last_seen = now_s;
            return s.s;
        }
        return std::nullopt;
    }
    void end_session(const std::string& id) override {
        for (auto& s : sessions)
            if (s.s.id == id) s.ended = true;
    }
    int end_sessions_of(const std::string& address) override {
        int n = 0;
        for (auto& s : sessions) {
            if (s.s.address == address && !s.ended) {
                s.ended = true;
                ++n;
            }
        }
        return n;
    }

    std::vector<ports::ProjectMembership> projects_of(const std::string& address) override {
        std::vector<ports::ProjectMembership> out;
        for (const auto& [id, members] : project_members) {
            for (const auto& m : members) {
                if (m.address == address) {
                    const auto& p = projects.at(id);
                    out.push_back({p.id, p.name, m.role, p.created_at});
                }
            }
        }
        return out;
    }
    ports::ProjectMembership create_project(const std::string& name, const Actor& a) override {
        ports::ProjectView p;
        p.id = ports::ProjectId{next("prj_")};
        p.name = name;
        p.plan = "free";
        p.created_at = std::to_string(now_s);
        projects[p.id.value] = p;
        project_members[p.id.value].push_back(
            {a.address, ports::MemberRole::owner, p.created_at, {}});
        record(p.id, a, "project.created");
        return {p.id, name, ports::MemberRole::owner, p.created_at};
    }
    std::vector<std::pair<ports::ProjectId, ports::Mode>> charge_scopes(
        const std::vector<std::string>& invoice_ids) override {
        ++scope_reads;
        std::set<std::pair<ports::ProjectId, ports::Mode>> out;
        for (const auto& id : invoice_ids) {
            if (auto it = charge_owners.find(id); it != charge_owners.end()) out.insert(it->second);
        }
        return {out.begin(), out.end()};
    }
    std::optional<ports::ProjectMembership> membership(const ports::ProjectId& p,
                                                       const std::string& address) override {
        auto it = project_members.find(p.value);
        if (it == project_members.end()) return std::nullopt;
        for (const auto& m : it->second) {
            if (m.address != address) continue;
            const auto& project = projects.at(p.value);
            return ports::ProjectMembership{p, project.name, m.role, project.created_at};
        }
        return std::nullopt;
    }
    std::vector<ports::Member> members(const ports::ProjectId& p) override {
        return project_members[p.value];
    }
    domain::Result<ports::Member> put_member(const ports::ProjectId& p, const std::string& address,
                                             ports::MemberRole role, const Actor& a) override {
        auto& list = project_members[p.value];
        for (auto& m : list) {
            if (m.address != address) continue;
            if (m.role == ports::MemberRole::owner)
                return domain::make_error("member_is_owner", "the owner's role stays");
            m.role = role;
            record(p, a, "member.updated");
            return m;
        }
        list.push_back({address, role, std::to_string(now_s), a.address});
        record(p, a, "member.added");
        return list.back();
    }
    bool remove_member(const ports::ProjectId& p, const std::string& address,
                       const Actor& a) override {
        auto& list = project_members[p.value];
        auto it = std::find_if(list.begin(), list.end(), [&](const ports::Member& m) {
            return m.address == address && m.role != ports::MemberRole::owner;
        });
        if (it == list.end()) return false;
        list.erase(it);
        record(p, a, "member.removed");
        return true;
    }

    std::vector<ports::KeySummary> keys(const ports::ProjectId& p) override {
        std::vector<ports::KeySummary> out;
        for (const auto& k : key_rows)
            if (k.project == p) out.push_back(k.summary);
        return out;
    }
    ports::CreatedKey create_key(const ports::ProjectId& p, ports::Mode mode,
                                 const Actor& a) override {
        Key k;
        k.project = p;
        k.summary.id = next("key_");
        k.summary.mode = mode;
        k.secret = std::string(mode == ports::Mode::test ? "dp_test_" : "dp_live_") +
                   std::string(60, 'a') + std::to_string(counter % 10) + "bcd";
        k.summary.prefix = k.secret.substr(0, 12);
        k.summary.created_at = std::to_string(now_s);
        k.summary.revealable = mode == ports::Mode::test;
        k.summary.active = true;
        key_rows.push_back(k);
        record(p, a, "api_key.created");
        return {k.summary, k.secret};
    }
    std::optional<std::string> reveal_test_key(const ports::ProjectId& p, const std::string& id,
                                               const Actor& a) override {
        for (const auto& k : key_rows) {
            if (k.project == p && k.summary.id == id && k.summary.revealable && k.summary.active) {
                record(p, a, "api_key.revealed");
                return k.secret;
            }
        }
        return std::nullopt;
    }
    bool revoke_key(const ports::ProjectId& p, const std::string& id, const Actor& a) override {
        for (auto& k : key_rows) {
            if (k.project == p && k.summary.id == id && k.summary.active) {
                k.summary.active = false;
                k.summary.revoked_at = std::to_string(now_s);
                record(p, a, "api_key.revoked");
                return true;
            }
        }
        return false;
    }
    std::optional<ports::KeyRoll> roll_key(const ports::ProjectId& p, const std::string& id,
                                           int expires_in_seconds, const Actor& a) override {
        for (auto& k : key_rows) {
            if (k.project != p || k.summary.id != id || !k.summary.active || k.summary.expires_at)
                continue;
            k.summary.expires_at = std::to_string(now_s + expires_in_seconds);
            auto created = create_key(p, k.summary.mode, a);
            record(p, a, "api_key.rolled");
            ports::KeyRoll r;
            r.key_id = created.key.id;
            r.secret = created.secret;
            r.project_id = p;
            r.mode = created.key.mode;
            r.prefix = created.key.prefix;
            r.created_at = created.key.created_at;
            r.previous_key_id = id;
            return r;
        }
        return std::nullopt;
    }

    std::optional<ports::ProjectView> find_project(const ports::ProjectId& p) override {
        auto it = projects.find(p.value);
        if (it == projects.end()) return std::nullopt;
        return it->second;
    }
    std::optional<ports::ProjectView> update_project(const ports::ProjectId& p,
                                                     const ports::ProjectUpdate& u,
                                                     const Actor& a) override {
        auto it = projects.find(p.value);
        if (it == projects.end()) return std::nullopt;
        if (u.name) it->second.name = *u.name;
        if (u.payment_window_seconds) it->second.payment_window_seconds = *u.payment_window_seconds;
        if (u.logo_url)
            it->second.logo_url =
                u.logo_url->empty() ? std::nullopt : std::optional<std::string>(*u.logo_url);
        if (u.accent_color)
            it->second.accent_color = u.accent_color->empty()
                                          ? std::nullopt
                                          : std::optional<std::string>(*u.accent_color);
        record(p, a, "project.updated");
        return it->second;
    }
    ports::IssuedChallenge issue_wallet_challenge(const ports::ProjectId& p,
                                                  const std::string& address, int) override {
        ports::IssuedChallenge c;
        c.id = next("wch_");
        c.address = address;
        c.nonce = next("n");
        c.expires_at = std::to_string(now_s + 600);
        c.message = "duepay payout wallet " + address + " for " + p.value + " nonce " + c.nonce;
        c.payout_address = projects.at(p.value).payout_address;
        return c;
    }
    domain::Result<ports::ProjectView> verify_wallet(const ports::WalletProofRequest& proof,
                                                     const Actor& a) override {
        auto& p = projects.at(proof.project_id.value);
        p.payout_address = proof.address;
        record(p.id, a, "payout_wallet.verified");
        return p;
    }
    std::vector<ports::AuditEntry> audit(const ports::ProjectId& p, std::size_t limit) override {
        std::vector<ports::AuditEntry> out;
        const std::string tag = "\"" + p.value + "\"";
        for (auto it = audit_log.rbegin(); it != audit_log.rend() && out.size() < limit; ++it)
            if (it->changes_json.find(tag) != std::string::npos) out.push_back(*it);
        return out;
    }
};

}  // namespace duepay::testing
