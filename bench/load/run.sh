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
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_setup wrk
DURATION="${DURATION:-15}"
CONNECTIONS="${CONNECTIONS:-32}"
THREADS="${THREADS:-2}"

if [[ -z "${DUEPAY_DEMO_TEST_KEY:-}" ]]; then
  DUEPAY_DEMO_TEST_KEY="$("$BIN" admin demo | sed -n 's/.*"key":"\([^"]*\)".*/\1/p')"
fi
export DUEPAY_DEMO_TEST_KEY

bench_ensure_api dev.log

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
