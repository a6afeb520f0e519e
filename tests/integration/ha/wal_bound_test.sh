#!/usr/bin/env bash
# ctest ha_wal_bound (docs/operations.md "A standby down too long", ADR 0209): the WAL the primary
# keeps for a standby that is down is bounded. pg_auto_failover keeps a replication slot for the
# standby and leaves max_slot_wal_keep_size at -1, which would keep every segment until the volume
# is full; infra/dev/postgres-ha.sh bounds it (bound_wal). The test:
#   1. the primary runs with max_slot_wal_keep_size = the script's bound (not -1);
#   2. the standby's node is killed (postgres-ha.sh kill-node); the primary goes on alone
#      (wait_primary, within 30 s);
#   3. 50 segments of WAL are written (an insert and pg_switch_wal() each: 800 MB of positions,
#      more than the 512 MB bound) and a CHECKPOINT runs: the standby's slot must be reported
#      "lost" and the segments pg_wal keeps behind the current one must fit in the bound (without
#      it the slot stays "extended" and all 50 are kept);
#   4. postgres-ha.sh reclone-node clones the standby again: one primary, one secondary, and the
#      primary sees it streaming as a synchronous standby (sync_state quorum or sync).
# With the stack in HA mode (HA=1) it uses those nodes (and leaves both running); otherwise it
# brings its own (ports 15440-15442, data in var/pg-ha) and stops them at the end. Skips (77)
# when pg_auto_failover is not installed. 25-40 s here; writes ~800 MB of WAL under var/.
#   wal_bound_test.sh WORK_DIR
set -uo pipefail
WORK="$1"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
HA_SH="$ROOT/infra/dev/postgres-ha.sh"
MONITOR=(psql -X -qtA -h 127.0.0.1 -p 15440 -U autoctl_node -d pg_auto_failover)
say() { printf '[ha_wal_bound] %s\n' "$*" >&2; }
fail() {
  say "FAIL: $*"
  "$HA_SH" state >&2 2>/dev/null
  exit 1
}

if ! "$HA_SH" have-packages; then
  say "SKIP: pg_auto_failover is not installed (Debian package postgresql-15-auto-failover)"
  exit 77
fi
rm -rf "$WORK" && mkdir -p "$WORK"
bound_mb="$(sed -n 's/^WAL_SLOT_BOUND=\([0-9]*\)MB$/\1/p' "$HA_SH")"
[[ -n "$bound_mb" ]] || fail "no WAL_SLOT_BOUND=<n>MB in $HA_SH"

own=0
standby=""
cleanup() {
  # The standby this test killed must not stay down, nor lost (a later start would wait for it).
  if [[ -n "$standby" ]] && ! "$HA_SH" wait-healthy 1 >/dev/null 2>&1; then
    "$HA_SH" start-node "${standby#node}" >/dev/null 2>&1
    "$HA_SH" wait-healthy 30 >/dev/null 2>&1 || "$HA_SH" reclone-node "${standby#node}" >/dev/null 2>&1
  fi
  if ((own)); then
    "$HA_SH" stop >/dev/null 2>&1 || say "stopping the HA nodes failed"
  fi
  true
}
trap cleanup EXIT
trap 'exit 143' TERM INT

if [[ "${DATABASE_URL:-}" == "$("$HA_SH" url)" ]] && "$HA_SH" status >/dev/null; then
  say "using the stack's HA Postgres"
else
  own=1
  say "bringing up HA Postgres of our own (infra/dev/postgres-ha.sh)"
  "$HA_SH" start >"$WORK/ha-start.log" 2>&1 || { cat "$WORK/ha-start.log" >&2; fail "postgres-ha.sh start"; }
fi
"$HA_SH" wait-healthy 60 >/dev/null 2>&1 || fail "no primary + secondary to start from"

primary="$("$HA_SH" primary)" || fail "no primary"
standby=node1; [[ "$primary" == node1 ]] && standby=node2
port=15441; [[ "$primary" == node2 ]] && port=15442
q() { psql -X -qtA -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres "$@"; }

# 1. The bound is in force on the primary.
setting="$(q -c "select setting from pg_settings where name = 'max_slot_wal_keep_size'")"
[[ "$setting" == "$bound_mb" ]] || fail "max_slot_wal_keep_size on $primary is '$setting' MB, not $bound_mb"
say "$primary primary, $standby standby; max_slot_wal_keep_size $setting MB, wal_keep_size $(q -c 'show wal_keep_size')"

# 2. The standby dies; the primary goes on alone.
"$HA_SH" kill-node "${standby#node}" >/dev/null 2>&1
alone=""
for _ in $(seq 60); do
  alone="$("${MONITOR[@]}" -c "select reportedstate from pgautofailover.node where nodename = '$primary'" 2>/dev/null)"
  [[ "$alone" == wait_primary ]] && break
  sleep 0.5
done
[[ "$alone" == wait_primary ]] || fail "$primary is '$alone', not wait_primary, 30 s after $standby died"

# 3. More WAL than the bound, a checkpoint: the slot is lost and pg_wal keeps no more than the bound.
q -c "create table if not exists ha_wal_bound (n int)" >/dev/null || fail "create table"
t0="$(date +%s)"
for i in $(seq 50); do
  q -c "insert into ha_wal_bound values ($i)" -c "select pg_switch_wal()" >/dev/null || fail "write $i"
done
q -c checkpoint || fail "checkpoint"
slots="$(q -c "select coalesce(string_agg(slot_name || ' ' || coalesce(wal_status, '?'), ', '), 'none') from pg_replication_slots")"
current="$(q -c "select pg_walfile_name(pg_current_wal_lsn())")"
kept="$(find "$ROOT/var/pg-ha/$primary/pg_wal" -maxdepth 1 -regextype posix-extended \
  -regex '.*/[0-9A-F]{24}' -printf '%f\n' | awk -v c="$current" '$0 < c' | wc -l)"
q -c "drop table ha_wal_bound" >/dev/null
say "50 segments in $(( $(date +%s) - t0 )) s, then a checkpoint: slots: $slots; pg_wal keeps $kept segments ($((kept * 16)) MB) behind the current one"
[[ "$slots" == *" lost"* ]] || fail "the standby's slot is not lost after 800 MB of WAL past a $bound_mb MB bound: $slots"
((kept * 16 <= bound_mb)) || fail "pg_wal keeps $((kept * 16)) MB, more than the $bound_mb MB bound"

# 4. The standby is cloned again and is the synchronous standby.
t0="$(date +%s)"
"$HA_SH" reclone-node "${standby#node}" >"$WORK/reclone.log" 2>&1 \
  || { tail -n 20 "$WORK/reclone.log" >&2; fail "reclone-node ${standby#node}"; }
sync=""
for _ in $(seq 40); do
  sync="$(q -c "select sync_state from pg_stat_replication where state = 'streaming'")"
  [[ "$sync" == quorum || "$sync" == sync ]] && break
  sleep 0.5
done
[[ "$sync" == quorum || "$sync" == sync ]] || fail "after reclone-node the primary's standby is '$sync', not synchronous"
say "PASS: slot lost past the bound, pg_wal bounded; $standby cloned again in $(( $(date +%s) - t0 )) s, sync_state $sync"
