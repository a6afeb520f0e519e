#!/usr/bin/env bash
# ctest supervise: `duepay dev --supervise` (what `make run` starts) on a fresh topic of the real
# stack: api, checkout and projector each a child process of their own.
#   1. The request that used to kill the API (a 60 KB body nesting 30,000 arrays, sent with an
#      ordinary test key) is a 400 json_too_deep in the envelope, and the api process is the same
#      one afterwards (no death, no restart); repeated members are 400 duplicate_field.
#   2. kill -SEGV the api child: the supervisor logs the death loudly, starts a new api, which
#      creates charges again; the projector and checkout children are the same processes;
#      duepay_role_restarts_total{role="api",reason="signal"} is 1 on the supervisor's /metrics,
#      which passes promtool.
#   3. With --ops-base-port B (make run's form) the supervisor's ops listener is on B and each
#      role's on B+1.. (api, checkout, projector): /healthz answers on each, /metrics of each
#      passes promtool.
#   4. SIGTERM to the supervisor stops every child and exits 0.
#   supervise_test.sh DUEPAY_BIN WORK_DIR   (the stack from var/dev.env, as `make test` gives)
set -uo pipefail
BIN="$1"
WORK="$2"
say() { printf '[supervise] %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; [[ -f "$WORK/dev.log" ]] && tail -n 30 "$WORK/dev.log" >&2; exit 1; }

for v in DATABASE_URL KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_DEMO_TEST_KEY DUEPAY_CHAINS_FILE; do
  [[ -n "${!v:-}" ]] || { say "SKIP: $v is not set (source var/dev.env, or run make test)"; exit 77; }
done
command -v promtool >/dev/null || fail "promtool is missing (Debian package prometheus: make deps)"
rm -rf "$WORK" && mkdir -p "$WORK"

sup=""
cleanup() {
  # The children get SIGTERM from the supervisor (or, if it died, from the kernel).
  [[ -n "$sup" ]] && kill -TERM "$sup" 2>/dev/null && wait "$sup" 2>/dev/null
  true
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
suffix="$$-$RANDOM"
topic="duepay.test.supervise.$suffix"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
api_port="$(free_port)"
checkout_port="$(free_port)"
dashboard_port="$(free_port)"
# A base port with the next six free too: the supervisor's, then one per role of `duepay dev` in
# its order (api, checkout, projector, chainwatch, webhooks, dashboard; base + 1 + index).
ops_port="$(free_port_run 7)"
[[ -n "$ops_port" ]] || fail "no seven free ports in a row"
api="http://127.0.0.1:$api_port"
export DUEPAY_TOPIC="$topic" DUEPAY_PROJECTOR_GROUP="duepay-test-supervise-$suffix" \
  DUEPAY_LISTEN="127.0.0.1:$api_port" DUEPAY_CHECKOUT_URL="http://127.0.0.1:$checkout_port" \
  DUEPAY_DASHBOARD_URL="http://127.0.0.1:$dashboard_port"
unset DUEPAY_OPS_LISTEN
"$BIN" dev --supervise --ops-listen "127.0.0.1:$ops_port" --ops-base-port "$ops_port" \
  >"$WORK/dev.log" 2>&1 &
sup=$!

# The pid of the latest start of ROLE, from the supervisor's "role R started (pid N)" lines.
pid_of() { sed -n "s/.*role $1 started (pid \([0-9]*\)).*/\1/p" "$WORK/dev.log" | tail -n 1; }
wait_healthz() {
  for _ in $(seq 300); do
    curl -fsS -o /dev/null "$api/healthz" 2>/dev/null && return 0
    kill -0 "$sup" 2>/dev/null || fail "the supervisor exited"
    sleep 0.1
  done
  fail "the api did not answer /healthz within 30 s"
}
wait_healthz
api_pid="$(pid_of api)"
projector_pid="$(pid_of projector)"
checkout_pid="$(pid_of checkout)"
[[ -n "$api_pid" && -n "$projector_pid" && -n "$checkout_pid" ]] || fail "no pid lines for the roles"
[[ "$api_pid" != "$sup" && "$projector_pid" != "$api_pid" ]] || fail "roles are not processes of their own"
say "supervisor $sup: api $api_pid, projector $projector_pid, checkout $checkout_pid"

post() {  # post BODY_FILE -> "status body"
  curl -sS -o "$WORK/answer" -w '%{http_code}' -X POST "$api/v1/invoices" \
    -H "x-api-key: $DUEPAY_DEMO_TEST_KEY" -H 'content-type: application/json' \
    --data-binary "@$1" --max-time 15
}
code_of() { python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["meta"]["code"])' "$WORK/answer"; }

# 1. The deep body, then repeated members, then a create that works.
python3 -c "print('{\"chainId\":80002,\"amount\":\"1\",\"x\":'+'['*30000+']'*30000+'}')" >"$WORK/deep.json"
status="$(post "$WORK/deep.json")"
[[ "$status" == 400 ]] || fail "deep body: HTTP $status $(head -c 300 "$WORK/answer")"
[[ "$(code_of)" == json_too_deep ]] || fail "deep body: $(cat "$WORK/answer")"
kill -0 "$api_pid" 2>/dev/null || fail "the api process died on the deep body"
[[ "$(pid_of api)" == "$api_pid" ]] || fail "the api was restarted after the deep body"
for body in '{"chainId":80002,"amount":"1","amount":"2"}' '{"chainId":80002,"chainId":137,"amount":"1"}'; do
  printf '%s' "$body" >"$WORK/dup.json"
  status="$(post "$WORK/dup.json")"
  [[ "$status" == 400 && "$(code_of)" == duplicate_field ]] || fail "$body: HTTP $status $(cat "$WORK/answer")"
done
printf '%s' '{"chainId":80002,"amount":"1000000"}' >"$WORK/ok.json"
status="$(post "$WORK/ok.json")"
[[ "$status" == 201 ]] || fail "create: HTTP $status $(cat "$WORK/answer")"
say "deep body 400 json_too_deep, repeated members 400 duplicate_field, create 201; api still pid $api_pid"

# 2. The api crashes.
kill -SEGV "$api_pid"
for _ in $(seq 100); do grep -q 'ROLE DIED: api' "$WORK/dev.log" && break; sleep 0.1; done
grep 'ROLE DIED: api' "$WORK/dev.log" | grep -q 'SIGSEGV' || fail "no loud line naming the api's SIGSEGV"
for _ in $(seq 100); do [[ -n "$(pid_of api)" && "$(pid_of api)" != "$api_pid" ]] && break; sleep 0.1; done
new_api="$(pid_of api)"
[[ "$new_api" != "$api_pid" ]] || fail "the api was not restarted"
wait_healthz
status="$(post "$WORK/ok.json")"
[[ "$status" == 201 ]] || fail "create after the restart: HTTP $status $(cat "$WORK/answer")"
kill -0 "$projector_pid" 2>/dev/null && [[ "$(pid_of projector)" == "$projector_pid" ]] \
  || fail "the projector did not survive the api's crash"
kill -0 "$checkout_pid" 2>/dev/null && [[ "$(pid_of checkout)" == "$checkout_pid" ]] \
  || fail "the checkout did not survive the api's crash"
curl -fsS "http://127.0.0.1:$ops_port/metrics" >"$WORK/metrics" || fail "no /metrics on the supervisor"
grep -q '^duepay_role_restarts_total{role="api",reason="signal"} 1$' "$WORK/metrics" \
  || fail "restart counter: $(grep duepay_role_restarts_total "$WORK/metrics")"
grep -q '^duepay_role_restarts_total{role="projector",reason="signal"} 0$' "$WORK/metrics" \
  || fail "projector counter: $(grep duepay_role_restarts_total "$WORK/metrics")"
promtool check metrics <"$WORK/metrics" >"$WORK/promtool.out" 2>&1 || fail "promtool: $(cat "$WORK/promtool.out")"
say "api $api_pid killed by SIGSEGV, restarted as $new_api, creates again; projector and checkout untouched; counter 1"

# 3. Every role's own ops listener, on the ports after the supervisor's.
i=1
for role in api checkout projector; do
  port=$((ops_port + i))
  i=$((i + 1))
  ok=0
  for _ in $(seq 100); do
    curl -fsS -o /dev/null "http://127.0.0.1:$port/healthz" 2>/dev/null && { ok=1; break; }
    sleep 0.1
  done
  ((ok)) || fail "$role: no /healthz on its ops port $port"
  curl -fsS "http://127.0.0.1:$port/metrics" >"$WORK/metrics.$role" || fail "$role: no /metrics on $port"
  promtool check metrics <"$WORK/metrics.$role" >"$WORK/promtool.$role" 2>&1 \
    || fail "$role metrics: $(cat "$WORK/promtool.$role")"
done
grep -q '^duepay_http_request_duration_seconds' "$WORK/metrics.api" || fail "the api's ops port serves no api series"
say "ops listeners: supervisor $ops_port, api $((ops_port + 1)), checkout $((ops_port + 2)), projector $((ops_port + 3))"

# 4. Stop.
kill -TERM "$sup"
rc=0
wait "$sup" || rc=$?
sup=""
[[ "$rc" == 0 ]] || fail "the supervisor exited $rc on SIGTERM"
for p in "$new_api" "$projector_pid" "$checkout_pid"; do
  kill -0 "$p" 2>/dev/null && fail "child $p outlived the supervisor"
done
say "PASS"
