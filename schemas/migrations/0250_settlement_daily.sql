-- 0250_settlement_daily: per-day sums of settlement_lines (docs/reports.md, ADR 0250), so the
-- report's totals read a few rows per day instead of every row of the period. One row per
-- (project, mode, UTC day of confirmed_at, chain, token, fiat currency; '' for rows without a
-- quote), holding the counts and sums the totals need (domain/reports/settlement_totals.hpp).
-- Written in the statement that inserts settlement_lines rows, from the rows that statement
-- really inserted (an event applied twice adds nothing), and rebuilt by `duepay replay` with
-- settlement_lines. Sums are exact numerics, with the scale of what they summed.
create table if not exists settlement_daily (
    project_id     text not null,
    mode           text not null,
    day            date not null,
    chain_id       bigint not null,
    token          text not null,                   -- EIP-55, as settlement_lines.token
    fiat_currency  text not null default '',        -- '' for rows without a fiat quote
    token_symbol   text,                            -- the least of the rows' (min(), nulls aside)
    token_decimals integer,                         -- the least of the rows'
    payments       bigint not null default 0,       -- payment rows
    refunds        bigint not null default 0,       -- refund rows
    paid           numeric not null default 0,      -- sum(amount) of the payment rows
    refunded       numeric not null default 0,      -- sum(amount) of the refund rows (<= 0)
    fee            numeric not null default 0,      -- sum(fee) of all rows
    net            numeric not null default 0,
    fiat_amount    numeric not null default 0,      -- sums of the fiat columns ('' rows: 0)
    fiat_fee       numeric not null default 0,
    fiat_net       numeric not null default 0,
    primary key (project_id, mode, day, chain_id, token, fiat_currency)
);

-- Replaces the settlement_daily rows of `project` (every project's when null) with the sums of its
-- settlement_lines rows: this migration's fill, and the benches' seeds, which write settlement_lines
-- rows straight into Postgres. The projector never calls it. Its body is resolved when it runs, so
-- it reads the tables of the search_path (a replay swap moves them).
create or replace function settlement_daily_refill(project text) returns void
language sql as $$
delete from settlement_daily where project is null or project_id = project;
insert into settlement_daily (project_id, mode, day, chain_id, token, fiat_currency,
    token_symbol, token_decimals, payments, refunds, paid, refunded, fee, net, fiat_amount,
    fiat_fee, fiat_net)
select project_id, mode, (confirmed_at at time zone 'utc')::date, chain_id, token,
    coalesce(fiat_currency, ''), min(token_symbol), min(token_decimals),
    count(*) filter (where kind = 'payment'), count(*) filter (where kind = 'refund'),
    coalesce(sum(amount) filter (where kind = 'payment'), 0),
    coalesce(sum(amount) filter (where kind = 'refund'), 0), sum(fee), sum(net),
    coalesce(sum(fiat_amount), 0), coalesce(sum(fiat_fee), 0), coalesce(sum(fiat_net), 0)
from settlement_lines where project is null or project_id = project
group by 1, 2, 3, 4, 5, 6;
$$;

-- The rows already there (the projector adds later ones as it inserts them); a projector still
-- writing settlement_lines waits for this transaction, so no row is left out or counted twice.
lock table settlement_lines in share mode;
select settlement_daily_refill(null);
