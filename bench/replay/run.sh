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
# The figure lands in bench/RESULTS.md with the command. Never run it in CI.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
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
  psql -X -q -d "$DEV_URL" -c "drop database if exists $DB with (force)" >/dev/null || true
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
# shellcheck disable=SC2086  # REPLAY_ARGS: extra flags, e.g. "--workers 1"
DUEPAY_TOPIC="$TOPIC" DUEPAY_PROJECTOR_GROUP="$GROUP" "$BIN" replay --schema bench --swap ${REPLAY_ARGS:-}
echo "load average after replay: $(cut -d' ' -f1-3 /proc/loadavg)"
