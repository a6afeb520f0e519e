#!/usr/bin/env bash
# Dashboard bench (docs/adr/0245): every page a merchant uses, each its own wrk run at CONNECTIONS
# connections, over a project of ROWS charges seeded by SQL straight into Postgres:
# bench/dashboard/seed.sql (the charges, ~1.5% of them with an open exception, and the overview's
# stats read model), then bench/dashboard/seed_pages.sql (one paid charge's journal with a payment
# and a partial refund, settlement_lines for every paid charge, one webhook endpoint with ROWS / 10
# delivered invoice.paid events and their attempts). The pages, in order:
#   overview 30 and 90 days, keys; charges: the first page, status=paid, a deep page (the next-page
#   link followed DEEP_PAGES times, fewer when the list ends first), the invoice-id search (its 303
#   to the charge page), the metadata search (metadataKey/metadataValue); one charge's page (paid,
#   refunded in part, with webhook deliveries); exceptions; webhooks and the endpoint's delivery
#   log; reports over the last 30 days.
# Before its wrk run each page is fetched once and must answer its status (200; 303 for the search)
# with a seeded value in the body, else the script stops: a bench of an error page is impossible.
# The session cookies are minted by the seed (SESSIONS dashboard_sessions rows holding the SHA-256
# of random tokens, as the session store keeps them; every page touches its session's row, so the
# requests take them in turn). Target: p99 <= 50 ms at 16 connections, at 1,000,000 charges.
#
#   make stack-up && bench/dashboard/run.sh        # 1,000,000 charges, 16 connections, 14 x 20 s
#   ROWS=2000 DURATION=2 bench/dashboard/run.sh    # smoke run, about a minute
#   SEED=0 bench/dashboard/run.sh                  # reuse the rows of the last run
#   PAGES="charge reports" bench/dashboard/run.sh  # only the runs named (run's first argument)
#
# If nothing answers on $DUEPAY_DASHBOARD_URL/healthz (default http://127.0.0.1:8082), the
# script starts `$DUEPAY_BIN dashboard` and stops it at the end. Each run prints the CPU per
# request of the dashboard (when started here) and of Postgres. Bodies and wrk outputs are kept in
# var/bench/dashboard-<page>.{html,txt}.
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
DEEP_PAGES="${DEEP_PAGES:-300}"
PAGES="${PAGES:-}"
DASH="${DUEPAY_DASHBOARD_URL:-http://127.0.0.1:8082}"
TOKEN_FILE="$OUT/dashboard-session-tokens"
PROJECT=prj_bench_overview
P="/p/$PROJECT"
ENDPOINT=we_bec000000000000000000001  # bench/dashboard/seed_pages.sql

if [[ "$SEED" == 1 || ! -s "$TOKEN_FILE" ]]; then
  token="$(head -c 32 /dev/urandom | od -An -tx1 | tr -d ' \n')"
  echo "== seeding $ROWS charges, their stats and the other pages' rows (bench/dashboard/seed*.sql)"
  start=$(date +%s)
  psql -X -q -d "$DATABASE_URL" -v rows="$ROWS" -v sessions="$SESSIONS" -v token="$token" \
    -f "$ROOT/bench/dashboard/seed.sql"
  psql -X -q -d "$DATABASE_URL" -v rows="$ROWS" -f "$ROOT/bench/dashboard/seed_pages.sql"
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
  echo "starting $BIN dashboard (log $OUT/dashboard.log)" >&2
  DUEPAY_DASHBOARD_URL="$DASH" DUEPAY_ACCESS_LOG=0 "$BIN" dashboard >"$OUT/dashboard.log" 2>&1 &
  DASH_PID=$!
  trap 'kill -TERM "$DASH_PID" 2>/dev/null; wait "$DASH_PID" 2>/dev/null || true' EXIT
  for _ in $(seq 1 100); do curl -sf -m 1 "$DASH/healthz" >/dev/null && break; sleep 0.2; done
fi
curl -sf -m 2 "$DASH/healthz" >/dev/null || { echo "dashboard not answering on $DASH" >&2; exit 1; }

PG_PID="$(head -1 "$ROOT/var/pg/data/postmaster.pid" 2>/dev/null || echo 0)"
TCK="$(getconf CLK_TCK)"
sql() { psql -X -q -At -d "$DATABASE_URL" -c "$1"; }
invoice_of() { printf '0x%s' "$(printf 'bench-overview-%s' "$1" | sha256sum | cut -d' ' -f1)"; }

