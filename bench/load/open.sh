#!/usr/bin/env bash
# Open-model load bench (bench/README.md, "The open-model bench"): requests arrive at a constant
# rate whatever the server's latency (vegeta), so queueing shows in the latency, which wrk's
# closed loop (run.sh, sweep.sh) hides. With every role on, each its own process: its own
# `duepay dev --supervise --with-chainwatch --with-webhooks` (what `make run` starts: api,
# checkout, projector, chainwatch, webhooks, dashboard), nothing else may answer on
# $DUEPAY_BASE_URL. Two figures:
#   1. creates: the highest arrival rate of POST /v1/invoices (the body of create.lua) that holds
#      p99 <= P99_MS with every answer a 201 for DURATION s. Steps up from RATE_START by STEP
#      (at most MAX_STEPS) while a step holds, then BISECT steps of bisection between the last
#      rate that held and the first that did not;
#   2. status: p99 of GET /v1/charges/:id/status at STATUS_RATE reads/s for DURATION s, over the
#      newest 5,000 test charges of the demo project (the ids status.lua reads).
# And with PHASES containing "rest" (first, before any traffic): REST_SECONDS s with no request
# at all, each process's CPU as a share of one core (rest.tsv, the "at rest" line of open.md).
# Each step after a WARMUP s of creates at RATE_START (not reported) and PAUSE s apart; for each:
# target and sent rate, p50/p99/max, the share of expected answers (201 / 200), and the CPU per
# request of each role's process, the supervisor, the Kafka broker and the Postgres cluster
# (utime + stime from /proc, as sweep.sh). Output in var/bench/open-<UTC>/: open.md (the table),
# open.tsv, each step's vegeta report (<phase>-<rate>.json/.txt), dev.log.
#
#   bench/load/open.sh install     # only installs vegeta (needs the network: before unshare -n)
#   make build && bench/load/open.sh install
#   unshare -n bash -c 'ip link set lo up && DUEPAY_BIN=$PWD/build/duepay \
#     scripts/with-stack.sh bench/load/open.sh'
#   SMOKE=1 ...open.sh             # proves the script: 3 s steps at 20-40/s, 200 reads/s
#
# Knobs (defaults; SMOKE=1 in brackets): RATE_START 500 [20], STEP 500 [20], MAX_STEPS 8 [2],
# BISECT 4 [1], DURATION 60 [3] s per step, P99_MS 25, STATUS_RATE 20000 [200], WARMUP 30 [2] s,
# PAUSE 10 [1] s between steps, PHASES "create status" (add "rest"), REST_SECONDS 30 [3],
# VEGETA_FLAGS (none; e.g. "-workers=64 -max-workers=64 -connections=64" to hold vegeta's own
# goroutines and connections to a fixed pool at high rates). The
# roles read the usual environment (docs/operations.md; e.g. DUEPAY_ACCESS_LOG=0). Longest run: WARMUP + (MAX_STEPS + BISECT + 1)
# x (DURATION + PAUSE), printed at the start (defaults: 940 s).
#
# vegeta (github.com/tsenart/vegeta/v12 at VEGETA_VERSION) is installed on demand into
# var/tools/bin with `go install` (GO, default /usr/local/go/bin/go); never in CI.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"

VEGETA_VERSION="${VEGETA_VERSION:-v12.13.0}"
VEGETA="$ROOT/var/tools/bin/vegeta"
GO="${GO:-/usr/local/go/bin/go}"
# The vegeta of VEGETA_VERSION in var/tools/bin (the module version its build records).
ensure_vegeta() {
  if [[ -x "$VEGETA" ]] && "$GO" version -m "$VEGETA" 2>/dev/null |
    grep -qE "^[[:space:]]*mod[[:space:]]+github.com/tsenart/vegeta/v12[[:space:]]+$VEGETA_VERSION[[:space:]]"; then
    return
  fi
  [[ -x "$GO" ]] || { echo "no Go at $GO (GO=...): needed to install vegeta" >&2; exit 2; }
  echo "installing vegeta $VEGETA_VERSION into $ROOT/var/tools/bin" >&2
  mkdir -p "$ROOT/var/tools/bin"
  GOBIN="$ROOT/var/tools/bin" "$GO" install "github.com/tsenart/vegeta/v12@$VEGETA_VERSION"
}
if [[ "${1:-}" == install ]]; then ensure_vegeta; exit 0; fi

