#!/usr/bin/env bash
# The create/status sweep (bench/README.md, "sweep"; figures in bench/RESULTS.md):
#   1. the floor of a create, measured first on the same stack (build/bench/floor/floor_bench);
#   2. its own `duepay dev`, warmed up with $WARMUP (30) s of creates: by default every role as
#      a deployment runs them, each its own process (`dev --supervise --with-chainwatch
#      --with-webhooks`: api, checkout, projector, chainwatch, webhooks, dashboard; the duepay
#      columns sum them and the supervisor); ROLES=api+projector runs those two in one process;
#   3. for each connection count (1 8 32 64 128): wrk on create.lua, status.lua, create_full.lua;
#      throughput, p50, p99, non-2xx, and CPU per request of the duepay process, the Kafka broker
#      and the Postgres cluster (utime + stime from /proc over the wrk run, children included);
#      on the HA stack (HA=1: a primary and a synchronous standby under pg_auto_failover, ADR
#      0209) "postgres" is both data nodes, and a column of its own counts pg_auto_failover (the
#      three pg_autoctl keepers and the monitor's Postgres; bench/lib.sh pg_ha_ticks);
#   4. a Markdown table (sweep.md), the raw rows (sweep.tsv) and a plot (sweep.png, gnuplot).
#   SEED_OPEN=N first puts N open transfer-rail charges of chain 80002 (another project's, due in
#   30 days) on the topic with build/bench/chain/open_charges_producer, and measures once the
#   projector and the webhooks role have committed them and chainwatch watches them: the sweep of
#   a deployment whose read model already holds N charges, all open (its database grows by N rows
#   per run; start from a fresh stack to compare runs).
#
#   make stack-up && bench/load/sweep.sh                      # uses var/dev.env
#   CONNECTIONS_LIST="8 64" DURATION=5 ROUTES="create" bench/load/sweep.sh
#   ROLES=api+projector bench/load/sweep.sh                   # the earlier sweeps' variant
#   SEED_OPEN=1000000 CONNECTIONS_LIST="8 64" bench/load/sweep.sh   # over a million open charges
#   PERF=1 bench/load/sweep.sh    # then one more run per route at 64 connections under perf record
#   HA=1 scripts/with-stack.sh bench/load/sweep.sh            # against the HA Postgres (var/dev.env
#                                 # then holds its multi-host URL; the mode is read from it)
#
# Output in var/bench/sweep-<UTC time>/. Needs wrk, gnuplot, psql; nothing may answer on
# $DUEPAY_BASE_URL before it starts (it measures the process it starts).
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ENV_FILE="${DUEPAY_ENV_FILE:-$ROOT/var/dev.env}"
[[ -f "$ENV_FILE" ]] || { echo "no $ENV_FILE: run make stack-up first" >&2; exit 2; }
set -a; source "$ENV_FILE"; set +a
for tool in wrk gnuplot psql; do
  command -v "$tool" >/dev/null || { echo "$tool not installed (make deps)" >&2; exit 2; }
done
BUILD="${BUILD:-$ROOT/build}"
BIN="${DUEPAY_BIN:-$BUILD/duepay}"
FLOOR_BIN="${FLOOR_BIN:-$BUILD/bench/floor/floor_bench}"
DURATION="${DURATION:-15}"
CONNECTIONS_LIST="${CONNECTIONS_LIST:-1 8 32 64 128}"
ROUTES="${ROUTES:-create status create_full}"
FLOOR_COUNT="${FLOOR_COUNT:-500}"
PERF="${PERF:-0}"
ROLES="${ROLES:-all}"
SEED_OPEN="${SEED_OPEN:-0}"
case "$ROLES" in
  all) DEV_ARGS=(--supervise --with-chainwatch --with-webhooks) ;;
  api+projector) DEV_ARGS=() ;;
  *) echo "ROLES must be all or api+projector, not $ROLES" >&2; exit 2 ;;
esac
PERF_CONNECTIONS="${PERF_CONNECTIONS:-64}"
BASE="${DUEPAY_BASE_URL:-http://127.0.0.1:8080}"
OUT="${OUT:-$ROOT/var/bench/sweep-$(date -u +%Y%m%dT%H%M%SZ)}"
mkdir -p "$OUT"
TCK="$(getconf CLK_TCK)"
log() { printf '[sweep] %s\n' "$*" >&2; }

if [[ -z "${DUEPAY_DEMO_TEST_KEY:-}" ]]; then
  DUEPAY_DEMO_TEST_KEY="$("$BIN" admin demo | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')"
fi
export DUEPAY_DEMO_TEST_KEY

