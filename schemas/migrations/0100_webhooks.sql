-- 0100_webhooks: webhook endpoints (account data, kept), the webhooks role's own journal of charge
-- events (rebuildable from the topic), the events it emitted, the delivery queue and the attempt
-- log (kept 30 days). docs/webhooks.md, docs/adr/0100-webhook-delivery.md.

create table webhook_endpoints (
    id                  text primary key,                  -- 'we_' + 24 hex
    project_id          text not null,
    mode                text not null check (mode in ('test', 'live')),
    url                 text not null,
    events              text[] not null,
    description         text,
    status              text not null default 'enabled' check (status in ('enabled', 'disabled')),
    disabled_reason     text check (disabled_reason in ('manual', 'failing')),
    secret              text not null,                     -- whsec_ + base64(32 bytes); HMAC key
    previous_secret     text,                              -- still signing until it expires
    previous_expires_at timestamptz,
    failing_since       timestamptz,                       -- first failure after the last success
    created_at          timestamptz not null default now(),
    updated_at          timestamptz not null default now()
);
create index webhook_endpoints_project_idx on webhook_endpoints (project_id, mode, created_at desc);

-- The webhooks role's journal (its own consumer group, so it never waits on the projector).
create table webhook_charge_events (
    event_id   text primary key,
    invoice_id text not null,
    partition  integer not null,
    "offset"   bigint not null,
    payload    text not null                               -- the event JSON as consumed
);
create index webhook_charge_events_invoice_idx on webhook_charge_events (invoice_id, partition, "offset");

-- Every event emitted, with the exact body that is signed and sent (the same on every attempt).
create table webhook_events (
    id              text primary key,                      -- 'evt_' + 48 hex
    type            text not null,
    project_id      text not null,
    mode            text not null,
    invoice_id      text,
    charge_event_id text,
    body            text not null,
    created_at      timestamptz not null default now()
);

-- The queue: one row per (endpoint, event). A dispatcher claims due rows with FOR UPDATE SKIP
-- LOCKED and leases them (leased_until) while the request is in flight; only the claim holding
-- lease_token may record the outcome (a redelivery or a re-claim after the lease wins).
create table webhook_deliveries (
    endpoint_id      text not null references webhook_endpoints (id) on delete cascade,
    event_id         text not null references webhook_events (id),
    state            text not null default 'pending' check (state in ('pending', 'delivered', 'failed')),
    attempts         integer not null default 0,
    next_attempt_at  timestamptz not null default now(),
    leased_until     timestamptz,
    lease_token      bigint,                               -- the claim that may record the outcome
    first_attempt_at timestamptz,
    last_status      integer,
    last_error       text,
    created_at       timestamptz not null default now(),
    updated_at       timestamptz not null default now(),
    primary key (endpoint_id, event_id)
);
create index webhook_deliveries_due_idx on webhook_deliveries (endpoint_id, next_attempt_at)
    where state = 'pending';

create table webhook_attempts (
    id              bigserial primary key,
    endpoint_id     text not null references webhook_endpoints (id) on delete cascade,
    event_id        text not null,
    event_type      text not null,
    attempt         integer not null,
    attempted_at    timestamptz not null default now(),
    response_status integer,
    latency_ms      integer not null,
    error           text,
    next_retry_at   timestamptz
);
create index webhook_attempts_endpoint_idx on webhook_attempts (endpoint_id, id desc);
create index webhook_attempts_time_idx on webhook_attempts (attempted_at);
