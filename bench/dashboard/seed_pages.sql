-- Seeds what the dashboard's other pages read (bench/dashboard/run.sh), after
-- bench/dashboard/seed.sql, STRAIGHT INTO POSTGRES, for project prj_bench_overview (test mode):
--   * the charge page's charge: charge n = 10 (paid) gets its journal in charge_events (created,
--     paid, refund requested, refunded: the events' JSON as the topic carries it), the paid entry's
--     transaction in its timeline and a partial refund of 250000 units in its row (amount_refunded,
--     refunds), as the projector would have folded those events;
--   * settlement_lines (migration 0240): one payment row per paid charge at its paid time (fee =
--     fee_bps of the amount; THB figures at the seed's rate 35.12 for the priced quarter) and the
--     refund row of charge 10, and their per-day sums in settlement_daily (migration 0250), which
--     the reports page reads;
--   * one webhook endpoint (we_bec000000000000000000001) with :rows / 10 invoice.paid events of
--     paid charges (100,000 at 1,000,000 charges), each delivered (webhook_deliveries) after one
--     attempt (webhook_attempts; one in 50 after a 500 and a retry a minute later), plus charge
--     10's invoice.paid and invoice.refunded, delivered.
-- Read-model rows only, no events on the topic: a bench of the read path, never a state to
-- replay. Re-running replaces these rows.
--   psql -v rows=1000000 -f bench/dashboard/seed_pages.sql
\set ON_ERROR_STOP on
\set project 'prj_bench_overview'
\set endpoint 'we_bec000000000000000000001'
\set payer '0x3C44CdDdB6a900fa2b585dd299e03d12FA4293BC'
-- The previous run's rows go first, each statement its own transaction, with vacuums between, so
-- that the new rows take the old ones' space (as in bench/dashboard/seed.sql). The webhook rows:
-- the endpoint (its deliveries and attempts cascade), a vacuum of the deliveries, then the events.
-- Deleting an event checks that no delivery references it by a scan of webhook_deliveries
-- (event_id has no index of its own), so without the vacuum each of 100,000 checks would walk
-- every dead row.
delete from settlement_lines where project_id = :'project';
delete from webhook_endpoints where project_id = :'project';
vacuum settlement_lines, webhook_deliveries, webhook_attempts;
delete from webhook_events where project_id = :'project';
vacuum webhook_events;
begin;
-- ---- The charge page's charge ----
create temporary table featured on commit drop as
select c.invoice_id, c.amount, lower(c.token) as token, c.token_symbol,
       lower(c.merchant) as merchant,
       c.deadline, c.reference, c.metadata, c.created_at,
       (c.timeline->1->>'at')::timestamptz as paid_at,
       '0x' || encode(sha256(convert_to('bench-overview-tx-' || c.invoice_id, 'UTF8')), 'hex')
         as pay_tx,
       '0x' || encode(sha256(convert_to('bench-overview-refund-tx-10', 'UTF8')), 'hex')
         as refund_tx,
       'rf_' || left(encode(sha256(convert_to('bench-overview-refund-10', 'UTF8')), 'hex'), 24)
         as refund_id
from charges c
where c.invoice_id = '0x' || encode(sha256(convert_to('bench-overview-10', 'UTF8')), 'hex')
  and c.status = 'paid';

delete from charge_events where invoice_id = (select invoice_id from featured);
insert into charge_events (event_id, invoice_id, topic, partition, "offset", type, payload,
                           projected_at)
select e.id, f.invoice_id, 'duepay.charge-events.v1', 0, e.n, e.type,
       jsonb_build_object('id', e.id, 'type', e.type, 'schemaVersion', 1,
                          'invoiceId', f.invoice_id, 'projectId', :'project', 'mode', 'test',
                          'chainId', 80002,
                          'occurredAt', to_char(e.at at time zone 'utc',
                                                'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                          'data', e.data),
       e.at
from featured f
cross join lateral (values
    (1, 'bench-10-created', 'charge.created', f.created_at,
     jsonb_build_object('amount', f.amount::text, 'token', f.token, 'tokenSymbol', f.token_symbol,
                        'tokenDecimals', 6, 'paymentMode', 'wallet', 'merchant', f.merchant,
                        'feeBps', 100, 'deadline', f.deadline::text, 'graceSeconds', 0,
                        'depositAddress', null, 'reference', f.reference, 'returnUrl', null,
                        'fiat', null, 'metadata', f.metadata)),
    (2, 'bench-10-paid', 'charge.paid', f.paid_at,
     jsonb_build_object('rail', 'wallet', 'txHash', f.pay_tx, 'logIndex', 0, 'blockNumber', 1000,
                        'blockHash', '0x' || encode(sha256(convert_to('bench-block-1000', 'UTF8')),
                                                    'hex'),
                        'from', lower(:'payer'), 'token', f.token, 'amount', f.amount::text,
                        'confirmedTotal', f.amount::text)),
    (3, 'bench-10-refund-requested', 'charge.refund_requested', f.paid_at + interval '1 hour',
     jsonb_build_object('refundId', f.refund_id, 'txHash', f.refund_tx)),
    (4, 'bench-10-refunded', 'charge.refunded', f.paid_at + interval '1 hour 1 minute',
     jsonb_build_object('refundId', f.refund_id, 'txHash', f.refund_tx, 'logIndex', 0,
                        'blockNumber', 1400, 'to', lower(:'payer'), 'token', f.token,
                        'amount', '250000'))
) as e(n, id, type, at, data);

update charges c
set timeline = jsonb_build_array(
        jsonb_build_object('status', 'pending', 'at', f.created_at, 'txHash', null),
        jsonb_build_object('status', 'paid', 'at', f.paid_at, 'txHash', f.pay_tx)),
    amount_refunded = 250000,
    refunds = jsonb_build_array(jsonb_build_object(
        'refundId', f.refund_id, 'status', 'succeeded', 'txHash', f.refund_tx, 'amount', '250000',
        'to', :'payer', 'reason', null)),
    event_count = 4, last_event_id = 'bench-10-refunded',
    updated_at = f.paid_at + interval '1 hour 1 minute'
from featured f
where c.invoice_id = f.invoice_id;

-- ---- The settlement report ----
insert into settlement_lines (invoice_id, kind, tx_hash, log_index, project_id, mode, chain_id,
                              token, token_symbol, token_decimals, block_number, confirmed_at,
                              reference, metadata, amount, fee, net, fiat_currency, fiat_rate,
                              fiat_amount, fiat_fee, fiat_net, refund_id)
select c.invoice_id, 'payment',
       '0x' || encode(sha256(convert_to('bench-overview-tx-' || c.invoice_id, 'UTF8')), 'hex'),
       0, c.project_id, c.mode, c.chain_id, c.token, c.token_symbol, c.token_decimals,
       1000,
       (c.timeline->1->>'at')::timestamptz, c.reference, c.metadata::text,
       c.amount_confirmed, x.fee, c.amount_confirmed - x.fee,
       c.fiat->>'currency', c.fiat->>'rate',
       case when c.fiat is not null then round(c.amount_confirmed * 35.12 / 1000000, 2) end,
       case when c.fiat is not null then round(x.fee * 35.12 / 1000000, 2) end,
       case when c.fiat is not null then round(c.amount_confirmed * 35.12 / 1000000, 2)
                                         - round(x.fee * 35.12 / 1000000, 2) end,
       null
from charges c
cross join lateral (select floor(c.amount_confirmed * c.fee_bps / 10000) as fee) x
where c.project_id = :'project' and c.status = 'paid';
insert into settlement_lines (invoice_id, kind, tx_hash, log_index, project_id, mode, chain_id,
                              token, token_symbol, token_decimals, block_number, confirmed_at,
                              reference, metadata, amount, fee, net, refund_id)
select f.invoice_id, 'refund', f.refund_tx, 0, :'project', 'test', 80002, c.token,
       f.token_symbol, 6, 1400, f.paid_at + interval '1 hour 1 minute', f.reference,
       f.metadata::text, -250000, 0, -250000, f.refund_id
from featured f join charges c using (invoice_id);
-- Their per-day sums, which the projector's insert would have added (migration 0250).
select settlement_daily_refill(:'project');

-- ---- Webhooks: one endpoint and its deliveries ----
insert into webhook_endpoints (id, project_id, mode, url, events, description, secret, created_at,
                               updated_at)
values (:'endpoint', :'project', 'test', 'https://hooks.bench.example/duepay',
        array['invoice.paid', 'invoice.refunded'], 'bench endpoint',
        'whsec_' || encode(sha256(convert_to('bench-overview-secret', 'UTF8')), 'base64'),
        now() - interval '90 days', now() - interval '90 days');

-- The events: charge g = 10 * k + 1 (always paid) for k = 0 .. :rows / 10 - 1, and charge 10's two.
create temporary table bench_events on commit drop as
select 'evt_' || left(encode(sha256(convert_to('bench-overview-evt-' || k, 'UTF8')), 'hex'), 48)
         as id,
       'invoice.paid' as type, c.invoice_id, c.last_event_id as charge_event_id,
       (c.timeline->1->>'at')::timestamptz as at, k
from generate_series(0, :rows / 10 - 1) as k
join charges c on c.invoice_id = '0x' || encode(sha256(convert_to('bench-overview-' || (10 * k + 1),
                                                                   'UTF8')), 'hex')
union all
select 'evt_' || left(encode(sha256(convert_to('bench-overview-evt-10-' || e.type, 'UTF8')),
                             'hex'), 48),
       e.type, f.invoice_id, e.charge_event_id, e.at, -1
from featured f
cross join lateral (values ('invoice.paid', 'bench-10-paid', f.paid_at),
                           ('invoice.refunded', 'bench-10-refunded',
                            f.paid_at + interval '1 hour 1 minute'))
  as e(type, charge_event_id, at);

insert into webhook_events (id, type, project_id, mode, invoice_id, charge_event_id, body,
                            created_at, occurred_at)
select id, type, :'project', 'test', invoice_id, charge_event_id,
       json_build_object('id', id, 'type', type,
                         'createdAt', to_char(at at time zone 'utc',
                                              'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"'),
                         'livemode', false, 'projectId', :'project',
                         'data', json_build_object('invoiceId', invoice_id, 'status', 'paid'))
         ::text,
       at, at
from bench_events;

insert into webhook_deliveries (endpoint_id, event_id, state, attempts, next_attempt_at,
                                first_attempt_at, last_status, created_at, updated_at)
select :'endpoint', id, 'delivered', case when k % 50 = 0 then 2 else 1 end, at,
       at + interval '1 second', 200, at,
       at + case when k % 50 = 0 then interval '61 seconds' else interval '1 second' end
from bench_events;

insert into webhook_attempts (endpoint_id, event_id, event_type, attempt, attempted_at,
                              response_status, latency_ms, error, next_retry_at, response_excerpt)
select :'endpoint', id, type, a.n, at + a.after, a.status, 40 + k % 200, null,
       case when a.status = 500 then at + interval '61 seconds' end, a.excerpt
from (select * from bench_events order by at, id) e
cross join lateral (values (1, interval '1 second', case when k % 50 = 0 then 500 else 200 end,
                            case when k % 50 = 0 then 'internal error' else 'ok' end),
                           (2, interval '61 seconds', 200, 'ok')) as a(n, after, status, excerpt)
where a.n = 1 or k % 50 = 0;
commit;
-- Vacuum as well as analyze: the visibility map for index-only scans, and charge 10's old row.
vacuum (analyze) charges, settlement_lines, settlement_daily, webhook_events, webhook_deliveries,
  webhook_attempts;
