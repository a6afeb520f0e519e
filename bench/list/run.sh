#!/usr/bin/env bash
# List bench (bench/RESULTS.md, "Listing charges"): GET /v1/charges over a read model of ROWS
# charges of one project, first and deep pages, unfiltered and filtered, at CONNECTIONS
# connections. The rows are seeded by SQL straight into Postgres (bench/list/seed.sql), not
# through Kafka: 1,000,000 charges through the API would take hours and measure the write path.
#
#   make stack-up && bench/list/run.sh                       # 1,000,000 rows, 16 connections, 20 s
#   ROWS=10000 DURATION=3 bench/list/run.sh                  # smoke run, seconds
#   SEED=0 bench/list/run.sh                                 # reuse the rows of the last run
#
# If nothing answers on $DUEPAY_BASE_URL/healthz, the script starts `$DUEPAY_BIN dev` (default
# build/duepay) and stops it at the end. Each page also prints the CPU per request of duepay and of
# Postgres (`cpu:` line; the duepay figure needs DUEPAY_PID when the api was already running).
# Target: p99 <= 10 ms for the first and the deep page at 16 connections.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_setup wrk psql
ROWS="${ROWS:-1000000}"
DURATION="${DURATION:-20}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
SEED="${SEED:-1}"
export DUEPAY_BENCH_KEY="dp_test_benchlist0000000000000000000000000000000001"

if [[ "$SEED" == 1 ]]; then
  echo "== seeding $ROWS charges into the read model (bench/list/seed.sql)"
  start=$(date +%s)
  psql -X -q -d "$DATABASE_URL" -v rows="$ROWS" -v key="$DUEPAY_BENCH_KEY" -f "$ROOT/bench/list/seed.sql"
  echo "seeded in $(( $(date +%s) - start )) s"
  # Write the seed's pages out now: otherwise the checkpoint its WAL triggers runs through the
  # whole bench (93 s at 1,000,000 rows, 20:38-20:40 UTC in bench/RESULTS.md), and its CPU and
  # write-back land on the pages measured. CHECKPOINT needs the stack's superuser, postgres.
  psql -X -q -d "$(superuser_url "$DATABASE_URL")" -c checkpoint
fi

bench_ensure_api list-dev.log

# The cursor of a deep page: the row at 90% depth of the newest-first order (the cursor format of
# api/http/charge_list.hpp), overall and among the paid ones.
cursor_at() {  # $1: extra where clause
  psql -X -q -tA -d "$DATABASE_URL" -c "
    select 'c1_' || lpad(to_hex((extract(epoch from created_at) * 1000000)::bigint), 16, '0')
           || substr(invoice_id, 3)
    from charges where project_id = 'prj_bench_list' and mode = 'test' $1
    order by created_at desc, invoice_id desc
    offset (select (count(*) * 9 / 10)::int from charges where project_id = 'prj_bench_list' $1)
    limit 1"
}
deep="$(cursor_at "")"
deep_paid="$(cursor_at "and status = 'paid'")"
middle=$(( ROWS / 2 ))

# CPU per request of the api (the duepay dev started here, or DUEPAY_PID) and of Postgres (the
# postmaster and its backends), from /proc over each wrk run.
API_PID="${BENCH_DEV_PID:-${DUEPAY_PID:-0}}"
PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || echo 0)"
TCK="$(getconf CLK_TCK)"
run() {  # $1: name, $2: path
  echo "== $1: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency -s bench/list/list.lua $BASE$2"
  curl -sf -m 5 -o "$OUT/list-$1.json" -H "x-api-key: $DUEPAY_BENCH_KEY" "$BASE$2"
  head -c 120 "$OUT/list-$1.json"; echo
  local d0 p0 n
  d0="$(ticks_of "$API_PID")"; p0="$(tree_ticks "$PG_PID")"
  DUEPAY_LIST_PATH="$2" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency \
    -s "$ROOT/bench/list/list.lua" "$BASE" | tee "$OUT/list-$1.txt" | grep -E "^list:|Socket errors" || true
  n="$(sed -n 's/^list: \([0-9]*\) requests.*/\1/p' "$OUT/list-$1.txt")"
  awk -v d="$(( $(ticks_of "$API_PID") - d0 ))" -v p="$(( $(tree_ticks "$PG_PID") - p0 ))" \
    -v n="${n:-0}" -v hz="$TCK" -v api="$API_PID" 'BEGIN { if (n > 0) printf \
    "cpu: duepay %s us/request, postgres %.0f us/request\n", \
    (api > 0 ? sprintf("%.0f", d / hz * 1e6 / n) : "(DUEPAY_PID not given)"), p / hz * 1e6 / n }'
}
run first "/v1/charges?limit=20"
run deep "/v1/charges?limit=20&cursor=$deep"
run first-paid "/v1/charges?limit=20&status=paid"
run deep-paid "/v1/charges?limit=20&status=paid&cursor=$deep_paid"
run first-range "/v1/charges?limit=20&createdLt=$(date -u -d '-10 days' +%Y-%m-%dT%H:%M:%SZ)"
run reference "/v1/charges?reference=ord-$middle"
run metadata "/v1/charges?metadata%5Border_id%5D=ord-$middle"
run metadata-common "/v1/charges?limit=20&metadata%5Bchannel%5D=pos"
