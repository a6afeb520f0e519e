-- 0165_events_api: GET /v1/events pages through webhook_events (the merchant-facing events the
-- webhooks role stores for every charge event, whether or not an endpoint is registered), newest
-- first by the event's own createdAt, keyset-paged on (occurred_at, id). docs/events-api.md,
-- docs/adr/0165-events-api-over-webhook-events.md.

alter table webhook_events add column occurred_at timestamptz;
update webhook_events set occurred_at = (body::jsonb ->> 'createdAt')::timestamptz;
update webhook_events set occurred_at = created_at where occurred_at is null;
alter table webhook_events alter column occurred_at set not null;

-- One page of one project and mode, with or without a type filter.
create index webhook_events_page_idx on webhook_events (project_id, mode, occurred_at desc, id desc)
    where type like 'invoice.%';
create index webhook_events_type_page_idx
    on webhook_events (project_id, mode, type, occurred_at desc, id desc)
    where type like 'invoice.%';