if [[ "${SMOKE:-0}" == 1 ]]; then
  : "${RATE_START:=20}" "${STEP:=20}" "${MAX_STEPS:=2}" "${BISECT:=1}" "${DURATION:=3}"
  : "${STATUS_RATE:=200}" "${WARMUP:=2}" "${PAUSE:=1}" "${REST_SECONDS:=3}"
fi
RATE_START="${RATE_START:-500}"
STEP="${STEP:-500}"
MAX_STEPS="${MAX_STEPS:-8}"
BISECT="${BISECT:-4}"
DURATION="${DURATION:-60}"
P99_MS="${P99_MS:-25}"
STATUS_RATE="${STATUS_RATE:-20000}"
WARMUP="${WARMUP:-30}"
PAUSE="${PAUSE:-10}"
PHASES="${PHASES:-create status}"
REST_SECONDS="${REST_SECONDS:-30}"

bench_setup psql curl node
ensure_vegeta
OUT="$OUT/open-$(date -u +%Y%m%dT%H%M%SZ)"
mkdir -p "$OUT"
TCK="$(getconf CLK_TCK)"
log() { printf '[open] %s\n' "$*" >&2; }
ROLES=(api checkout projector chainwatch webhooks dashboard)
KAFKA_PID="$(cat "$ROOT/var/kafka/kafka.pid" 2>/dev/null || true)"
PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || true)"

if [[ -z "${DUEPAY_DEMO_TEST_KEY:-}" ]]; then
  DUEPAY_DEMO_TEST_KEY="$("$BIN" admin demo | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')"
fi
[[ -n "$DUEPAY_DEMO_TEST_KEY" ]] || { echo "no demo key from $BIN admin demo" >&2; exit 1; }

if curl -sf -m 2 "$BASE/healthz" >/dev/null; then
  echo "something already answers on $BASE: stop it, the bench measures its own duepay dev" >&2
  exit 2
fi
longest=$((WARMUP + (MAX_STEPS + BISECT + 1) * (DURATION + PAUSE)))
{
  echo "# open-model bench $(date -u +%FT%TZ) on $(hostname), $(nproc) cpus, load average $(cut -d' ' -f1-3 /proc/loadavg)"
  echo "# $("$BIN" --version 2>/dev/null || echo "$BIN"), git $(git -C "$ROOT" rev-parse --short HEAD), vegeta $VEGETA_VERSION"
  echo "# creates: from $RATE_START/s by $STEP (at most $MAX_STEPS steps), then $BISECT of bisection; hold: p99 <= $P99_MS ms, every answer 201, ${DURATION} s; status at $STATUS_RATE/s"
} >"$OUT/open.meta"
cat "$OUT/open.meta" >&2
log "at most $longest s of load after the roles are up (output $OUT)"

log "starting $BIN dev --supervise --with-chainwatch --with-webhooks (log $OUT/dev.log)"
"$BIN" dev --supervise --with-chainwatch --with-webhooks >"$OUT/dev.log" 2>&1 &
DEV_PID=$!
cleanup() { kill -TERM "$DEV_PID" 2>/dev/null && wait "$DEV_PID" 2>/dev/null; true; }
trap cleanup EXIT
for _ in $(seq 1 150); do curl -sf -m 1 "$BASE/healthz" >/dev/null && break; sleep 0.2; done
curl -sf -m 2 "$BASE/healthz" >/dev/null || { tail -20 "$OUT/dev.log" >&2; echo "API not answering on $BASE" >&2; exit 1; }

# vegeta's JSON targets: one create as create.lua sends it, and one status read per id.
header="{\"x-api-key\":[\"$DUEPAY_DEMO_TEST_KEY\"],\"content-type\":[\"application/json\"],\"Connection\":[\"keep-alive\"]}"
body="$(sed -n "s/^ *wrk.body = '\(.*\)'$/\1/p" "$ROOT/bench/load/create.lua")"
[[ -n "$body" ]] || { echo "no wrk.body in bench/load/create.lua" >&2; exit 1; }
printf '{"method":"POST","url":"%s/v1/invoices","header":%s,"body":"%s"}\n' \
  "$BASE" "$header" "$(printf '%s' "$body" | base64 -w0)" >"$OUT/create.targets"

