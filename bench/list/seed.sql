-- Seeds the `charges` read model of the list bench (bench/list/run.sh) STRAIGHT INTO POSTGRES, not
-- through the topic: :rows charges of project prj_bench_list (test mode), one every 2.5 s going back
-- from now (1,000,000 rows span ~29 days), statuses 60% paid / 20% expired / 10% pending / 10%
-- underpaid, references ord-<n>, metadata {"order_id": "ord-<n>", "channel": web|pos|app}. The
-- rows are read-model rows only (no events): a bench of the read path, never a state to replay.
-- Re-running replaces the project's rows. The key :'key' is stored hash-only, as duepay admin does.
--   psql -v rows=1000000 -v key=dp_test_... -f bench/list/seed.sql
\set ON_ERROR_STOP on
begin;
insert into projects (id, name, plan, payout_address, payout_verified_at)
values ('prj_bench_list', 'list bench', 'unmetered', '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', now())
on conflict (id) do nothing;
delete from api_keys where project_id = 'prj_bench_list';
insert into api_keys (id, project_id, mode, key_hash, key_prefix)
values ('key_bench_list', 'prj_bench_list', 'test', sha256(convert_to(:'key', 'UTF8')),
        left(:'key', 12));
delete from charges where project_id = 'prj_bench_list';
insert into charges (invoice_id, project_id, mode, chain_id, status, amount, token, token_symbol,
                     token_decimals, payment_mode, merchant, fee_bps, deadline, deposit_address,
                     reference, return_url, fiat, amount_confirmed, exception, timeline,
                     event_count, last_event_id, created_at, updated_at, metadata)
select '0x' || encode(sha256(convert_to('bench-list-' || g, 'UTF8')), 'hex'),
       'prj_bench_list', 'test', 80002,
       s.status,
       1000000 + g % 1000,
       '0x5FbDB2315678afecb367f032d93F642f64180aa3', 'USDT', 6, 'wallet',
       '0x70997970C51812dc3A010C7d01b50e0d17dc79C8', 100,
       extract(epoch from t.at)::bigint + 3600, null,
       'ord-' || g, null, null,
       case when s.status = 'paid' then 1000000 + g % 1000 else 0 end,
       null,
       jsonb_build_array(jsonb_build_object('status', 'pending', 'at', t.at, 'txHash', null)),
       1, 'bench-' || g, t.at, t.at,
       jsonb_build_object('order_id', 'ord-' || g,
                          'channel', (array['web', 'pos', 'app'])[1 + g % 3])
from generate_series(1, :rows) as g
cross join lateral (select now() - g * interval '2.5 seconds' as at) t
cross join lateral (
    select case when g % 10 < 6 then 'paid' when g % 10 < 8 then 'expired'
                when g % 10 = 8 then 'pending' else 'underpaid' end as status) s;
commit;
-- Vacuum as well as analyze: a re-seed deletes the previous run's rows, and until a vacuum their
-- dead index entries are walked by every page whose range covers them (a createdLt page of a
-- 10,000-row re-seed over a 1,000,000-row one took 0.3 s a request).
vacuum (analyze) charges;
