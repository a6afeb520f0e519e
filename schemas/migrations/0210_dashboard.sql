-- 0210_dashboard: the merchant dashboard's account data (docs/dashboard.md, docs/security.md):
-- Sign-In with Ethereum nonces, sessions, project members and their roles, and an audit trail that names who made each change (a wallet in a dashboard
-- session, an API key, or an operator). Account data: none of it is rebuilt from the topic.

-- A nonce is issued by GET /auth/siwe/nonce and taken once by POST /auth/siwe, before it expires.
create table siwe_nonces (
    nonce       text primary key,                           -- 32 hex (16 random bytes)
    created_at  timestamptz not null default now(),
    expires_at  timestamptz not null,
    used_at     timestamptz
);
create index siwe_nonces_expires_idx on siwe_nonces (expires_at);

-- A session: only the SHA-256 of its cookie token is stored. It ends when ended_at is set (sign
-- out), when it has been idle longer than the dashboard's idle timeout (last_seen_at), or at
-- expires_at (the absolute limit, set when it opens).
create table dashboard_sessions (
    id            text primary key,                         -- 'ses_' + 24 hex
    token_hash    bytea not null unique,
    address       text not null,                            -- EIP-55: the user
    csrf          text not null,                            -- the session's CSRF token
    created_at    timestamptz not null default now(),
    last_seen_at  timestamptz not null default now(),
    expires_at    timestamptz not null,
    ended_at      timestamptz
);
create index dashboard_sessions_address_idx on dashboard_sessions (address) where ended_at is null;

-- Who may do what in a project. The creator is its owner; the owner and admins add members.
create table project_members (
    project_id  text not null references projects (id),
    address     text not null,                              -- EIP-55
    role        text not null check (role in ('owner', 'admin', 'developer', 'viewer')),
    added_at    timestamptz not null default now(),
    added_by    text,                                       -- EIP-55; null for the owner
    primary key (project_id, address)
);
create index project_members_address_idx on project_members (address);
create unique index project_members_one_owner on project_members (project_id) where role = 'owner';

-- The audit trail names its actor: kind 'key' (actor = the key id), 'wallet' (actor = the
-- address, with the dashboard session) or 'operator' (duepay admin). Rows written before this
-- migration keep key_id and are read as 'key' or 'operator'.
alter table account_audit add column actor_kind text check (actor_kind in ('key', 'wallet', 'operator'));
alter table account_audit add column actor text;
alter table account_audit add column session_id text;
update account_audit set actor_kind = case when key_id is null then 'operator' else 'key' end,
                         actor = key_id;
alter table account_audit alter column actor_kind set not null;
alter table account_audit drop constraint account_audit_action_check;
alter table account_audit add constraint account_audit_action_check check (action in (
    'api_key.rolled', 'api_key.created', 'api_key.revoked', 'api_key.revealed',
    'project.created', 'project.updated', 'payout_wallet.verified',
    'member.added', 'member.removed', 'member.updated'));
