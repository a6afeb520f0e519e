-- 0060_idempotency_bound_event: an Idempotency-Key stays bound to the charge its first attempt
-- prepared (docs/limits.md "Unknown outcomes", ADR 0091). Before appending, the
-- API stores the invoice id, the exact event bytes and the 201 body in the key's row; when the
-- append's outcome is unknown (possibly persisted) or the process dies after the broker's ack,
-- the row is not deleted, so a retry with the same key either finds the charge (and answers the
-- 201) or appends the SAME event again (same event id: the projector keeps one).
alter table idempotency_keys
    add column invoice_id       text,   -- 0x + 64 hex, set by prepare
    add column prepared_event   bytea,  -- the encoded charge.created, byte for byte
    add column prepared_body    bytea;  -- the 201 body the charge answers with

-- Bounded purge, called periodically by every api process (IdempotencyPurger): deletes at most
-- p_limit expired rows per call and returns how many it deleted.
create function purge_idempotency_keys(p_limit integer) returns bigint language sql as $$
    with doomed as (
        select project_id, key from idempotency_keys
        where expires_at < clock_timestamp()
        order by expires_at
        limit p_limit
        for update skip locked
    ), gone as (
        delete from idempotency_keys k using doomed d
        where k.project_id = d.project_id and k.key = d.key
        returning 1
    )
    select count(*) from gone;
$$;
