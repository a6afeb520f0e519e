-- 0020_chainwatch: the block checkpoint of chainwatch, one row per chain. It names the last block
-- at confirmation depth whose chain-fact events Kafka has acknowledged; after a restart chainwatch
-- rescans from the block after it (docs/chainwatch.md). If the stored hash is no longer on the
-- chain (an anvil restart, a reorg deeper than the depth) chainwatch rescans from the chain's
-- start block.
create table chainwatch_checkpoints (
    chain_id     bigint primary key,
    block_number bigint not null,
    block_hash   text not null,                 -- 0x + 64 lower-case hex
    updated_at   timestamptz not null default now()
);
