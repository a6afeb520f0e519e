-- 0170_key_roll_and_account_audit: rolling API keys (POST /v1/api-keys/roll) and an audit trail of
-- self-serve account changes (docs/accounts.md, docs/adr/0170).
--
-- A rolled key keeps working until expires_at (now + expiresInSeconds; now for 0) and names the key
-- that replaced it; the API refuses a key once expires_at has passed, like a revoked one. Only the
-- SHA-256 of a key is ever stored, as before.
alter table api_keys add column expires_at timestamptz;
alter table api_keys add column replaced_by text references api_keys (id);

-- One row per change of account data: key rolls, project settings, payout wallet. key_id is the API
-- key that made the change (null for `duepay admin`, an operator); changes holds what changed
-- ({"field": {"from": ..., "to": ...}} for settings). Account data, not rebuilt from the topic.
create table account_audit (
    id          bigserial primary key,
    project_id  text not null references projects (id),
    key_id      text references api_keys (id),
    action      text not null check (action in ('api_key.rolled', 'project.updated',
                                                'payout_wallet.verified')),
    changes     jsonb not null,
    at          timestamptz not null default now()
);
create index account_audit_project_idx on account_audit (project_id, id desc);
