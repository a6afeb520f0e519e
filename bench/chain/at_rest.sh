#!/usr/bin/env bash
# Chainwatch at rest (ADR 0215): the CPU that the duepay roles, Postgres, the Kafka broker and the
# anvil nodes use while nothing happens but the dev chains mining a block a second, with CHARGES
# open transfer-rail charges of chain 80002 watched, then the time chainwatch takes for one block
# of TRANSFERS payments to those charges. Needs the dev stack up (var/dev.env), build/ built
# (duepay, open_charges_producer), node with ethers (npm ci). Never run it in CI.
#
#   bench/chain/at_rest.sh [BASE_BIN]
#     CHARGES (1000000)  open charges put on the bench topic by open_charges_producer
#     WINDOW (60)        seconds of CPU sampled at rest, per run
#     TRANSFERS (1000)   payments mined in one block (0: no block part)
#     FLOOR (1)          also the same roles at rest on an empty topic (0 open charges)
#     BASE_BIN           another duepay binary (e.g. main's) measured on the same seeded charges,
#                        its block paying the next TRANSFERS charges
#
# Each run is `BIN dev --supervise --with-chainwatch --with-webhooks` (each role a process of
# its own) on a topic and a database of their own (every migration applied, dropped at the end),
# each chain's scan starting at its head. A run is measured once chainwatch has caught up with
# the topic and is at the head (its ops listener's head lag, at most 120 s of waiting), the
# projector and the webhooks role have stored offsets for every event, and its database is
# vacuumed, analyzed and checkpointed, plus 10 s. CPU: utime + stime from /proc (Postgres: the
# postmaster and its backends; anvil: its wrapper and the node) over WINDOW, as % of one core,
# and chainwatch's RSS; the load average is printed beside each run. Output:
# var/bench/at-rest-<UTC>/ (results.md, each run's log). Seeding 1,000,000 charges: about 25 s of
# producing (170,000 took 3.8 s), then the projector and the webhooks role catch up (about two
# minutes for 170,000 on the busy 2-core machine).
# A quiet machine and a private network namespace (bench/README.md):
#
#   make build
#   unshare -n bash -c 'ip link set lo up && DUEPAY_BIN=$PWD/build/duepay \
#     scripts/with-stack.sh env CHARGES=1000000 bench/chain/at_rest.sh'
#
# Smoke run: CHARGES=20000 WINDOW=10 TRANSFERS=100 FLOOR=0.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_setup psql node
CHARGES="${CHARGES:-1000000}"
WINDOW="${WINDOW:-60}"
TRANSFERS="${TRANSFERS:-1000}"
FLOOR="${FLOOR:-1}"
BASE_BIN="${1:-}"
CHAIN=80002
AMOUNT=1000
PRODUCER="$ROOT/build/bench/chain/open_charges_producer"
[[ -x "$PRODUCER" ]] || { echo "no $PRODUCER: make build" >&2; exit 2; }
[[ -z "$BASE_BIN" || -x "$BASE_BIN" ]] || { echo "no binary $BASE_BIN" >&2; exit 2; }
((TRANSFERS == 0 || CHARGES >= 2 * TRANSFERS + 2)) || { echo "CHARGES < 2 * TRANSFERS + 2" >&2; exit 2; }
STAMP="$(date +%s)"
TAG="$(printf '%08x' "$((STAMP & 0xffffffff))")"
DEV_URL="$DATABASE_URL"
DIR="$OUT/at-rest-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$DIR"
TOKEN="$(node -e "const c=JSON.parse(require('fs').readFileSync(process.env.DUEPAY_CHAINS_FILE,'utf8')).chains.find(c=>c.chainId===$CHAIN);console.log(c.tokens.find(t=>t.symbol===c.defaultToken).address)")"
HZ="$(getconf CLK_TCK)"
PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || true)"
KAFKA_PID="$(cat "$ROOT/var/kafka/kafka.pid" 2>/dev/null || true)"
ANVIL_PIDS="$(cat "$ROOT"/var/chains/anvil-*.pid 2>/dev/null | tr '\n' ' ' || true)"
DBS=()
DEV_PID=""

