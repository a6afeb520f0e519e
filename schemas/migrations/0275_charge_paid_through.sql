-- 0275_charge_paid_through: the paid-time histogram of charge_paid_seconds, cumulative over days
-- (ADR 0275), so the overview's median over a period reads two rows (the last day of the period
-- and the day before it starts) instead of every (day, bucket) row of the period. Projected in the
-- projector's transaction with charge_paid_seconds and rebuilt by duepay replay with it.

-- One row per (project, mode, UTC day) that has charge_paid_seconds rows: charges[b + 1] is the
-- number of charges paid on `day` or before whose time to paid fell in bucket b
-- (domain/reports/paid_time.hpp, 232 buckets). A period [first, last] is the row of the latest day
-- <= last minus the row of the latest day < first (none: zeros).
create table if not exists charge_paid_through (
    project_id text not null,
    mode       text not null,
    day        date not null,
    charges    bigint[] not null check (cardinality(charges) = 232),
    primary key (project_id, mode, day)
);

-- a + b, entry by entry (two arrays of one length).
create or replace function charge_paid_through_add(a bigint[], b bigint[]) returns bigint[]
language sql immutable as $$
select array_agg(x + y order by i) from unnest(a, b) with ordinality as u(x, y, i);
$$;

-- Replaces the charge_paid_through rows of `project` (every project's when null) with the running
-- sums of its charge_paid_seconds rows: this migration's fill, and the bench seed, which writes
-- charge_paid_seconds rows straight into Postgres. The projector never calls it. Its body is
-- resolved when it runs, so it reads the tables of the search_path (a replay swap moves them).
create or replace function charge_paid_through_refill(project text) returns void
language sql as $$
delete from charge_paid_through where project is null or project_id = project;
insert into charge_paid_through (project_id, mode, day, charges)
select project_id, mode, day, array_agg(total order by bucket)
from (select k.project_id, k.mode, k.day, b.bucket,
             sum(coalesce(p.charges, 0)) over (partition by k.project_id, k.mode, b.bucket
                                               order by k.day)::bigint as total
      from (select distinct project_id, mode, day from charge_paid_seconds
            where project is null or project_id = project) k
      cross join generate_series(0, 231) as b(bucket)
      left join charge_paid_seconds p on p.project_id = k.project_id and p.mode = k.mode
        and p.day = k.day and p.bucket = b.bucket) s
group by project_id, mode, day;
$$;

-- The rows already there (the projector adds later ones as it writes them); a projector still
-- writing charge_paid_seconds waits for this transaction, so no charge is left out or counted twice.
lock table charge_paid_seconds in share mode;
select charge_paid_through_refill(null);
