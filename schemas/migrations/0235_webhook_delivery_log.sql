-- 0235_webhook_delivery_log: what the dashboard's webhooks pages read (docs/dashboard.md
-- "Webhooks", docs/adr/0235-webhook-delivery-log-in-the-dashboard.md).
--
-- Each attempt keeps the start of the receiver's answer: at most 256 bytes of safe text (invalid
-- UTF-8 replaced, control and bidirectional formatting characters dropped: domain/webhooks/
-- delivery_log), null when no answer arrived. Never the request body, a header or a secret.
alter table webhook_attempts add column response_excerpt text
    check (octet_length(response_excerpt) <= 256);

-- An endpoint's health: its attempts of the last 24 hours, newest first, at most 1000 of them,
-- read from the index alone.
create index webhook_attempts_endpoint_time_idx
    on webhook_attempts (endpoint_id, attempted_at desc) include (response_status);

-- A charge's deliveries on its dashboard page: its events by invoice id.
create index webhook_events_invoice_idx on webhook_events (invoice_id) where invoice_id is not null;

-- The dashboard's webhook changes are audited like its key changes. The allowed actions are
-- extended, not restated, so that another migration's additions stay allowed.
do $$
declare
    allowed text[];
begin
    select array_agg(m[1]) into allowed
    from pg_constraint c,
         regexp_matches(pg_get_constraintdef(c.oid), '''([a-z_.]+)''', 'g') as m
    where c.conrelid = 'account_audit'::regclass and c.conname = 'account_audit_action_check';
    alter table account_audit drop constraint account_audit_action_check;
    allowed := allowed || array['webhook_endpoint.created', 'webhook_endpoint.updated',
                                'webhook_endpoint.deleted', 'webhook_endpoint.secret_rotated',
                                'webhook_endpoint.test_sent', 'webhook_delivery.redelivered'];
    -- As a list of literals, so that the next migration can read it back the same way.
    execute format('alter table account_audit add constraint account_audit_action_check '
                   'check (action in (%s))',
                   (select string_agg(quote_literal(a), ', ') from unnest(allowed) as a));
end $$;
