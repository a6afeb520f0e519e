-- 0245_project_stats: the stats read model of the dashboard's overview (docs/dashboard.md
-- "Overview", ADR 0245). The first three tables are projected from the topic in the projector's
-- transaction (rebuilt by duepay replay with the charges); the overview reads them by key and
-- day range only, never the charges table. Days are UTC days of the events' occurredAt.

-- Per (project, mode, UTC day, chain, token, fiat currency of the quote; '' for charges priced in
-- the token): what that day's events added (domain/reports/stats_delta.hpp).
create table charge_stats_daily (
    project_id         text not null,
    mode               text not null,
    day                date not null,
    chain_id           bigint not null,
    token              text not null,                       -- EIP-55, as charges.token
    fiat_currency      text not null default '',
    token_symbol       text not null default '',
    token_decimals     integer not null default 0,
    created            bigint not null default 0,           -- charges created that day
    converted          bigint not null default 0,           -- of those, paid since (any day)
    entered_pending    bigint not null default 0,           -- status changes into each status
    entered_confirming bigint not null default 0,
    entered_paid       bigint not null default 0,
    entered_underpaid  bigint not null default 0,
    entered_expired    bigint not null default 0,
    entered_failed     bigint not null default 0,
    entered_refunded   bigint not null default 0,
    payments           bigint not null default 0,           -- payments entering confirmed/late
    paid_volume        numeric not null default 0,          -- their sum, token smallest unit
    paid_fiat          numeric not null default 0,          -- at the quoted rates, minor units
    refunds            bigint not null default 0,           -- refunds that succeeded
    refunded_volume    numeric not null default 0,
    refunded_fiat      numeric not null default 0,
    primary key (project_id, mode, day, chain_id, token, fiat_currency)
);

-- The time from creation to paid: charges paid that day per bucket of domain/reports/paid_time.
create table charge_paid_seconds (
    project_id text not null,
    mode       text not null,
    day        date not null,
    bucket     smallint not null check (bucket between 0 and 231),
    charges    bigint not null default 0,
    primary key (project_id, mode, day, bucket)
);

-- The current number of charges in each status: + on entering, - on leaving.
create table charge_status_counts (
    project_id text not null,
    mode       text not null,
    status     text not null,
    charges    bigint not null default 0,
    primary key (project_id, mode, status)
);

-- Webhook attempts per (project, mode, UTC day of the attempt), counted by the dispatcher in the
-- transaction that logs them (webhook_attempts itself is kept 30 days and has no project column).
-- Not rebuilt from the topic.
create table webhook_attempt_stats (
    project_id text not null,
    mode       text not null,
    day        date not null,
    attempts   bigint not null default 0,
    succeeded  bigint not null default 0,                   -- answered 2xx
    primary key (project_id, mode, day)
);
