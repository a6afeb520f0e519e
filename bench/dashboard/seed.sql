-- Seeds the dashboard bench (bench/dashboard/run.sh) STRAIGHT INTO POSTGRES: :rows charges of
-- project prj_bench_overview (test mode) spread over the last 90 days, statuses 60% paid / 29%
-- expired / 10% pending / 1% underpaid (open exception `partial`, as the projector writes it), one
-- paid charge in 200 overpaid (exception and open exception `overpaid`), two tokens, a quarter
-- priced in THB, references ord-<n>, metadata {"order_id": "ord-<n>", "channel": web|pos|app};
-- then the stats read model (schemas/migrations/0245_project_stats.sql) filled by an aggregate over
-- exactly those charges (each charge paid in full, some seconds to an hour after its creation),
-- webhook attempt counts, and a member wallet with :sessions dashboard sessions, the cookie token
-- of session n being the SHA-256 hex of (:'token' || n) (stored hash-only, as the dashboard's
-- session store does: every page touches its session's row, so the bench spreads its connections
-- over many). bench/dashboard/seed_pages.sql then adds what the other pages read.
-- Read-model rows only, no events: a bench of the read path, never a state to replay.
-- Re-running replaces the project's rows.
--   psql -v rows=1000000 -v sessions=64 -v token=<64 hex> -f bench/dashboard/seed.sql
\set ON_ERROR_STOP on
\set wallet '0x90F79bf6EB2c4f870365E785982E1f101E93b906'
-- The previous run's charges go first, then a vacuum, each on its own: the new rows then take
-- the space of the old ones instead of growing the table by a whole seed each run (a 2,000-charge
-- seed over a 100,000-charge one otherwise leaves 2,000 rows spread over the pages of 100,000).
delete from charges where project_id = 'prj_bench_overview';
vacuum charges;
begin;
insert into projects (id, name, plan, payout_address, payout_verified_at)
values ('prj_bench_overview', 'overview bench', 'unmetered',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', now())
on conflict (id) do nothing;
insert into project_members (project_id, address, role)
values ('prj_bench_overview', :'wallet', 'owner') on conflict do nothing;
delete from dashboard_sessions where id like 'ses_bench_overview_%';
insert into dashboard_sessions (id, token_hash, address, csrf, expires_at)
select 'ses_bench_overview_' || n,
       sha256(convert_to(encode(sha256(convert_to(:'token' || n, 'UTF8')), 'hex'), 'UTF8')),
       :'wallet', encode(sha256(convert_to('csrf-' || :'token' || n, 'UTF8')), 'hex'),
       now() + interval '12 hours'
from generate_series(1, :sessions) n;

insert into charges (invoice_id, project_id, mode, chain_id, status, amount, token, token_symbol,
                     token_decimals, payment_mode, merchant, fee_bps, deadline, reference, fiat,
                     amount_confirmed, exception, open_exception, timeline, event_count,
                     last_event_id, created_at, updated_at, metadata)
select '0x' || encode(sha256(convert_to('bench-overview-' || g, 'UTF8')), 'hex'),
       'prj_bench_overview', 'test', 80002, s.status, 1000000 + g % 1000,
       k.token, k.symbol, 6, 'wallet', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 100,
       extract(epoch from t.at)::bigint + 3600, 'ord-' || g,
       case when g % 4 = 0 then jsonb_build_object('currency', 'THB', 'amount', '35.00',
                                                   'rate', '35.12') end,
       case when s.status <> 'paid' then 0 when g % 200 = 0 then 1005000 + g % 1000
            else 1000000 + g % 1000 end,
       case when s.status = 'paid' and g % 200 = 0 then 'overpaid' end,
       case when s.status = 'underpaid' then 'partial'
            when s.status = 'paid' and g % 200 = 0 then 'overpaid' end,
       jsonb_build_array(jsonb_build_object('status', 'pending', 'at', t.at, 'txHash', null))
         || case when s.status = 'paid' then jsonb_build_array(jsonb_build_object(
                 'status', 'paid', 'at', t.at + (g % 3600) * interval '1 second',
                 'txHash', null)) else '[]'::jsonb end,
       2, 'bench-' || g, t.at, t.at,
       jsonb_build_object('order_id', 'ord-' || g,
                          'channel', (array['web', 'pos', 'app'])[1 + g % 3])
from generate_series(1, :rows) as g
cross join lateral (select now() - (g::float8 / :rows) * interval '89 days' as at) t
cross join lateral (select case when g % 2 = 0
                                then '0x5FbDB2315678afecb367f032d93F642f64180aa3'
                                else '0xe7f1725E7734CE288F8367e1Bb143E90bb3F0512' end as token,
                           case when g % 2 = 0 then 'USDT' else 'USDC' end as symbol) k
cross join lateral (
    select case when g % 10 < 6 then 'paid' when g % 10 < 8 then 'expired'
                when g % 10 = 8 then 'pending' when g % 100 = 9 then 'underpaid'
                else 'expired' end as status) s;

-- The stats of exactly those charges (the definitions of domain/reports/stats_delta.hpp, with
-- every payment in full on the day the charge was paid; the underpaid ones paid nothing here).
delete from charge_stats_daily where project_id = 'prj_bench_overview';
delete from charge_paid_seconds where project_id = 'prj_bench_overview';
delete from charge_status_counts where project_id = 'prj_bench_overview';
delete from webhook_attempt_stats where project_id = 'prj_bench_overview';
with c as (
    select chain_id, token, token_symbol, coalesce(fiat->>'currency', '') as currency,
           (created_at at time zone 'utc')::date as created_day, amount_confirmed,
           case when fiat is null then 0 else round(amount_confirmed * 35.12 * 100 / 1000000) end
             as fiat_minor,
           ((timeline->1->>'at')::timestamptz at time zone 'utc')::date as paid_day
    from charges where project_id = 'prj_bench_overview'),
created as (
    select created_day as day, chain_id, token, token_symbol, currency, count(*) as created,
           count(paid_day) as converted
    from c group by 1, 2, 3, 4, 5),
paid as (
    select paid_day as day, chain_id, token, token_symbol, currency, count(*) as paid,
           sum(amount_confirmed) as volume, sum(fiat_minor) as fiat
    from c where paid_day is not null group by 1, 2, 3, 4, 5)
insert into charge_stats_daily (project_id, mode, day, chain_id, token, fiat_currency,
                                token_symbol, token_decimals, created, converted, entered_pending,
                                entered_paid, payments, paid_volume, paid_fiat)
select 'prj_bench_overview', 'test', coalesce(a.day, b.day), coalesce(a.chain_id, b.chain_id),
       coalesce(a.token, b.token), coalesce(a.currency, b.currency),
       coalesce(a.token_symbol, b.token_symbol), 6, coalesce(a.created, 0),
       coalesce(a.converted, 0), coalesce(a.created, 0), coalesce(b.paid, 0), coalesce(b.paid, 0),
       coalesce(b.volume, 0), coalesce(b.fiat, 0)
from created a full join paid b using (day, chain_id, token, token_symbol, currency);

insert into charge_paid_seconds (project_id, mode, day, bucket, charges)
select 'prj_bench_overview', 'test', day, bucket, count(*)
from (select ((timeline->1->>'at')::timestamptz at time zone 'utc')::date as day,
             floor(extract(epoch from (timeline->1->>'at')::timestamptz - created_at))::bigint as s
      from charges where project_id = 'prj_bench_overview' and status = 'paid') p
cross join lateral (select case when s < 16 then s
    else 16 + 8 * (floor(log(2, s::numeric))::int - 4)
         + ((s >> (floor(log(2, s::numeric))::int - 3)) & 7) end as bucket) b
group by 1, 2, 3, 4;
-- Its cumulative rows (migration 0275), from the rows just written.
select charge_paid_through_refill('prj_bench_overview');

insert into charge_status_counts (project_id, mode, status, charges)
select 'prj_bench_overview', 'test', status, count(*) from charges
where project_id = 'prj_bench_overview' group by status;

insert into webhook_attempt_stats (project_id, mode, day, attempts, succeeded)
select 'prj_bench_overview', 'test', d::date, 30000, 29700
from generate_series(now() - interval '89 days', now(), interval '1 day') d;
commit;
analyze charge_stats_daily;
analyze charge_paid_seconds;
analyze charge_paid_through;
