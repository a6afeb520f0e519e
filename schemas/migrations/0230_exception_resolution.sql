-- 0230_exception_resolution: what a person did about a charge's exceptions (charge.exception_resolved,
-- docs/adr/0230-exception-resolved-event.md), rebuilt from the topic like every column of
-- `charges`:
--   open_exception         the first issue nobody resolved yet (overpaid, paid_late, partial,
--                          wrong_token, refund_rejected; an underpaid charge counts as partial),
--                          null when there is none: the dashboard's exceptions list
--   exception_resolution   the latest resolution as the API shows it: {exception, refundId, note,
--                          resolvedBy: {kind, id}, resolvedAt}; null when none
--   exception_resolved_at  its time
--   amount_late            confirmed deposits after expiry: what was received is amount_confirmed
--                          + amount_late (the exceptions list shows due, received, difference)
-- The two lists (open; resolved: nothing open, something resolved) read a project's charges of
-- one mode newest first, each through its own partial index in the keyset order of the charge
-- list (0161).
alter table charges add column open_exception text;
alter table charges add column exception_resolution jsonb;
alter table charges add column exception_resolved_at timestamptz;
alter table charges add column amount_late numeric(78, 0) not null default 0;
create index charges_open_exception_idx on charges (project_id, mode, created_at, invoice_id)
    where open_exception is not null;
create index charges_resolved_exception_idx on charges (project_id, mode, created_at, invoice_id)
    where open_exception is null and exception_resolved_at is not null;
