#!/usr/bin/env bash
# bench/load/sweep.sh at tiny counts against the dev stack: every route x connection count gives a
# row with requests and no non-2xx, creates carry a ratio to the floor, and the plot is written.
# Exit 77 (skipped) without the dev stack's variables.
set -euo pipefail
BUILD="$1"
[[ -n "${DATABASE_URL:-}" && -n "${KAFKA_BOOTSTRAP:-}" ]] || { echo "no dev stack: skipped"; exit 77; }
OUT="$BUILD/bench-sweep-smoke"
rm -rf "$OUT"
BUILD="$BUILD" OUT="$OUT" WARMUP=1 DURATION=1 CONNECTIONS_LIST="1 4" ROUTES="create status" FLOOR_COUNT=20 \
  bench/load/sweep.sh
fail() { echo "FAIL: $*" >&2; exit 1; }
[[ -s "$OUT/sweep.png" ]] || fail "no plot"
rows="$(grep -cE '^\| (create|status) \| [0-9]+ \|' "$OUT/sweep.md")"
[[ "$rows" == 4 ]] || fail "expected 4 rows in sweep.md, got $rows"
# route connections requests req/s p50 p99 non2xx duepay_us broker_us postgres_us pg_ha_us
# duepay_cs idle_pct steal_pct (pg_ha_us: pg_auto_failover's CPU, "-" on a single node)
awk -F'\t' 'NR > 1 && ($3 < 1 || $7 != 0 || $8 <= 0) { bad = 1; print "bad row: " $0 }
  END { exit bad }' "$OUT/sweep.tsv" || fail "a run had no requests, non-2xx or no duepay CPU"
awk -F'\t' 'NR > 1 && (NF != 14 || $11 != "-" || $13 !~ /^[0-9]+$/ || $13 > 100 ||
  $14 !~ /^[0-9]+$/ || $14 > 100) { bad = 1; print "bad machine shares: " $0 } END { exit bad }' \
  "$OUT/sweep.tsv" ||
  fail "a run without the machine's idle and steal shares (0-100 %)"
grep -qE '^\| create \| 1 \| .* \| [0-9.]+x \|' "$OUT/sweep.md" || fail "create row without ratio to the floor"
echo "sweep smoke ok"
