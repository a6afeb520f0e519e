-- 0240_settlement_lines: the settlement report's read model (docs/reports.md, ADR 0240). One row
-- per payment that became confirmed or late and per refund that succeeded, written by the
-- projector in the same transaction as the charge's row and its offsets, rebuilt by
-- `duepay replay` like `charges`. The primary key is the row's identity, so an event applied again
-- never adds a row twice. The report reads one project and mode over a period of confirmed_at,
-- in keyset pages ordered by the whole index below.
--
-- charges.amount_late: the charge's confirmed deposits after expiry (ChargeState::amount_late),
-- beside amount_confirmed, so the report's payment rows can be checked against the charges.
--
-- Rows and amount_late of events projected before this migration appear after `duepay replay`
-- (a charge the projector touches again also gets its earlier rows).
create table if not exists settlement_lines (
    invoice_id     text not null,
    kind           text not null check (kind in ('payment', 'refund')),
    tx_hash        text not null,
    log_index      bigint not null,
    project_id     text not null,
    mode           text not null,
    chain_id       bigint not null,
    token          text not null,                  -- EIP-55
    token_symbol   text,
    token_decimals integer not null,
    block_number   bigint not null,
    confirmed_at   timestamptz not null,           -- the occurredAt of the event that added it
    reference      text,
    metadata       text,                           -- the charge's metadata, JSON object text
    amount         numeric(78, 0) not null,        -- signed: refunds are negative
    fee            numeric(78, 0) not null,
    net            numeric(78, 0) not null,
    fiat_currency  text,
    fiat_rate      text,
    fiat_amount    numeric,                        -- 2 fraction digits; null without a quote
    fiat_fee       numeric,
    fiat_net       numeric,
    refund_id      text,
    primary key (invoice_id, kind, tx_hash, log_index)
);
create index if not exists settlement_lines_period_idx
    on settlement_lines (project_id, mode, confirmed_at, invoice_id, kind, tx_hash, log_index);

alter table charges add column if not exists amount_late numeric(78, 0) not null default 0;
