#!/usr/bin/env bash
# Load bench of the write and read paths with wrk (bench/RESULTS.md, "Load: create and status").
#
#   make stack-up && bench/load/run.sh            # uses var/dev.env
#   DURATION=20 CONNECTIONS=64 bench/load/run.sh
#
# If nothing answers on $DUEPAY_BASE_URL/healthz, the script starts `$DUEPAY_BIN dev` (default
# build/duepay) with the access log in var/bench/ and stops it at the end.
# Phase 1 (after a 3 s warm-up): POST /v1/invoices for $DURATION s (every 201 is durable in Kafka and projected).
# Phase 2: GET /v1/charges/:id/status over up to 5,000 ids of the demo project for $DURATION s.
# Phase 3: full-validation creates (amount, THB and USD fiat, every field). Phase 4: 90% status, 10% creates.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
ENV_FILE="${DUEPAY_ENV_FILE:-$ROOT/var/dev.env}"
[[ -f "$ENV_FILE" ]] || { echo "no $ENV_FILE: run make stack-up first" >&2; exit 2; }
set -a; source "$ENV_FILE"; set +a
command -v wrk >/dev/null || { echo "wrk not installed (scripts/install-deps.sh)" >&2; exit 2; }
BIN="${DUEPAY_BIN:-$ROOT/build/duepay}"
DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"
BASE="${DUEPAY_BASE_URL:-http://127.0.0.1:8080}"
OUT="$ROOT/var/bench"
mkdir -p "$OUT"

if [[ -z "${DUEPAY_DEMO_TEST_KEY:-}" ]]; then
  DUEPAY_DEMO_TEST_KEY="$("$BIN" admin demo | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')"
fi
export DUEPAY_DEMO_TEST_KEY

started=""
if ! curl -sf -m 2 "$BASE/healthz" >/dev/null; then
  echo "starting $BIN dev (log $OUT/dev.log)" >&2
  "$BIN" dev >"$OUT/dev.log" 2>&1 &
  started=$!
  trap '[[ -n "$started" ]] && kill -TERM "$started" 2>/dev/null && wait "$started" || true' EXIT
  for _ in $(seq 1 100); do curl -sf -m 1 "$BASE/healthz" >/dev/null && break; sleep 0.2; done
fi
curl -sf -m 2 "$BASE/healthz" >/dev/null || { echo "API not answering on $BASE" >&2; exit 1; }

# Warm-up (not reported): the first creates of a fresh process wait for the producer id and the
# projector's first assignment.
wrk -t1 -c4 -d3s -s "$ROOT/bench/load/create.lua" "$BASE" >/dev/null

echo "== create: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s -s bench/load/create.lua $BASE"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$ROOT/bench/load/create.lua" "$BASE" | tee "$OUT/create.txt"

psql -X -q -tA -d "$DATABASE_URL" \
  -c "select invoice_id from charges where project_id = 'prj_demo' order by created_at desc limit 5000" >"$OUT/ids.txt"
export DUEPAY_BENCH_IDS="$OUT/ids.txt"
echo "== status over $(wc -l <"$OUT/ids.txt") ids: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s -s bench/load/status.lua $BASE"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$ROOT/bench/load/status.lua" "$BASE" | tee "$OUT/status.txt"

echo "== create_full (amount and fiat, every field): wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s -s bench/load/create_full.lua $BASE"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$ROOT/bench/load/create_full.lua" "$BASE" | tee "$OUT/create_full.txt"

echo "== mixed 90% status / 10% fiat creates: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s -s bench/load/mixed.lua $BASE"
wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency -s "$ROOT/bench/load/mixed.lua" "$BASE" | tee "$OUT/mixed.txt"
