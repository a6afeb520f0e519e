-- 0030_guards: the guards of charge creation (docs/limits.md, ADR 0070): the per-project GCRA
-- rate limit, the monthly creation quota and the idempotency keys. All decisions use the
-- database clock (clock_timestamp()) so they hold across api processes.

-- GCRA state: the theoretical arrival time of the next request, one row per project and limit.
create table rate_limits (
    project_id  text not null,
    limit_name  text not null,              -- 'charge_create'
    tat         timestamptz not null,
    primary key (project_id, limit_name)
);

-- Charges created per project and calendar month (UTC).
create table monthly_usage (
    project_id  text not null,
    month       date not null,              -- first day of the month, UTC
    count       bigint not null default 0 check (count >= 0),
    primary key (project_id, month)
);

-- take_charge_creation: one call decides quota and rate together, atomically. The project's
-- rate_limits row is locked first, and only then is the clock read, so a caller that waited for
-- the lock decides with the time it got the lock. Quota first: a request refused by the quota
-- takes no rate token; a request refused by the rate limit takes no quota. Nothing changes on a
-- refusal.
--   p_per_minute: requests per minute (GCRA: emission interval 60 s / n, burst n)
--   p_monthly_quota: null = unlimited
-- Returns outcome 'allowed' | 'rate_limited' | 'quota_exceeded', retry_after_ms (ceil, 0 when
-- allowed), the month and its count after the call, and the clock used.
create function take_charge_creation(p_project text, p_per_minute integer, p_monthly_quota bigint)
returns table (outcome text, retry_after_ms bigint, month date, month_count bigint, decided_at timestamptz)
language plpgsql as $$
#variable_conflict use_column
declare
    v_tat       timestamptz;
    v_now       timestamptz;
    v_month     date;
    v_count     bigint;
    v_interval  interval := make_interval(secs => 60.0 / p_per_minute);
    v_new_tat   timestamptz;
    v_limit_at  timestamptz;
begin
    if p_per_minute is null or p_per_minute < 1 then
        raise exception 'take_charge_creation: p_per_minute must be positive';
    end if;
    insert into rate_limits as r (project_id, limit_name, tat)
        values (p_project, 'charge_create', '-infinity')
        on conflict (project_id, limit_name) do nothing;
    select r.tat into v_tat from rate_limits r
        where r.project_id = p_project and r.limit_name = 'charge_create' for update;
    v_now := clock_timestamp();
    v_month := date_trunc('month', v_now at time zone 'UTC')::date;

    select u.count into v_count from monthly_usage u where u.project_id = p_project and u.month = v_month;
    v_count := coalesce(v_count, 0);
    if p_monthly_quota is not null and v_count >= p_monthly_quota then
        return query select 'quota_exceeded'::text,
            ceil(extract(epoch from ((v_month + interval '1 month')::timestamp at time zone 'UTC' - v_now)) * 1000)::bigint,
            v_month, v_count, v_now;
        return;
    end if;

    v_new_tat := greatest(v_tat, v_now) + v_interval;
    v_limit_at := v_now + interval '60 seconds';
    if v_new_tat > v_limit_at then
        return query select 'rate_limited'::text,
            ceil(extract(epoch from (v_new_tat - v_limit_at)) * 1000)::bigint, v_month, v_count, v_now;
        return;
    end if;

    update rate_limits r set tat = v_new_tat where r.project_id = p_project and r.limit_name = 'charge_create';
    insert into monthly_usage as u (project_id, month, count) values (p_project, v_month, 1)
        on conflict on constraint monthly_usage_pkey do update set count = u.count + 1
        returning u.count into v_count;
    return query select 'allowed'::text, 0::bigint, v_month, v_count, v_now;
end;
$$;

-- Idempotency keys (Stripe semantics, scoped to the project). A row is 'in_flight' while its
-- owner creates the charge, then 'completed' with the stored 201 response. Only successes are
-- stored: a failed attempt deletes its row so the key can be retried. Kept at least 24 h.
create table idempotency_keys (
    project_id       text not null,
    key              text not null,
    fingerprint      bytea not null,         -- SHA-256 of the request (method, path, body)
    state            text not null check (state in ('in_flight', 'completed')),
    locked_until     timestamptz not null,   -- an in-flight row older than this is abandoned
    response_status  integer,
    response_headers text,                   -- "name: value" lines
    response_body    bytea,
    created_at       timestamptz not null,
    completed_at     timestamptz,
    expires_at       timestamptz not null,
    primary key (project_id, key)
);
create index idempotency_keys_expires_idx on idempotency_keys (expires_at);

-- Deletes expired keys; returns how many. Run by any role now and then (cheap: index range).
create function purge_idempotency_keys() returns bigint language sql as $$
    with gone as (delete from idempotency_keys where expires_at < clock_timestamp() returning 1)
    select count(*) from gone;
$$;