cleanup() {
  stop_dev
  for db in "${DBS[@]}"; do
    psql -X -q -d "$(superuser_url "$DEV_URL")" -c "drop database if exists $db with (force)" \
      >/dev/null 2>&1 || true
  done
}
trap cleanup EXIT

stop_dev() {
  if [[ -n "$DEV_PID" ]]; then
    kill -TERM "$DEV_PID" 2>/dev/null || true
    wait "$DEV_PID" 2>/dev/null || true
    DEV_PID=""
  fi
}

# A database with every migration, and a topic; echoes nothing.
new_target() {  # DB TOPIC
  psql -X -q -d "$DEV_URL" -c "create database $1" >/dev/null
  DBS+=("$1")
  for f in "$ROOT"/schemas/migrations/*.sql; do
    psql -X -q -v ON_ERROR_STOP=1 --single-transaction -d "${DEV_URL%/*}/$1" -f "$f" >/dev/null
  done
  "${DUEPAY_BIN:-$ROOT/build/duepay}" admin topic create --name "$2" --partitions 6 >/dev/null
}

head_of() {  # chain id -> its head block number
  local url_var="DUEPAY_RPC_URL_$1"
  curl -s -X POST -H 'content-type: application/json' \
    --data '{"jsonrpc":"2.0","id":1,"method":"eth_blockNumber","params":[]}' "${!url_var}" |
    sed -E 's/.*"result":"0x([0-9a-fA-F]+)".*/\1/' | { read -r h; echo $((16#$h)); }
}

# The events a consumer group has committed in database DB (bench/lib.sh).
committed() { committed_offsets "${DEV_URL%/*}/$1" "$2"; }  # DB GROUP

# chainwatch's head lag on chain $CHAIN (its ops listener, the 4th role port), -1 when unknown.
OPS_PORT="${OPS_PORT:-19300}"
lag() {
  curl -s -m 2 "http://127.0.0.1:$((OPS_PORT + 4))/metrics" 2>/dev/null |
    awk -v c="$CHAIN" '$1 == "duepay_chainwatch_head_lag_blocks{chain=\"" c "\"}" { v = $2 } END { print (v == "" ? -1 : int(v)) }'
}

