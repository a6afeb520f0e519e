#!/usr/bin/env bash
# Report bench: GET /v1/reports/settlements?format=csv (and json) streaming ROWS seeded rows of one
# project through `duepay api`, read by curl as fast as it takes them; prints rows/s and the api
# process's peak RSS (VmHWM) before and after, which must stay flat however many rows stream
# (docs/reports.md, ADR 0240). The rows are seeded by SQL straight into Postgres
# (bench/reports/seed.sql). Target: >= 100,000 rows/s, the peak RSS growing by a bounded amount
# (a few pages) whatever ROWS is. Last, the floor: Postgres alone copying the same rows out as CSV.
#
#   make stack-up && bench/reports/run.sh                  # 1,000,000 rows
#   ROWS=10000 bench/reports/run.sh                        # smoke run, seconds
#   SEED=0 bench/reports/run.sh                            # reuse the rows of the last run
#
# It starts its own `$DUEPAY_BIN api` on a free loopback port (so the RSS is that process's
# alone) and stops it at the end. Run it in a private network namespace on a shared machine.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_setup curl psql python3
ROWS="${ROWS:-1000000}"
SEED="${SEED:-1}"
KEY="dp_test_benchreports000000000000000000000000000000001"

if [[ "$SEED" == 1 ]]; then
  echo "== seeding $ROWS settlement rows (bench/reports/seed.sql)"
  start=$(date +%s)
  psql -X -q -d "$DATABASE_URL" -v rows="$ROWS" -v key="$KEY" -f "$ROOT/bench/reports/seed.sql"
  echo "seeded in $(( $(date +%s) - start )) s"
  psql -X -q -d "$(superuser_url "$DATABASE_URL")" -c checkpoint
fi

port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
api="http://127.0.0.1:$port"
"$BIN" api --listen "127.0.0.1:$port" >"$OUT/reports-api.log" 2>&1 &
API_PID=$!
trap 'kill -TERM "$API_PID" 2>/dev/null; wait "$API_PID" 2>/dev/null || true' EXIT
for _ in $(seq 1 100); do curl -sf -m 1 "$api/healthz" >/dev/null && break; sleep 0.2; done
curl -sf -m 2 "$api/healthz" >/dev/null || { echo "api not answering on $api" >&2; exit 1; }

PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || echo 0)"
TCK="$(getconf CLK_TCK)"
hwm() { sed -n 's/^VmHWM:[[:space:]]*\([0-9]*\) kB/\1/p' "/proc/$API_PID/status"; }
url="$api/v1/reports/settlements?from=2026-01-01&to=2027-01-01"
echo "== api pid $API_PID, peak RSS before: $(hwm) kB"
for format in csv json; do
  before="$(hwm)"
  a0="$(ticks_of "$API_PID")"; p0="$(tree_ticks "$PG_PID")"
  start=$(date +%s%N)
  curl -sS -f -N -H "x-api-key: $KEY" "$url&format=$format" -o "$OUT/reports.$format"
  ns=$(( $(date +%s%N) - start ))
  a1="$(ticks_of "$API_PID")"; p1="$(tree_ticks "$PG_PID")"
  if [[ "$format" == csv ]]; then
    rows=$(( $(wc -l <"$OUT/reports.csv") - 1 ))
  else
    rows="$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["data"]))' "$OUT/reports.json")"
  fi
  [[ "$rows" == "$ROWS" ]] || { echo "$format: $rows rows streamed, $ROWS seeded" >&2; exit 1; }
  awk -v r="$rows" -v ns="$ns" -v b="$before" -v a="$(hwm)" -v f="$format" -v s="$(stat -c %s "$OUT/reports.$format")" \
    -v ac="$(( a1 - a0 ))" -v pc="$(( p1 - p0 ))" -v hz="$TCK" \
    'BEGIN { printf "%s: %d rows, %.1f MB in %.2f s: %.0f rows/s; api peak RSS %d -> %d kB; cpu per row: api %.2f us, postgres %.2f us\n", f, r, s / 1e6, ns / 1e9, r / (ns / 1e9), b, a, ac / hz * 1e6 / r, pc / hz * 1e6 / r }'
done

# The floor in the same run: Postgres alone writing the same rows as CSV (COPY, in key order) to
# psql, which throws them away. The api's rows/s over this is the figure's ratio.
start=$(date +%s%N)
psql -X -q -d "$DATABASE_URL" -c "\\copy (select * from settlement_lines where project_id = 'prj_bench_reports' and mode = 'test' order by confirmed_at, invoice_id, kind, tx_hash, log_index) to '/dev/null' csv"
ns=$(( $(date +%s%N) - start ))
awk -v r="$ROWS" -v ns="$ns" 'BEGIN { printf "floor (psql \\copy of the same rows): %.2f s: %.0f rows/s\n", ns / 1e9, r / (ns / 1e9) }'
