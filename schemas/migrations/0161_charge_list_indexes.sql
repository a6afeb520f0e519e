-- 0161_charge_list_indexes: GET /v1/charges (docs/api.md "Listing charges",
-- ADR 0161). A page is `where project_id = $1 and mode = $2 [and <filter>] [and (created_at,
-- invoice_id) < cursor] order by created_at desc, invoice_id desc limit n`: each index below
-- starts with the equality columns of one filter and ends with the keyset, so a first page and a
-- deep page are both one backward index range scan of n rows, whatever the table holds. The
-- created range filters use the base index. Metadata containment (`metadata @> '{"k":"v"}'`) uses
-- the GIN index, then sorts the (few) matches. On a large production table, create these with
-- CREATE INDEX CONCURRENTLY outside a transaction before deploying.
create index charges_list_idx on charges (project_id, mode, created_at, invoice_id);
create index charges_list_status_idx on charges (project_id, mode, status, created_at, invoice_id);
create index charges_list_chain_idx on charges (project_id, mode, chain_id, created_at, invoice_id);
create index charges_list_reference_idx on charges (project_id, mode, reference, created_at, invoice_id)
    where reference is not null;
create index charges_metadata_idx on charges using gin (metadata jsonb_path_ops)
    where metadata is not null;
-- Served by charges_list_idx (same leading column, and mode is always given).
drop index if exists charges_project_idx;
