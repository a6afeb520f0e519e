-- 0160_charge_metadata: the merchant's own order data on a charge (docs/api.md
-- "Metadata", ADR 0160). Carried in charge.created (data.metadata, omitted when empty) and
-- projected here as a jsonb object of string values; null when the charge has none. jsonb so that
-- GET /v1/charges can filter with `metadata @> {...}` through a GIN index (0161).
alter table charges add column metadata jsonb;
