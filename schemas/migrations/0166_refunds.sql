-- 0166_refunds: the refunds of a charge in its read model (rebuildable from the topic like every
-- column of `charges`): the refunded total and each refund as the API shows it,
-- [{refundId, status, txHash, amount, to, reason}] in request order. docs/refunds.md,
-- docs/adr/0166-refunds-requested-by-the-merchant-verified-by-chainwatch.md.

alter table charges add column amount_refunded numeric(78, 0) not null default 0;
alter table charges add column refunds jsonb not null default '[]'::jsonb;