# One attack: PHASE RATE SECONDS [LABEL]. Writes $OUT/<label>.json and .txt, and sets REQUESTS.
attack() {
  local phase="$1" rate="$2" seconds="$3" label="${4:-$1-$2}"
  # shellcheck disable=SC2086 # VEGETA_FLAGS is a list of flags
  "$VEGETA" attack -format=json -targets="$OUT/$phase.targets" -rate="$rate/1s" \
    -duration="${seconds}s" -timeout=10s ${VEGETA_FLAGS:-} >"$OUT/$label.bin"
  "$VEGETA" report -type=json <"$OUT/$label.bin" >"$OUT/$label.json"
  "$VEGETA" report -type=text <"$OUT/$label.bin" >"$OUT/$label.txt"
  rm -f "$OUT/$label.bin"
}

# "requests sent_rate p50_ms p99_ms max_ms ok_ratio errors" of a report; ok: the answers with
# code $2 (any other code and every transport error count against it).
summary() {
  node -e '
    const r = JSON.parse(require("fs").readFileSync(process.argv[1], "utf8"));
    const n = r.requests, ok = (r.status_codes || {})[process.argv[2]] || 0, ms = (ns) => (ns / 1e6).toFixed(2);
    console.log([n, r.rate.toFixed(1), ms(r.latencies["50th"]), ms(r.latencies["99th"]),
      ms(r.latencies.max), n > 0 ? (ok / n).toFixed(4) : "0", n - ok].join(" "));
  ' "$1" "$2"
}

# The processes measured, as "name pid" lines: each role (a child `duepay dev --only <role>`, read
# anew before each step: the supervisor restarts a role that dies), the supervisor, broker, Postgres.
procs() {
  local p
  for p in $(pgrep -P "$DEV_PID" || true); do echo "$(role_of "$p") $p"; done
  echo "supervisor $DEV_PID"
}
# CPU ticks of each column of CPU_COLUMNS, one per line ("-" for a process not found).
CPU_COLUMNS=("${ROLES[@]}" supervisor broker postgres)
cpu_ticks() {
  local name pid
  declare -A pid_of=()
  while read -r name pid; do pid_of[$name]="$pid"; done < <(procs)
  for name in "${ROLES[@]}" supervisor; do
    if [[ -n "${pid_of[$name]:-}" ]]; then echo "${pid_of[$name]}:$(ticks_of "${pid_of[$name]}")"; else echo "-"; fi
  done
  echo "${KAFKA_PID:-0}:$(ticks_of "${KAFKA_PID:-0}")"
  echo "${PG_PID:-0}:$(tree_ticks "${PG_PID:-0}")"
}
# CPU us per request of each column between two cpu_ticks outputs ($1 $2, "-" when the process
# changed or was missing) for $3 requests, tab-separated.
cpu_per_request() {
  paste -d' ' <(echo "$1") <(echo "$2") | awk -v n="$3" -v hz="$TCK" '{
    split($1, a, ":"); split($2, b, ":")
    v = ($1 == "-" || $2 == "-" || a[1] != b[1] || n == 0) ? "-" : sprintf("%.0f", (b[2] - a[2]) / hz * 1e6 / n)
    printf "%s%s", (NR > 1 ? "\t" : ""), v } END { print "" }'
}

TSV="$OUT/open.tsv"
printf 'phase\trate\tsent_per_s\trequests\tp50_ms\tp99_ms\tmax_ms\tok_ratio\terrors\tverdict' >"$TSV"
printf '\t%s_us' "${CPU_COLUMNS[@]}" >>"$TSV"
echo >>"$TSV"

# One measured step: PHASE RATE EXPECTED_CODE. Appends its row; returns 0 when it held (every
# answer the expected code, p99 <= P99_MS).
step() {
  local phase="$1" rate="$2" code="$3" c0 c1 requests sent p50 p99 max ok errors verdict
  c0="$(cpu_ticks)"
  attack "$phase" "$rate" "$DURATION"
  c1="$(cpu_ticks)"
  read -r requests sent p50 p99 max ok errors < <(summary "$OUT/$phase-$rate.json" "$code")
  verdict="$(awk -v p="$p99" -v lim="$P99_MS" -v e="$errors" -v n="$requests" \
    'BEGIN { print (n > 0 && e == 0 && p <= lim) ? "holds" : "fails" }')"
  printf '%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\t%s\n' "$phase" "$rate" "$sent" "$requests" \
    "$p50" "$p99" "$max" "$ok" "$errors" "$verdict" "$(cpu_per_request "$c0" "$c1" "$requests")" |
    tee -a "$TSV" >&2
  sleep "$PAUSE"
  [[ "$verdict" == holds ]]
}

