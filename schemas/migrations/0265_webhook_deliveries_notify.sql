-- 0265_webhook_deliveries_notify: wake the webhook dispatchers when a delivery becomes due now,
-- instead of having them poll the queue (docs/webhooks.md "When the dispatcher claims", ADR 0265).
-- A row that is pending, not leased and due (a new delivery, a redelivery) notifies the channel
-- `webhook_deliveries` at commit; Postgres folds the notifications of one transaction into one.
-- A claim sets leased_until and a retry sets a later next_attempt_at, so neither notifies: the
-- dispatcher finds those by its idle claim (once a second).
create function notify_webhook_delivery_due() returns trigger language plpgsql as $$
begin
    perform pg_notify('webhook_deliveries', '');
    return null;
end
$$;

create trigger webhook_deliveries_due
    after insert or update on webhook_deliveries
    for each row
    when (new.state = 'pending' and new.leased_until is null and new.next_attempt_at <= now())
    execute function notify_webhook_delivery_due();
