-- 0050_quarantine: events a consumer could not apply (ADR 0043, docs/operations.md). A consumer
-- that meets an event it cannot apply (undecodable bytes, or text Postgres refuses) stores it here,
-- in the same transaction as its partition offsets, and moves on: no consumer stalls on one event.
-- `duepay admin quarantine list|retry` reads and replays these rows. One row per consumer group and
-- log position; a consumer that meets the same position again (a replay) only bumps `attempts`.
create table quarantined_events (
    id             bigserial primary key,
    consumer_group text not null,                  -- e.g. duepay-projector, duepay-chainwatch-80002
    topic          text not null,
    partition      integer not null,
    "offset"       bigint not null,
    key            bytea,                          -- the record key as produced, if any
    value          bytea not null,                 -- the raw record value, byte for byte
    error          text not null,                  -- the last failure, escaped to printable text
    attempts       integer not null default 1,     -- times met by the consumer or retried
    first_seen_at  timestamptz not null default now(),
    last_tried_at  timestamptz not null default now(),
    resolved_at    timestamptz,                    -- set once a retry applied it
    unique (consumer_group, topic, partition, "offset")
);
create index quarantined_events_open_idx on quarantined_events (consumer_group, id)
    where resolved_at is null;
