-- 0219_idempotency_holder: an Idempotency-Key in flight names the api process that holds it
-- (ADR 0219, docs/limits.md "A crashed holder"). Each api process keeps a connection of its own
-- holding the session advisory lock pg_advisory_lock(25705, holder) (25705 = 0x6469), holder drawn
-- from idempotency_holder_ids. Postgres drops that lock when the process dies (its socket closes,
-- the backend exits), so a retry can take over or resume the key at once instead of waiting for
-- locked_until. A row without a holder (claimed while the process had no such session) keeps the
-- lease alone: locked_until.
create sequence idempotency_holder_ids as integer;

alter table idempotency_keys
    add column holder integer;  -- the claiming process's lock id; null: locked_until only

-- True while the holder's session still holds its lock in this database (or the row has none).
create function idempotency_holder_alive(p_holder integer) returns boolean
language sql stable as $$
    select p_holder is null or exists (
        select 1 from pg_locks
        where locktype = 'advisory' and granted
          and database = (select oid from pg_database where datname = current_database())
          and classid = 25705::oid and objid = p_holder::oid and objsubid = 2);
$$;
