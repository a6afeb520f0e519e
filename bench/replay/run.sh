#!/usr/bin/env bash
# Replay throughput: puts EVENTS synthetic charge events on a fresh topic, lets a live projector
# catch up (its rate is printed too), then times `duepay replay --swap` while the projector keeps
# running, all in a database of its own (every migration applied), so the dev read model is never
# swapped. Needs the stack up and var/dev.env; build/ built (duepay, analysts_events_producer).
#
#   bench/replay/run.sh [EVENTS] [PARTITIONS]     # defaults: 1000000 6
#   REPLAY_ARGS="--workers 1" bench/replay/run.sh ...  # extra flags of duepay replay
#
# Putting 1M events on the topic: tests/integration/analysts/analysts_events_producer appends
# synthetic charges asynchronously through the idempotent producer (9 events per 4 charges:
# pending, paid, paid, expired), one flush at the end: about 10-20 s for 1M on this machine.
# After the replay, the Postgres floor of the same rows in the same run (see "floor" below; about
# a minute more; FLOOR=0 skips it). The figure lands in bench/RESULTS.md with the command. Never
# run it in CI.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"  # ROOT, superuser_url, tree_ticks
EVENTS="${1:-1000000}"
PARTITIONS="${2:-6}"
BIN="${DUEPAY_BIN:-$ROOT/build/duepay}"
PRODUCER="$ROOT/build/tests/integration/analysts/analysts_events_producer"
set -a; source "$ROOT/var/dev.env"; set +a
STAMP="$(date +%s)"
TOPIC="duepay.bench.replay.$STAMP"
GROUP="duepay-bench-replay-$STAMP"
DB="duepay_bench_replay_$STAMP"
DEV_URL="$DATABASE_URL"
export DATABASE_URL="${DEV_URL%/*}/$DB"
CHARGES=$(( (EVENTS * 4 + 8) / 9 ))

