// What the merchant dashboard (api/dashboard) needs from its store: Sign-In with Ethereum nonces,
// sessions, projects with their members, keys, and the audit trail (docs/dashboard.md,
// docs/security.md). The Postgres adapter is infra/accounts/pg_dashboard; unit tests use
// tests/doubles/dashboard_store_double.hpp. Every call throws StoreUnavailable when the store
// cannot be reached. Every change is one transaction with its audit row naming the wallet and the
// session that made it.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "domain/accounts/member_role.hpp"
#include "domain/ports/api.hpp"
#include "domain/result.hpp"

namespace duepay::ports {

using domain::accounts::MemberRole;

// SHA-256 of a session's cookie token (only hashes are stored).
using TokenHash = std::array<std::uint8_t, 32>;

// What taking a sign-in nonce found.
enum class NonceTake { taken, unknown, used, expired };

// A live session: the user (a wallet address, EIP-55) and the session's CSRF token.
struct DashboardSession {
    std::string id;  // ses_ + 24 hex
    std::string address;
    std::string csrf;
};

struct SessionLimits {
    int idle_seconds = 30 * 60;
    int absolute_seconds = 12 * 60 * 60;

    // Seeing a session writes its last-seen time only when that time is at least this old (1/60
    // of the idle timeout: 30 s by default), so a busy session's requests read its row instead of
    // queueing on the row's lock. The idle end can come this much early.
    [[nodiscard]] int touch_every_seconds() const { return idle_seconds / 60; }
};

// The wallet and session that make a change (the audit's "who").
struct DashboardActor {
    std::string address;
    std::string session_id;
};

struct ProjectMembership {
    ProjectId project_id;
    std::string name;
    MemberRole role = MemberRole::viewer;
    std::string created_at;
};

struct Member {
    std::string address;  // EIP-55
    MemberRole role = MemberRole::viewer;
    std::string added_at;
    std::optional<std::string> added_by;
};

// A key as the keys page lists it (never its secret).
struct KeySummary {
    std::string id;
    Mode mode = Mode::test;
    std::string prefix;
    std::string created_at;
    std::optional<std::string> revoked_at;
    std::optional<std::string> expires_at;   // set by a roll
    std::optional<std::string> replaced_by;  // the key that replaced it
    bool revealable = false;                 // a test key whose secret we kept
    bool active = false;                     // not revoked, not expired
};

// A new key: its secret is shown once (a live key's is never stored).
struct CreatedKey {
    KeySummary key;
    std::string secret;
};

struct AuditEntry {
    std::int64_t id = 0;
    std::string at;          // RFC 3339
    std::string actor_kind;  // wallet | key | operator
    std::optional<std::string> actor;
    std::optional<std::string> session_id;
    std::string action;        // api_key.created, member.added, project.updated, ...
    std::string changes_json;  // a JSON object
};

class DashboardStore {
  public:
    virtual ~DashboardStore() = default;

    // ---- Sign-in ----
    // Stores a fresh nonce valid `ttl_seconds`.
    virtual void put_nonce(const std::string& nonce, int ttl_seconds) = 0;
    // Marks the nonce used if it is known, unused and unexpired (taken); otherwise says why not.
    virtual NonceTake take_nonce(const std::string& nonce) = 0;

    // ---- Sessions ----
    // Opens a session for `address` (EIP-55); the token is the cookie, only its hash is kept.
    virtual DashboardSession open_session(const TokenHash& token, const std::string& address,
                                          const std::string& csrf, const SessionLimits& limits) = 0;
    // The session of this token if it has not ended, been idle past limits.idle_seconds, or
    // reached its absolute end; seeing it counts as activity, written at most once per
    // limits.touch_every_seconds().
    virtual std::optional<DashboardSession> touch_session(const TokenHash& token,
                                                          const SessionLimits& limits) = 0;
    virtual void end_session(const std::string& session_id) = 0;
    // Ends every live session of `address`; how many.
    virtual int end_sessions_of(const std::string& address) = 0;

    // ---- Projects and members ----
    virtual std::vector<ProjectMembership> projects_of(const std::string& address) = 0;
    // A new project owned by the actor, with the default plan.
    virtual ProjectMembership create_project(const std::string& name,
                                             const DashboardActor& actor) = 0;
    // The (project, mode) of each of these charges that exists, once each (the live charges list
    // learns from the projector's notifications which lists changed).
    virtual std::vector<std::pair<ProjectId, Mode>> charge_scopes(
        const std::vector<std::string>& invoice_ids) = 0;
    // The user's membership of the project (its name and their role); nullopt when not a member
    // (or no such project). One read per /p/ request.
    virtual std::optional<ProjectMembership> membership(const ProjectId& project,
                                                        const std::string& address) = 0;
    virtual std::vector<Member> members(const ProjectId& project) = 0;
    // Adds or changes a member (never the owner). Errors: member_is_owner.
    virtual domain::Result<Member> put_member(const ProjectId& project, const std::string& address,
                                              MemberRole role, const DashboardActor& actor) = 0;
    // False when `address` is not a member, or is the owner.
    virtual bool remove_member(const ProjectId& project, const std::string& address,
                               const DashboardActor& actor) = 0;

    // ---- Keys ----
    virtual std::vector<KeySummary> keys(const ProjectId& project) = 0;
    virtual CreatedKey create_key(const ProjectId& project, Mode mode,
                                  const DashboardActor& actor) = 0;
    // The secret of an active test key of the project (audited); nullopt otherwise.
    virtual std::optional<std::string> reveal_test_key(const ProjectId& project,
                                                       const std::string& key_id,
                                                       const DashboardActor& actor) = 0;
    // False when the key is not the project's or already revoked.
    virtual bool revoke_key(const ProjectId& project, const std::string& key_id,
                            const DashboardActor& actor) = 0;
    // A roll, as POST /v1/api-keys/roll; nullopt when the key is not the project's active key.
    virtual std::optional<KeyRoll> roll_key(const ProjectId& project, const std::string& key_id,
                                            int expires_in_seconds,
                                            const DashboardActor& actor) = 0;

    // ---- Settings, payout wallet, audit ----
    virtual std::optional<ProjectView> find_project(const ProjectId& project) = 0;
    virtual std::optional<ProjectView> update_project(const ProjectId& project,
                                                      const ProjectUpdate& update,
                                                      const DashboardActor& actor) = 0;
    virtual IssuedChallenge issue_wallet_challenge(const ProjectId& project,
                                                   const std::string& address, int ttl_seconds) = 0;
    // As Accounts::verify_wallet (the current wallet's signature is required once one is set).
    virtual domain::Result<ProjectView> verify_wallet(const WalletProofRequest& proof,
                                                      const DashboardActor& actor) = 0;
    // Newest first.
    virtual std::vector<AuditEntry> audit(const ProjectId& project, std::size_t limit) = 0;
};

}  // namespace duepay::ports
