-- 0031_unmetered_plan: the internal plan 'unmetered' (no per-minute limit, no monthly quota) for
-- the demo project and load benches. Set only by `duepay admin` (ops), never by merchants
-- (docs/limits.md). The demo project (prj_demo, `duepay admin demo`) moves to it.
alter table projects drop constraint projects_plan_check;
alter table projects add constraint projects_plan_check
    check (plan in ('free', 'pro', 'scale', 'unmetered'));
update projects set plan = 'unmetered' where id = 'prj_demo';