# One run: LABEL BIN DB TOPIC EVENTS. Appends its rows to $DIR/cpu.tsv.
at_rest() {
  local label="$1" bin="$2" db="$3" topic="$4" events="$5" log="$DIR/$1.log" id start_env=()
  for id in ${DUEPAY_CHAIN_IDS//,/ }; do start_env+=("DUEPAY_START_BLOCK_$id=$(head_of "$id")"); done
  echo "[$label] starting $bin on $topic ($events events)" >&2
  # Each run scans from the heads of now, not from where an earlier run left off.
  psql -X -q -d "${DEV_URL%/*}/$db" -c "delete from chainwatch_checkpoints" >/dev/null
  env "${start_env[@]}" DATABASE_URL="${DEV_URL%/*}/$db" DUEPAY_TOPIC="$topic" DUEPAY_ACCESS_LOG=0 \
    "$bin" dev --supervise --with-chainwatch --with-webhooks \
    --ops-listen "127.0.0.1:$OPS_PORT" --ops-base-port "$OPS_PORT" >"$log" 2>&1 &
  DEV_PID=$!
  local t0 until
  t0="$(date +%s)"
  until=$((t0 + 3600))
  until grep -q "chainwatch $CHAIN: caught up" "$log"; do
    (($(date +%s) < until)) || { echo "[$label] chainwatch did not catch up" >&2; exit 1; }
    kill -0 "$DEV_PID" 2>/dev/null || { tail -20 "$log" >&2; exit 1; }
    sleep 1
  done
  while (($(committed "$db" duepay-projector) < events || $(committed "$db" duepay-webhooks) < events)); do
    (($(date +%s) < until)) || { echo "[$label] consumers did not catch up" >&2; exit 1; }
    sleep 2
  done
  echo "[$label] caught up in $(($(date +%s) - t0)) s: $(grep -o "chainwatch $CHAIN: caught up.*" "$log" | head -1)" >&2
  # At the chain's head (at most 120 s more; a chainwatch that cannot keep up is measured anyway,
  # and its lag is printed).
  until=$(($(date +%s) + 120))
  while (($(lag) > 2 && $(date +%s) < until)); do sleep 1; done
  # The seed's first autovacuum pass and its write-back are not part of the rest measured.
  psql -X -q -d "$(superuser_url "${DEV_URL%/*}/$db")" -c "vacuum analyze" -c "checkpoint" >/dev/null
  sleep 10
  local lag0
  lag0="$(lag)"
  local pids=() names=() before=() after=() p i
  for p in $(pgrep -P "$DEV_PID" || true); do pids+=("$p"); names+=("$(role_of "$p")"); done
  pids+=("$DEV_PID"); names+=("supervisor")
  local load0 load1
  load0="$(cut -d' ' -f1-3 /proc/loadavg)"
  for i in "${!pids[@]}"; do before+=("$(ticks_of "${pids[$i]}")"); done
  local pg0 k0 a0=0 pg1 k1 a1=0
  pg0="$(tree_ticks "${PG_PID:-0}")"; k0="$(ticks_of "${KAFKA_PID:-0}")"
  for p in $ANVIL_PIDS; do a0=$((a0 + $(tree_ticks "$p"))); done
  sleep "$WINDOW"
  for i in "${!pids[@]}"; do after+=("$(ticks_of "${pids[$i]}")"); done
  pg1="$(tree_ticks "${PG_PID:-0}")"; k1="$(ticks_of "${KAFKA_PID:-0}")"
  for p in $ANVIL_PIDS; do a1=$((a1 + $(tree_ticks "$p"))); done
  load1="$(cut -d' ' -f1-3 /proc/loadavg)"
  pct() { awk -v d="$1" -v hz="$HZ" -v w="$WINDOW" 'BEGIN { printf "%.1f", 100 * d / hz / w }'; }
  local total=0
  for i in "${!pids[@]}"; do
    local d=$((after[i] - before[i]))
    total=$((total + d))
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "${names[$i]:-?}" "$(pct "$d")" "$load0" "$load1" >>"$DIR/cpu.tsv"
  done
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "duepay (all roles)" "$(pct "$total")" "$load0" "$load1" >>"$DIR/cpu.tsv"
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "postgres" "$(pct $((pg1 - pg0)))" "$load0" "$load1" >>"$DIR/cpu.tsv"
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "kafka broker" "$(pct $((k1 - k0)))" "$load0" "$load1" >>"$DIR/cpu.tsv"
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "anvil (both chains)" "$(pct $((a1 - a0)))" "$load0" "$load1" >>"$DIR/cpu.tsv"
  echo "[$label] at rest over ${WINDOW}s: duepay $(pct "$total")% of a core, postgres $(pct $((pg1 - pg0)))% (load $load0 -> $load1); chain $CHAIN head lag $lag0 -> $(lag) blocks" >&2
  printf '%s\t%s\t%s\t%s\t%s\n' "$label" "chainwatch head lag (blocks, start -> end)" "$lag0 -> $(lag)" "$load0" "$load1" >>"$DIR/cpu.tsv"
  for i in "${!pids[@]}"; do
    [[ "${names[$i]}" == chainwatch ]] || continue
    printf '%s\t%s\t%s\t%s\t%s\n' "$label" "chainwatch RSS (MiB)" \
      "$(awk '/^VmRSS/ { printf "%.0f", $2 / 1024 }' "/proc/${pids[$i]}/status")" "$load0" "$load1" >>"$DIR/cpu.tsv"
  done
}

# The block part: TRANSFERS payments in one block while LABEL's roles run (its DB).
block() {  # LABEL DB FIRST WARM
  local label="$1" db="$2" first="$3" warm="$4" log="$DIR/$1.log" result line
  local load0
  load0="$(cut -d' ' -f1-3 /proc/loadavg)"
  result="$(DATABASE_URL="${DEV_URL%/*}/$db" node "$ROOT/bench/chain/at_rest_block.mjs" "$TAG" "$TRANSFERS" "$AMOUNT" "$first" "$warm")"
  sleep 2
  local n
  n="$(sed -E 's/.*"block":([0-9]+).*/\1/' <<<"$result")"
  echo "$label	$result	load $load0 -> $(cut -d' ' -f1-3 /proc/loadavg)" >>"$DIR/block.tsv"
  # chainwatch's own report of the rounds that took the block in (detections) and to depth.
  grep -E "chainwatch $CHAIN: blocks [0-9]+\.\.[0-9]+" "$log" | while read -r line; do
    local from to
    from="$(sed -E 's/.*blocks ([0-9]+)\.\.([0-9]+).*/\1/' <<<"$line")"
    to="$(sed -E 's/.*blocks ([0-9]+)\.\.([0-9]+).*/\2/' <<<"$line")"
    if ((from <= n + 3 && to >= n)); then echo "$label	chainwatch: ${line##*chainwatch $CHAIN: }" >>"$DIR/block.tsv"; fi
  done
  echo "[$label] block: $result" >&2
}

echo "load average at start: $(cut -d' ' -f1-3 /proc/loadavg)" | tee "$DIR/results.md" >&2
DB="duepay_bench_atrest_$STAMP"
TOPIC="duepay.bench.atrest.$STAMP"
new_target "$DB" "$TOPIC"
t0=$(date +%s%3N)
"$PRODUCER" --topic "$TOPIC" --chain "$CHAIN" --token "$TOKEN" --tag "$TAG" --charges "$CHARGES" \
  --amount "$AMOUNT" >/dev/null
echo "produced $CHARGES open charges in $(($(date +%s%3N) - t0)) ms" | tee -a "$DIR/results.md" >&2

if [[ "$FLOOR" == 1 ]]; then
  new_target "${DB}_floor" "$TOPIC.floor"
  at_rest floor "${DUEPAY_BIN:-$ROOT/build/duepay}" "${DB}_floor" "$TOPIC.floor" 0
  stop_dev
fi
if [[ -n "$BASE_BIN" ]]; then
  at_rest base "$BASE_BIN" "$DB" "$TOPIC" "$CHARGES"
  ((TRANSFERS > 0)) && block base "$DB" "$TRANSFERS" $((CHARGES - 1))
  stop_dev
fi
at_rest new "${DUEPAY_BIN:-$ROOT/build/duepay}" "$DB" "$TOPIC" "$CHARGES"
((TRANSFERS > 0)) && block new "$DB" 0 $((CHARGES - 2))
stop_dev

{
  echo
  echo "CHARGES=$CHARGES WINDOW=$WINDOW s TRANSFERS=$TRANSFERS, $(nproc) cores, $(date -u +%FT%TZ)"
  echo
  echo "| run | process | CPU % of a core | load before | load after |"
  echo "|---|---|---|---|---|"
  awk -F'\t' '{ printf "| %s | %s | %s | %s | %s |\n", $1, $2, $3, $4, $5 }' "$DIR/cpu.tsv"
  if [[ -f "$DIR/block.tsv" ]]; then
    echo
    echo "One block of $TRANSFERS payments:"
    echo
    sed 's/^/    /' "$DIR/block.tsv"
  fi
} | tee -a "$DIR/results.md"
echo "(in $DIR)" >&2
