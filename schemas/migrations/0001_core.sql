-- 0001_core: accounts (projects, API key hashes), the event journal of the projector, the charges
-- read model and the consumer offsets. Everything except projects and api_keys can be rebuilt
-- from the Kafka topic (docs/design.md). Applied in one transaction by infra/dev (see contract).

create table projects (
    id                     text primary key,               -- 'prj_' + 24 hex
    name                   text not null,
    plan                   text not null default 'free' check (plan in ('free', 'pro', 'scale')),
    payment_window_seconds integer not null default 3600
                           check (payment_window_seconds between 1 and 86400),
    payout_address         text,                           -- EIP-55, null until verified
    payout_verified_at     timestamptz,
    brand_name             text,
    brand_logo_url         text,
    brand_color            text,
    created_at             timestamptz not null default now()
);

create table api_keys (
    id          text primary key,                          -- 'key_' + 24 hex
    project_id  text not null references projects (id),
    mode        text not null check (mode in ('test', 'live')),
    key_hash    bytea not null unique,                     -- SHA-256 of the full key
    key_prefix  text not null,                             -- first characters, for display
    created_at  timestamptz not null default now(),
    revoked_at  timestamptz
);
create index api_keys_project_idx on api_keys (project_id);

-- Every event the projector has applied, once (event_id is the envelope id).
create table charge_events (
    event_id     text primary key,
    invoice_id   text not null,
    topic        text not null,
    partition    integer not null,
    "offset"     bigint not null,
    type         text not null,
    payload      jsonb not null,
    projected_at timestamptz not null default now()
);
create index charge_events_invoice_idx on charge_events (invoice_id, partition, "offset");

-- The read model: one row per charge, the fold of its events.
create table charges (
    invoice_id       text primary key,                     -- 0x + 64 lower-case hex
    project_id       text not null,
    mode             text not null,                        -- test | live (the key mode)
    chain_id         bigint not null,
    status           text not null,
    amount           numeric(78, 0) not null,              -- token smallest unit (uint256)
    token            text not null,                        -- token contract address
    token_symbol     text,
    token_decimals   integer,
    payment_mode     text not null,                        -- wallet | transfer | both
    merchant         text not null,                        -- payout address at creation
    fee_bps          integer not null,
    deadline         bigint not null,                      -- unix seconds
    deposit_address  text,
    reference        text,
    return_url       text,
    fiat             jsonb,
    amount_confirmed numeric(78, 0) not null default 0,
    exception        text,
    timeline         jsonb not null default '[]'::jsonb,
    event_count      integer not null,
    last_event_id    text not null,
    created_at       timestamptz not null,
    updated_at       timestamptz not null
);
create index charges_project_idx on charges (project_id, created_at desc);

create table consumer_offsets (
    group_id    text not null,
    topic       text not null,
    partition   integer not null,
    next_offset bigint not null,
    updated_at  timestamptz not null default now(),
    primary key (group_id, topic, partition)
);
