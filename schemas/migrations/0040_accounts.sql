-- 0040_accounts: payout wallet ownership challenges (EIP-191, `duepay admin wallet challenge` /
-- `wallet verify`, docs/accounts.md). A challenge is usable once, until it expires; the message is
-- stored verbatim so verification hashes exactly what the wallet was asked to sign.

create table wallet_challenges (
    id          text primary key,                          -- 'wch_' + 24 hex
    project_id  text not null references projects (id),
    address     text not null,                             -- EIP-55
    nonce       text not null unique,                      -- 32 hex (16 random bytes)
    message     text not null,
    created_at  timestamptz not null default now(),
    expires_at  timestamptz not null,
    used_at     timestamptz
);
create index wallet_challenges_project_idx on wallet_challenges (project_id, address, created_at desc);