# ticks_of, tree_ticks: CPU ticks of a process, and with its children.
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
# Context switches of a process and its children (the roles of --supervise), all their threads
# (voluntary + involuntary): each is a thread that slept or was preempted, the kernel time the
# profile shows as finish_task_switch.
switches_of() {
  local p
  for p in "$1" $(pgrep -P "$1" || true); do cat /proc/"$p"/task/*/status 2>/dev/null; done |
    awk '/^(non)?voluntary_ctxt_switches:/ { n += $2 } END { print n + 0 }'
}
# The machine's CPU ticks (all cpus) from /proc/stat: "busy idle steal". CPU per request is only
# comparable between runs on an otherwise idle machine: the idle and steal shares of each run say
# whether it was (bench/RESULTS.md, "the 64-connection regression").
machine_ticks() {
  awk '/^cpu / { print $2 + $3 + $4 + $7 + $8, $5 + $6, $9 }' /proc/stat
}
KAFKA_PID="$(cat "$ROOT/var/kafka/kafka.pid" 2>/dev/null || true)"
PG_MODE="$(pg_mode)"
# What each run's Postgres was: one node, or the HA pair with the standby synchronous (asked of the
# primary as the superuser; pg_auto_failover's synchronous standby shows "quorum", and a sweep
# whose standby was "async" or absent measured no synchronous commit).
pg_meta() {
  if [[ "$PG_MODE" == ha ]]; then
    local su; su="$(superuser_url "$DATABASE_URL")"
    echo "postgres: HA (pg_auto_failover), primary $("$ROOT/infra/dev/postgres-ha.sh" primary 2>/dev/null || echo '?'), \
synchronous_commit $(psql -X -qtA -d "$su" -c 'show synchronous_commit' 2>/dev/null), standbys: \
$(psql -X -qtA -F' ' -d "$su" -c "select coalesce(string_agg(application_name || ' ' || state || ' ' || sync_state, ', '), 'none') from pg_stat_replication" 2>/dev/null)"
  else
    echo "postgres: single node (var/pg)"
  fi
}

if curl -sf -m 2 "$BASE/healthz" >/dev/null; then
  echo "something already answers on $BASE: stop it, the sweep measures its own duepay dev" >&2
  exit 2
fi
{
  echo "# sweep $(date -u +%FT%TZ) on $(hostname), $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $("$BIN" --version 2>/dev/null || echo "$BIN"), git $(git -C "$ROOT" rev-parse --short HEAD), roles: $ROLES (duepay dev ${DEV_ARGS[*]})"
  echo "# $(pg_meta)"
} >"$OUT/sweep.meta"

log "floor: $FLOOR_BIN --count $FLOOR_COUNT"
"$FLOOR_BIN" --count "$FLOOR_COUNT" | tee "$OUT/floor.txt"
FLOOR_P50="$(sed -n 's/^floor:.* sum_p50_ms=\([0-9.]*\).*/\1/p' "$OUT/floor.txt")"
FLOOR_P99="$(sed -n 's/^floor:.* sum_p99_ms=\([0-9.]*\).*/\1/p' "$OUT/floor.txt")"

# The open charges a busy deployment watches, put on the topic before the roles start.
SEED_CHAIN=80002
if ((SEED_OPEN > 0)); then
  producer="$BUILD/bench/chain/open_charges_producer"
  [[ -x "$producer" ]] || { echo "no $producer: make build" >&2; exit 2; }
  token="$(node -e "const c=JSON.parse(require('fs').readFileSync(process.env.DUEPAY_CHAINS_FILE,'utf8')).chains.find(c=>c.chainId===$SEED_CHAIN);console.log(c.tokens.find(t=>t.symbol===c.defaultToken).address)")"
  t0="$(date +%s)"
  "$producer" --topic "$DUEPAY_TOPIC" --chain "$SEED_CHAIN" --token "$token" \
    --tag "$(printf '%08x' "$((t0 & 0xffffffff))")" --charges "$SEED_OPEN" --project prj_bench_sweep >/dev/null
  log "seeded $SEED_OPEN open charges on $DUEPAY_TOPIC in $(($(date +%s) - t0)) s"
  echo "# seeded: $SEED_OPEN open transfer-rail charges of chain $SEED_CHAIN (project prj_bench_sweep) before the roles started" >>"$OUT/sweep.meta"
fi

log "starting $BIN dev ${DEV_ARGS[*]} (log $OUT/dev.log)"
"$BIN" dev "${DEV_ARGS[@]}" >"$OUT/dev.log" 2>&1 &
DEV_PID=$!
PERF_PID=""
cleanup() {
  [[ -n "$PERF_PID" ]] && kill -INT "$PERF_PID" 2>/dev/null && wait "$PERF_PID" 2>/dev/null
  kill -TERM "$DEV_PID" 2>/dev/null && wait "$DEV_PID" 2>/dev/null
  true
}
trap cleanup EXIT
for _ in $(seq 1 150); do curl -sf -m 1 "$BASE/healthz" >/dev/null && break; sleep 0.2; done
curl -sf -m 2 "$BASE/healthz" >/dev/null || { echo "API not answering on $BASE" >&2; exit 1; }

# With a seed: measured once the roles have taken it in (at most an hour).
if ((SEED_OPEN > 0)); then
  committed() { committed_offsets "$DATABASE_URL" "$1"; }  # bench/lib.sh
  t0="$(date +%s)"
  taken_in() {
    (($(committed duepay-projector) >= SEED_OPEN)) || return 1
    [[ "$ROLES" == all ]] || return 0
    (($(committed duepay-webhooks) >= SEED_OPEN)) && grep -q "chainwatch $SEED_CHAIN: caught up" "$OUT/dev.log"
  }
  until taken_in; do
    (($(date +%s) < t0 + 3600)) || { echo "the roles did not take the seed in within an hour" >&2; exit 1; }
    kill -0 "$DEV_PID" 2>/dev/null || { tail -20 "$OUT/dev.log" >&2; exit 1; }
    sleep 2
  done
  took=$(($(date +%s) - t0))
  log "the roles took the seed in after $took s: $(grep -o "chainwatch $SEED_CHAIN: caught up.*" "$OUT/dev.log" | head -1)"
  psql -X -q -d "$(superuser_url "$DATABASE_URL")" -c "vacuum analyze" -c "checkpoint" >/dev/null
  echo "# the roles took the seed in after $took s; open charges in the read model: $(psql -X -qtA -d "$DATABASE_URL" -c "select count(*) from charges where status in ('pending', 'confirming')")" >>"$OUT/sweep.meta"
fi

# Warm-up (not reported): the producer id, the projector's first assignment, and the broker's JIT:
# on the loaded dev machine the broker's CPU per create fell ~4x over the first minute of load
# (bench/RESULTS.md, the create/status sweep), whatever the route.
wrk -t2 -c16 -d"${WARMUP:-30}s" -s "$ROOT/bench/load/create.lua" "$BASE" >/dev/null

ids_file="$OUT/ids.txt"
load_ids() {
  psql -X -q -tA -d "$DATABASE_URL" -c "select invoice_id from charges where project_id = \
'prj_demo' and mode = 'test' order by created_at desc limit 5000" >"$ids_file"
  export DUEPAY_BENCH_IDS="$ids_file"
}
load_ids

printf 'route\tconnections\trequests\treq_per_s\tp50_ms\tp99_ms\tnon2xx\tduepay_us\tbroker_us\tpostgres_us\tpg_ha_us\tduepay_cs\tidle_pct\tsteal_pct\n' \
  >"$OUT/sweep.tsv"
for route in $ROUTES; do
  for c in $CONNECTIONS_LIST; do
    threads=$((c < 2 ? c : 2))
    s0="$(switches_of "$DEV_PID")"
    read -r m_busy0 m_idle0 m_steal0 < <(machine_ticks)
    d0="$(tree_ticks "$DEV_PID")"; k0="$(ticks_of "${KAFKA_PID:-0}")"; p0="$(pg_ticks)"; h0="$(pg_ha_ticks)"
    line="$(wrk -t"$threads" -c"$c" -d"${DURATION}s" --latency -s "$ROOT/bench/load/$route.lua" \
      "$BASE" | tee "$OUT/$route-$c.txt" | grep -E "^$route: ")"
    d1="$(tree_ticks "$DEV_PID")"; k1="$(ticks_of "${KAFKA_PID:-0}")"; p1="$(pg_ticks)"; h1="$(pg_ha_ticks)"
    s1="$(switches_of "$DEV_PID")"
    read -r m_busy1 m_idle1 m_steal1 < <(machine_ticks)
    read -r idle_pct steal_pct < <(awk -v b=$((m_busy1 - m_busy0)) -v i=$((m_idle1 - m_idle0)) \
      -v s=$((m_steal1 - m_steal0)) 'BEGIN { t = b + i + s; if (t == 0) t = 1
        printf "%.0f %.0f\n", 100 * i / t, 100 * s / t }')
    # "create: N requests, R req/s, p50 X ms, p99 Y ms, non-2xx Z"
    read -r requests rps p50 p99 non2xx < <(echo "$line" |
      sed -E 's/^[a-z_]+: ([0-9]+) requests, ([0-9.]+) req\/s, p50 ([0-9.]+) ms, p99 ([0-9.]+) ms, non-2xx ([0-9]+).*/\1 \2 \3 \4 \5/')
    per_req() { awk -v t="$1" -v n="$requests" -v hz="$TCK" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }'; }
    ha_us="-"; [[ "$PG_MODE" == ha ]] && ha_us="$(per_req $((h1 - h0)))"
    cs="$(awk -v s="$((s1 - s0))" -v n="$requests" 'BEGIN { printf "%.1f", (n > 0 ? s / n : 0) }')"
    printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$route" "$c" "$requests" "$rps" \
      "$p50" "$p99" "$non2xx" "$(per_req $((d1 - d0)))" "$(per_req $((k1 - k0)))" \
      "$(per_req $((p1 - p0)))" "$ha_us" "$cs" "$idle_pct" "$steal_pct" | tee -a "$OUT/sweep.tsv"
    [[ "$route" == create ]] && load_ids  # the status runs read the newest charges
  done
done

# Profiles (PERF=1): extra runs at $PERF_CONNECTIONS connections, not in the table (perf slows
# what it samples). Top frames by thread and library, then by symbol; a Release build has no frame
# pointers, so call chains are not reliable, the self-time frames are.
if [[ "$PERF" == 1 ]]; then
  for route in $ROUTES; do
    perf_file="$OUT/perf-$route-$PERF_CONNECTIONS.data"
    pids="$(printf '%s,' "$DEV_PID" $(pgrep -P "$DEV_PID" || true))"
    perf record -F 999 -g -o "$perf_file" -p "${pids%,}" 2>"$OUT/perf-$route.log" &
    PERF_PID=$!
    wrk -t2 -c"$PERF_CONNECTIONS" -d"${DURATION}s" -s "$ROOT/bench/load/$route.lua" "$BASE" \
      >"$OUT/perf-$route-wrk.txt"
    kill -INT "$PERF_PID"; wait "$PERF_PID" || true; PERF_PID=""
    {
      echo "## $route at $PERF_CONNECTIONS connections: samples by thread and library"
      perf report -i "$perf_file" --no-children --stdio --sort comm,dso -g none \
        --percent-limit 1 2>/dev/null | grep -v '^#' | grep -v '^$' | head -25
      echo "## top symbols"
      perf report -i "$perf_file" --no-children --stdio --sort comm,dso,sym -g none \
        --percent-limit 0.7 2>/dev/null | grep -v '^#' | grep -v '^$' | head -40
    } >"$OUT/perf-$route-$PERF_CONNECTIONS.top.txt" || true
    log "profile of $route: $OUT/perf-$route-$PERF_CONNECTIONS.top.txt"
  done
fi

# The Markdown table, with each create's p50 as a ratio to the floor.
{
  cat "$OUT/sweep.meta"
  echo
  echo "floor (same run, one in flight): p50 ${FLOOR_P50} ms, p99 ${FLOOR_P99} ms (Kafka ack + PG commit/NOTIFY)"
  echo
  echo "| route | connections | requests | req/s | p50 ms | p99 ms | p50 / floor p50 | non-2xx | CPU us/req duepay | broker | postgres | pg_auto_failover | duepay switches/req | machine idle % | steal % |"
  echo "|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|"
  tail -n +2 "$OUT/sweep.tsv" | awk -F'\t' -v f="$FLOOR_P50" '{
    ratio = ($1 ~ /^create/ && f > 0) ? sprintf("%.1fx", $5 / f) : "-"
    printf "| %s | %s | %s | %.0f | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s | %s |\n",
      $1, $2, $3, $4, $5, $6, ratio, $7, $8, $9, $10, $11, $12, $13, $14 }'
} >"$OUT/sweep.md"
cat "$OUT/sweep.md"

