-- Seeds the settlement report's read model (bench/reports/run.sh) STRAIGHT INTO POSTGRES, not
-- through the topic: :rows rows of settlement_lines for project prj_bench_reports (test mode), one
-- every 10 ms from 2026-01-01T00:00:00Z on (1,000,000 rows span ~2.8 hours), 90% payments and 10%
-- refunds, half of them priced in THB, references rep-<n> (one in 50 with a comma and a quote, so
-- the CSV quotes), metadata {"order_id": "rep-<n>"}, and their per-day sums in settlement_daily
-- (migration 0250; the dashboard's reports page reads them). Read-model rows only (no events): a
-- bench of the read path, never a state to replay. Re-running replaces the project's rows. The key
-- :'key' is stored hash-only, as duepay admin does.
--   psql -v rows=1000000 -v key=dp_test_... -f bench/reports/seed.sql
\set ON_ERROR_STOP on
begin;
insert into projects (id, name, plan, payout_address, payout_verified_at)
values ('prj_bench_reports', 'report bench', 'unmetered',
        '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', now())
on conflict (id) do nothing;
delete from api_keys where project_id = 'prj_bench_reports';
insert into api_keys (id, project_id, mode, key_hash, key_prefix)
values ('key_bench_reports', 'prj_bench_reports', 'test', sha256(convert_to(:'key', 'UTF8')),
        left(:'key', 12));
delete from settlement_lines where project_id = 'prj_bench_reports';
insert into settlement_lines
select '0x' || encode(sha256(convert_to('bench-rep-' || g, 'UTF8')), 'hex'),
       k.kind,
       '0x' || encode(sha256(convert_to('bench-rep-tx-' || g, 'UTF8')), 'hex'),
       g % 4, 'prj_bench_reports', 'test', 80002,
       '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'USDT', 6, 1000 + g,
       timestamptz '2026-01-01 00:00:00+00' + g * interval '10 milliseconds',
       case when g % 50 = 0 then 'rep-' || g || ', "special"' else 'rep-' || g end,
       '{"order_id":"rep-' || g || '"}',
       k.sign * a.units, k.fee, k.sign * a.units - k.fee,
       case when g % 2 = 0 then 'THB' end, case when g % 2 = 0 then '10001/278' end,
       case when g % 2 = 0 then round(k.sign * a.units * 10001.0 / 278 / 1000000, 2) end,
       case when g % 2 = 0 then round(k.fee * 10001.0 / 278 / 1000000, 2) end,
       case when g % 2 = 0 then round(k.sign * a.units * 10001.0 / 278 / 1000000, 2)
                                - round(k.fee * 10001.0 / 278 / 1000000, 2) end,
       case when k.kind = 'refund' then 'rf_bench_' || g end
from generate_series(1, :rows) as g
cross join lateral (select (1000000 + (g % 1000) * 1000)::numeric as units) a
cross join lateral (
  select case when g % 10 = 0 then 'refund' else 'payment' end as kind,
         case when g % 10 = 0 then -1 else 1 end as sign,
         case when g % 10 = 0 then 0 else floor(a.units / 100) end as fee) k;
select settlement_daily_refill('prj_bench_reports');
commit;
analyze settlement_lines, settlement_daily;