if [[ " $PHASES " == *" rest "* ]]; then
  log "at rest: $REST_SECONDS s with no request (after 10 s to settle)"
  sleep 10
  c0="$(cpu_ticks)"
  sleep "$REST_SECONDS"
  c1="$(cpu_ticks)"
  # Each column's share of one core over the window ("-" for a process that changed or was missing).
  rest="$(paste -d' ' <(echo "$c0") <(echo "$c1") | awk -v s="$REST_SECONDS" -v hz="$TCK" '{
    split($1, a, ":"); split($2, b, ":")
    v = ($1 == "-" || $2 == "-" || a[1] != b[1]) ? "-" : sprintf("%.1f%%", (b[2] - a[2]) / hz / s * 100)
    printf "%s%s", (NR > 1 ? "\t" : ""), v } END { print "" }')"
  printf '%s\n%s\n' "$(printf '%s\t' "${CPU_COLUMNS[@]}" | sed 's/\t$//')" "$rest" >"$OUT/rest.tsv"
  echo "at rest ($REST_SECONDS s): $(paste <(printf '%s\n' "${CPU_COLUMNS[@]}") <(echo "$rest" | tr '\t' '\n') | awk '{ printf "%s%s %s", (NR > 1 ? ", " : ""), $1, $2 }')" |
    tee "$OUT/rest.result" >&2
fi

if [[ " $PHASES " == *" create "* ]]; then
  log "warm-up: ${WARMUP} s of creates at $RATE_START/s (not reported)"
  attack create "$RATE_START" "$WARMUP" warmup
  held=0 failed=0 rate="$RATE_START"
  for ((i = 0; i < MAX_STEPS; i++)); do
    log "create at $rate/s for $DURATION s"
    if step create "$rate" 201; then held="$rate"; rate=$((rate + STEP)); else failed="$rate"; break; fi
  done
  if ((failed > 0)); then
    for ((i = 0; i < BISECT; i++)); do
      mid=$(((held + failed) / 2))
      ((mid > held && mid < failed)) || break
      log "bisect: create at $mid/s (holds at $held, fails at $failed)"
      if step create "$mid" 201; then held="$mid"; else failed="$mid"; fi
    done
    if ((held > 0)); then
      echo "creates: highest rate that held: $held/s (p99 <= $P99_MS ms, all 201, ${DURATION} s); fails at $failed/s"
    else
      echo "creates: no rate held (p99 <= $P99_MS ms, all 201, ${DURATION} s), down to $failed/s"
    fi | tee "$OUT/create.result"
  else
    echo "creates: every step held up to $held/s: the limit is higher (raise RATE_START, STEP or MAX_STEPS)" |
      tee "$OUT/create.result"
  fi
fi

if [[ " $PHASES " == *" status "* ]]; then
  psql -X -q -tA -d "$DATABASE_URL" -c "select invoice_id from charges where project_id = \
'prj_demo' and mode = 'test' order by created_at desc limit 5000" >"$OUT/ids.txt"
  [[ -s "$OUT/ids.txt" ]] || { echo "no test charges of prj_demo to read" >&2; exit 1; }
  while read -r id; do
    printf '{"method":"GET","url":"%s/v1/charges/%s/status","header":%s}\n' "$BASE" "$id" "$header"
  done <"$OUT/ids.txt" >"$OUT/status.targets"
  log "status at $STATUS_RATE/s for $DURATION s over $(wc -l <"$OUT/ids.txt") ids"
  step status "$STATUS_RATE" 200 || true
  awk -F'\t' '$1 == "status" { printf "status: p99 %s ms at %s reads/s (sent %s/s, p50 %s ms, max %s ms, ok %s)\n", $6, $2, $3, $5, $7, $8 }' \
    "$TSV" | tee "$OUT/status.result"
fi

# The Markdown table.
{
  cat "$OUT/open.meta"
  echo
  cat "$OUT"/*.result 2>/dev/null || true
  echo
  printf '| phase | rate/s | sent/s | requests | p50 ms | p99 ms | max ms | ok | errors | p99 <= %s ms, no errors |' "$P99_MS"
  printf ' %s |' "${CPU_COLUMNS[@]/%/ us\/req}"
  echo
  printf '|---|---:|---:|---:|---:|---:|---:|---:|---:|---|'
  printf -- '---:|%.0s' "${CPU_COLUMNS[@]}"
  echo
  tail -n +2 "$TSV" | awk -F'\t' '{ s = "|"; for (i = 1; i <= NF; i++) s = s " " $i " |"; print s }'
} >"$OUT/open.md"
cat "$OUT/open.md"
log "table $OUT/open.md"