# The plot: throughput (left) and p50/p99 (right) against connections, one line per route.
plots_rps=""; plots_lat=""
for route in $ROUTES; do
  awk -F'\t' -v r="$route" '$1 == r' "$OUT/sweep.tsv" >"$OUT/$route.dat"
  plots_rps+="'$OUT/$route.dat' using 2:4 with linespoints title '$route', "
  plots_lat+="'$OUT/$route.dat' using 2:5 with linespoints title '$route p50', "
  plots_lat+="'$OUT/$route.dat' using 2:6 with linespoints dashtype 2 title '$route p99', "
done
gnuplot <<GNUPLOT
set terminal pngcairo size 1400,560 font ",10" noenhanced
set output '$OUT/sweep.png'
set multiplot layout 1,2 title "duepay create/status sweep (floor p50 ${FLOOR_P50} ms) $(date -u +%FT%TZ)"
set logscale x 2
set xlabel 'connections'
set grid
set key left top
set ylabel 'requests/s'
set logscale y
plot ${plots_rps%, }
set ylabel 'latency (ms)'
plot ${plots_lat%, }, ${FLOOR_P50:-0} with lines lw 2 lc rgb 'black' title 'floor p50'
unset multiplot
GNUPLOT
log "table $OUT/sweep.md, plot $OUT/sweep.png"
