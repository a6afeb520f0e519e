#!/usr/bin/env bash
# Overview bench (docs/adr/0245): GET /p/{id} of the dashboard, the last 30 and the last 90
# days, over a project of ROWS charges (bench/dashboard/seed.sql: the charges and their stats
# read model, seeded by SQL straight into Postgres), at CONNECTIONS connections. The session
# cookies are minted by the seed (SESSIONS dashboard_sessions rows holding the SHA-256 of random
# tokens, as the session store keeps them; every page touches its session's row, so the requests
# take them in turn). Target: p99 <= 50 ms at 16 connections, at 1,000,000 charges.
#
#   make stack-up && bench/dashboard/run.sh               # 1,000,000 charges, 16 connections, 20 s
#   ROWS=2000 DURATION=2 bench/dashboard/run.sh           # smoke run, seconds
#   SEED=0 bench/dashboard/run.sh                         # reuse the rows of the last run
#
# If nothing answers on $DUEPAY_DASHBOARD_URL/healthz (default http://127.0.0.1:8082), the
# script starts `$DUEPAY_BIN dashboard` and stops it at the end. Each run prints the CPU per
# request of the dashboard (when started here) and of Postgres.
set -euo pipefail
# shellcheck source=bench/lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
bench_setup wrk psql curl
ROWS="${ROWS:-1000000}"
DURATION="${DURATION:-20}"
CONNECTIONS="${CONNECTIONS:-16}"
THREADS="${THREADS:-2}"
SEED="${SEED:-1}"
SESSIONS="${SESSIONS:-64}"
DASH="${DUEPAY_DASHBOARD_URL:-http://127.0.0.1:8082}"
TOKEN_FILE="$OUT/overview-session-tokens"

if [[ "$SEED" == 1 || ! -s "$TOKEN_FILE" ]]; then
  token="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  echo "== seeding $ROWS charges and their stats (bench/dashboard/seed.sql)"
  start=$(date +%s)
  psql -X -q -d "$DATABASE_URL" -v rows="$ROWS" -v sessions="$SESSIONS" -v token="$token" \
    -f "$ROOT/bench/dashboard/seed.sql"
  echo "seeded in $(( $(date +%s) - start )) s"
  for n in $(seq 1 "$SESSIONS"); do printf '%s' "$token$n" | sha256sum | cut -d' ' -f1; done \
    >"$TOKEN_FILE"
  # Write the seed's pages out now, not during the runs (as bench/list/run.sh).
  psql -X -q -d "$(superuser_url "$DATABASE_URL")" -c checkpoint
fi
export DUEPAY_BENCH_COOKIES
DUEPAY_BENCH_COOKIES="$(tr '\n' ' ' <"$TOKEN_FILE")"
cookie="$(head -1 "$TOKEN_FILE")"

DASH_PID=0
if ! curl -sf -m 2 "$DASH/healthz" >/dev/null; then
  echo "starting $BIN dashboard (log $OUT/overview-dashboard.log)" >&2
  DUEPAY_DASHBOARD_URL="$DASH" DUEPAY_ACCESS_LOG=0 "$BIN" dashboard >"$OUT/overview-dashboard.log" 2>&1 &
  DASH_PID=$!
  trap 'kill -TERM "$DASH_PID" 2>/dev/null; wait "$DASH_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do curl -sf -m 1 "$DASH/healthz" >/dev/null && break; sleep 0.2; done
fi
curl -sf -m 2 "$DASH/healthz" >/dev/null || { echo "dashboard not answering on $DASH" >&2; exit 1; }

PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || echo 0)"
TCK="$(getconf CLK_TCK)"
run() {  # $1: name, $2: path
  echo "== $1: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency -s bench/dashboard/overview.lua $DASH$2"
  # One request first: the page must answer 200 with the seeded figures.
  local status
  status="$(curl -s -m 5 -o "$OUT/overview-$1.html" -w '%{http_code}' \
    -H "cookie: duepay_session=$cookie" "$DASH$2")"
  [[ "$status" == 200 ]] || { echo "GET $2 answered $status" >&2; exit 1; }
  grep -o 'data-test="created">[0-9]*' "$OUT/overview-$1.html" | head -1 || true
  local d0 p0 n
  d0="$(ticks_of "$DASH_PID")"; p0="$(tree_ticks "$PG_PID")"
  DUEPAY_OVERVIEW_PATH="$2" wrk -t"$THREADS" -c"$CONNECTIONS" -d"${DURATION}s" --latency \
    -s "$ROOT/bench/dashboard/overview.lua" "$DASH" | tee "$OUT/overview-$1.txt" |
    grep -E "^overview:|Socket errors" || true
  n="$(sed -n 's/^overview: \([0-9]*\) requests.*/\1/p' "$OUT/overview-$1.txt")"
  awk -v d="$(( $(ticks_of "$DASH_PID") - d0 ))" -v p="$(( $(tree_ticks "$PG_PID") - p0 ))" \
    -v n="${n:-0}" -v hz="$TCK" -v dash="$DASH_PID" 'BEGIN { if (n > 0) printf \
    "cpu: dashboard %s us/request, postgres %.0f us/request\n", \
    (dash > 0 ? sprintf("%.0f", d / hz * 1e6 / n) : "(not started here)"), p / hz * 1e6 / n }'
}
run 30-days "/p/prj_bench_overview"
run 90-days "/p/prj_bench_overview?days=90"
# A reference: a page of the same project that reads no stats (the session touch, the member
# check, the project and its keys are every page's cost).
run keys-page "/p/prj_bench_overview/keys"