psql -X -q -d "$DEV_URL" -c "create database $DB" >/dev/null
for f in "$ROOT"/schemas/migrations/*.sql; do
  psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "$DATABASE_URL" -f "$f" >/dev/null
done
cleanup() {
  [[ -n "${PROJECTOR_PID:-}" ]] && kill "$PROJECTOR_PID" 2>/dev/null && wait "$PROJECTOR_PID" || true
  # As the superuser: WITH (FORCE) must end autovacuum's workers on the fresh tables too.
  psql -X -q -d "$(superuser_url "$DEV_URL")" -c "drop database if exists $DB with (force)" \
    >/dev/null || true
}
trap cleanup EXIT

"$BIN" admin topic create --name "$TOPIC" --partitions "$PARTITIONS" >/dev/null
t0=$(date +%s%3N)
"$PRODUCER" --topic "$TOPIC" --project prj_bench --charges "$CHARGES"
t1=$(date +%s%3N)
echo "produced $CHARGES charges in $(( t1 - t0 )) ms"

"$BIN" projector --topic "$TOPIC" --group "$GROUP" >/tmp/duepay-bench-replay-projector.log 2>&1 &
PROJECTOR_PID=$!
total=$("$BIN" events export --topic "$TOPIC" --type charge.created 2>/dev/null | wc -l)
while :; do
  n=$(psql -X -qtA -d "$DATABASE_URL" -c "select count(*) from charges")
  [[ "$n" -ge "$total" ]] && break
  sleep 1
done
t2=$(date +%s%3N)
echo "live projector caught up ($total charges) in $(( t2 - t1 )) ms"
echo "load average before replay: $(cut -d' ' -f1-3 /proc/loadavg)"
TIMEFORMAT="replay process CPU: user %U s, sys %S s (wall %R s, comparison and swap included)"
# shellcheck disable=SC2086  # REPLAY_ARGS: extra flags, e.g. "--workers 1"
time { report=$(DUEPAY_TOPIC="$TOPIC" DUEPAY_PROJECTOR_GROUP="$GROUP" "$BIN" replay --schema bench --swap ${REPLAY_ARGS:-}); }
echo "$report"
echo "load average after replay: $(cut -d' ' -f1-3 /proc/loadavg)"
[[ "${FLOOR:-1}" == 1 ]] || exit 0

# The Postgres floor of the same load, in the same run (FLOOR=0 skips it): the rows the replay
# wrote (now the live tables of this database) are exported to files, then COPYed by SESSIONS
# parallel psql sessions (the replay's default --workers), one COPY per table and session, into
# bare tables of a schema of their own, twice:
#   kept:  with the indexes the replay's load keeps (the journal's primary key and invoice index,
#          the charges' primary key) in place during the COPY, as the replay has them;
#   after: with no index during the COPY, those three built after it, two at a time.
# No decoding, no fold, no batches: Postgres's own work for these rows. Each time plus the
# replay's indexSeconds (the same list-index build) is how fast the replay could be on this
# machine if its own process cost nothing.
SESSIONS="${SESSIONS:-2}"
DIR="$(mktemp -d /tmp/duepay-replay-floor.XXXXXX)"
trap 'rm -rf "$DIR"; cleanup' EXIT
SUPER_URL="$(superuser_url "$DATABASE_URL")"
pg_cpu() { tree_ticks "$(head -1 "$ROOT/var/pg/data/postmaster.pid")"; }  # 1/100 s, backends too
now_ms() { date +%s%3N; }
JOURNAL_COLUMNS='event_id, invoice_id, topic, partition, "offset", type, payload'
INVOICE_INDEX='(invoice_id, partition, "offset")'
for ((k = 0; k < SESSIONS; k++)); do
  psql -X -q -d "$DATABASE_URL" -c "\\copy (select $JOURNAL_COLUMNS from charge_events where partition % $SESSIONS = $k) to '$DIR/journal.$k'"
  psql -X -q -d "$DATABASE_URL" -c "\\copy (select * from charges where abs(hashtext(invoice_id)) % $SESSIONS = $k) to '$DIR/charges.$k'"
done
# floor_load SCHEMA kept|after: prints "<COPY ms> <index build ms> <Postgres CPU ticks>".
floor_load() {
  local schema=$1 mode=$2 pids=() cpu0 t0 t1 t2
  psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" >/dev/null <<SQL
create schema $schema;
create table $schema.charge_events (like public.charge_events including defaults);
create table $schema.charges (like public.charges including defaults);
SQL
  if [[ "$mode" == kept ]]; then
    psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" >/dev/null <<SQL
alter table $schema.charge_events add primary key (event_id);
create index on $schema.charge_events $INVOICE_INDEX;
alter table $schema.charges add primary key (invoice_id);
SQL
  fi
  psql -X -q -d "$SUPER_URL" -c checkpoint
  cpu0=$(pg_cpu); t0=$(now_ms)
  for ((k = 0; k < SESSIONS; k++)); do
    psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -c "set synchronous_commit = off" \
      -c "\\copy $schema.charge_events ($JOURNAL_COLUMNS) from '$DIR/journal.$k'" \
      -c "\\copy $schema.charges from '$DIR/charges.$k'" &
    pids+=($!)
  done
  wait "${pids[@]}"
  t1=$(now_ms)
  if [[ "$mode" == after ]]; then
    pids=()
    psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -c "set maintenance_work_mem = '256MB'" \
      -c "alter table $schema.charge_events add primary key (event_id)" \
      -c "alter table $schema.charges add primary key (invoice_id)" &
    pids+=($!)
    psql -X -q -v ON_ERROR_STOP=1 -d "$DATABASE_URL" -c "set maintenance_work_mem = '256MB'" \
      -c "create index on $schema.charge_events $INVOICE_INDEX" &
    pids+=($!)
    wait "${pids[@]}"
  fi
  t2=$(now_ms)
  echo "$(( t1 - t0 )) $(( t2 - t1 )) $(( $(pg_cpu) - cpu0 ))"
}
echo "load average before floor: $(cut -d' ' -f1-3 /proc/loadavg)"
kept=$(floor_load floor_kept kept)
after=$(floor_load floor_after after)
events=$(psql -X -qtA -d "$DATABASE_URL" -c "select count(*) from floor_kept.charge_events")
python3 - "$events" "$report" "$kept" "$after" <<'PY'
import json, sys
events, report = int(sys.argv[1]), json.loads(sys.argv[2])
index_s, replay = report["indexSeconds"], report["eventsPerSecond"]
for name, figures in (("kept", sys.argv[3]), ("after", sys.argv[4])):
    load_ms, build_ms, ticks = map(int, figures.split())
    floor = events / (load_ms / 1000 + build_ms / 1000 + index_s)
    print(f"floor ({name}): {events:,} journal rows and their charges COPYed in {load_ms} ms, "
          f"indexes built after in {build_ms} ms, Postgres CPU {ticks / 100:.1f} s; with the "
          f"replay's indexSeconds {index_s:.1f}: {floor:,.0f} events/s; the replay's "
          f"{replay:,} is {replay / floor:.2f} of it")
PY
echo "load average after floor: $(cut -d' ' -f1-3 /proc/loadavg)"