# GET $2 once with the first session: it must answer $3 with a body matching each extended
# regular expression after it; prints the first match of each.
check() {
  local name="$1" path="$2" want="$3" status pattern match
  shift 3
  status="$(curl -s -m 30 -o "$OUT/dashboard-$name.html" -w '%{http_code}' \
    -H "cookie: duepay_session=$cookie" "$DASH$path")"
  [[ "$status" == "$want" ]] || { echo "GET $path answered $status, not $want" >&2; exit 1; }
  for pattern in "$@"; do
    match="$(grep -oE "$pattern" "$OUT/dashboard-$name.html")" ||
      { echo "GET $path: no match for '$pattern' in $OUT/dashboard-$name.html" >&2; exit 1; }
    echo "$status, shows: ${match%%$'\n'*}"
  done
}
wanted() { [[ -z "$PAGES" || " $PAGES " == *" $1 "* ]]; }
run() {  # $1: name, $2: path, $3: its status, then the regexes its body must match
  wanted "$1" || return 0
  echo "== $1: wrk -t$THREADS -c$CONNECTIONS -d${DURATION}s --latency" \
    "-s bench/dashboard/pages.lua $DASH$2"
  check "$@"
  local d0 p0 n
  d0="$(ticks_of "$DASH_PID")"; p0="$(tree_ticks "$PG_PID")"
  DUEPAY_BENCH_PAGE="$1" DUEPAY_BENCH_PATH="$2" wrk -t"$THREADS" -c"$CONNECTIONS" \
    -d"${DURATION}s" --latency -s "$ROOT/bench/dashboard/pages.lua" "$DASH" |
    tee "$OUT/dashboard-$1.txt" | grep -E "^$1:|Socket errors" || true
  n="$(sed -n "s/^$1: \\([0-9]*\\) requests.*/\\1/p" "$OUT/dashboard-$1.txt")"
  awk -v d="$(( $(ticks_of "$DASH_PID") - d0 ))" -v p="$(( $(tree_ticks "$PG_PID") - p0 ))" \
    -v n="${n:-0}" -v hz="$TCK" -v dash="$DASH_PID" 'BEGIN { if (n > 0) printf \
    "cpu: dashboard %s us/request, postgres %.0f us/request\n", \
    (dash > 0 ? sprintf("%.0f", d / hz * 1e6 / n) : "(not started here)"), p / hz * 1e6 / n }'
}

# The seeded values each page must show (read back, so that SEED=0 checks the rows it reuses).
newest="$(sql "select invoice_id from charges where project_id = '$PROJECT' and mode = 'test'
               order by created_at desc, invoice_id desc limit 1")"
newest_paid="$(sql "select invoice_id from charges where project_id = '$PROJECT' and mode = 'test'
                    and status = 'paid' order by created_at desc, invoice_id desc limit 1")"
seeded="$(sql "select sum(charges) from charge_status_counts where project_id = '$PROJECT'
                and mode = 'test'")"
middle=$(( (seeded + 1) / 2 ))  # charge n has the metadata order_id ord-<n>
featured="$(invoice_of 10)"
exception="$(sql "select invoice_id from charges where project_id = '$PROJECT' and mode = 'test'
                  and open_exception is not null order by created_at desc, invoice_id desc
                  limit 1")"
last_attempt="$(sql "select event_id from webhook_attempts where endpoint_id =
                     '$ENDPOINT' order by id desc limit 1")"
to_day="$(date -u +%F)"; from_day="$(date -u -d '29 days ago' +%F)"
payments="$(sql "select count(*) from settlement_lines where project_id = '$PROJECT' and
                 mode = 'test' and kind = 'payment' and token_symbol = 'USDT' and
                 confirmed_at >= timestamp '$from_day' at time zone 'utc' and
                 confirmed_at < (timestamp '$to_day' + interval '1 day') at time zone 'utc'")"

run 30-days "$P" 200 'data-test="created">[1-9][0-9]*'
run 90-days "$P?days=90" 200 'data-test="created">[1-9][0-9]*'
# A reference: a page of the same project that reads no charges (the session touch, the member
# check, the project and its keys are every page's cost).
run keys-page "$P/keys" 200 'overview bench'
run charges "$P/charges" 200 "$newest" 'data-test="next-page"'
run charges-paid "$P/charges?status=paid" 200 "$newest_paid"
# The deep page: the first page's next link followed DEEP_PAGES times (the cursor as the page
# builds it), fewer when the list ends first, at least once. Charge n is the n-th newest, 20 to a
# page (the list's default limit), so the deep page starts with reference ord-<20 * hops + 1>.
if wanted charges-deep; then
  deep="$P/charges" hops=0
  while (( hops < DEEP_PAGES )); do
    next="$(curl -sf -m 30 -H "cookie: duepay_session=$cookie" "$DASH$deep" |
      grep -oE 'data-test="next-page" href="[^"]*"' |
      sed -E 's/.*href="([^"]*)"/\1/; s/&amp;/\&/g')" || true
    [[ -n "$next" ]] || break
    deep="$next" hops=$((hops + 1))
  done
  (( hops > 0 )) || { echo "the charges list has no next page" >&2; exit 1; }
  echo "deep page: $hops next links followed"
  run charges-deep "$deep" 200 "ord-$(( 20 * hops + 1 ))[^0-9]"
fi
run find-invoice "$P/charges/find?invoiceId=$featured" 303 "see $P/charges/$featured"
run charges-metadata "$P/charges?metadataKey=order_id&metadataValue=ord-$middle" 200 \
  "$(invoice_of "$middle")"
run charge "$P/charges/$featured" 200 '<code>charge\.paid</code>' '<code>charge\.refunded</code>' \
  'hooks\.bench\.example/duepay'
run exceptions "$P/exceptions" 200 "$exception"
run webhooks "$P/webhooks" 200 'hooks\.bench\.example/duepay'
run webhook-log "$P/webhooks/$ENDPOINT" 200 "$last_attempt"
run reports "$P/reports?from=$from_day&to=$to_day" 200 "data-test=\"payments\">$payments<"
