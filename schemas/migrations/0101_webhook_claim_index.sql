-- 0101_webhook_claim_index: the dispatcher's claim counts each endpoint's deliveries in flight
-- (pending and leased_until > now()); this index reads only those rows instead of every pending
-- one of the endpoint. docs/adr/0100-webhook-delivery.md, bench/RESULTS.md (webhooks).
create index webhook_deliveries_leased_idx on webhook_deliveries (endpoint_id, leased_until)
    where state = 'pending';
