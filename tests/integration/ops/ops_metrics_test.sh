#!/usr/bin/env bash
# ctest ops_metrics: every role as its own process with `--ops-listen 127.0.0.1:0` on a fresh topic
# (api, checkout, projector, chainwatch for chain 80002, webhooks), one charge created with the
# demo key, then for each role:
#   - /healthz answers 200 and /readyz 200 (within 60 s),
#   - /metrics holds that role's series (list below) and passes `promtool check metrics`;
# then a real Prometheus (Debian's, loopback, temp dir, 1 s scrape interval) scrapes all five and
# its HTTP API must return the projector's lag series, one per partition of the topic, each 0 once
# caught up, and up == 1 for every target. Everything it starts is stopped on exit.
#   ops_metrics_test.sh DUEPAY_BIN WORK_DIR   (the stack from var/dev.env, as `make test` gives)
set -uo pipefail
BIN="$1"
WORK="$2"
say() { printf '[ops_metrics] %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

for v in DATABASE_URL KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_DEMO_TEST_KEY DUEPAY_CHAINS_FILE; do
  [[ -n "${!v:-}" ]] || { say "SKIP: $v is not set (source var/dev.env, or run make test)"; exit 77; }
done
command -v promtool >/dev/null || fail "promtool is missing (Debian package prometheus: make deps)"
command -v prometheus >/dev/null || fail "prometheus is missing (Debian package prometheus: make deps)"
rm -rf "$WORK" && mkdir -p "$WORK"

pids=()
cleanup() {
  for p in "${pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
  for p in "${pids[@]}"; do
    for _ in $(seq 100); do kill -0 "$p" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$p" 2>/dev/null
    wait "$p" 2>/dev/null
  done
  pids=()
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
suffix="$$-$RANDOM"
topic="duepay.test.ops.$suffix"
group="duepay-test-ops-$suffix"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
api_port="$(free_port)"
checkout_port="$(free_port)"
export DUEPAY_TOPIC="$topic"

start() {  # start NAME ARGS...: a role with its own ops listener, log in $WORK/NAME.log
  local name="$1"
  shift
  "$BIN" "$@" --ops-listen 127.0.0.1:0 >"$WORK/$name.log" 2>&1 &
  pids+=($!)
}
start api api --listen "127.0.0.1:$api_port"
start checkout checkout --checkout-listen "127.0.0.1:$checkout_port"
start projector projector --group "$group"
start chainwatch chainwatch --chain 80002
start webhooks webhooks --webhooks-group "$group-webhooks"

declare -A ops
for name in api checkout projector chainwatch webhooks; do
  for _ in $(seq 300); do
    port="$(sed -n 's/.*msg="ops: listening on 127\.0\.0\.1:\([0-9]*\) .*/\1/p' "$WORK/$name.log" | head -n 1)"
    [[ -n "$port" ]] && break
    sleep 0.1
  done
  [[ -n "$port" ]] || { tail -n 20 "$WORK/$name.log" >&2; fail "$name: no ops listener line"; }
  ops[$name]="$port"
done
say "ops ports: api ${ops[api]} checkout ${ops[checkout]} projector ${ops[projector]}" \
  "chainwatch ${ops[chainwatch]} webhooks ${ops[webhooks]}"

for _ in $(seq 300); do
  curl -fsS -o /dev/null "http://127.0.0.1:$api_port/healthz" 2>/dev/null && break
  sleep 0.1
done
created="$(curl -sS -X POST "http://127.0.0.1:$api_port/v1/invoices" -H "x-api-key: $DUEPAY_DEMO_TEST_KEY" \
  -H 'content-type: application/json' -d '{"chainId":80002,"amount":"1000000"}')"
grep -q '"invoiceId"' <<<"$created" || fail "create failed: $created"
curl -sS -o /dev/null "http://127.0.0.1:$checkout_port/healthz"

declare -A expect=(
  [api]='duepay_http_request_duration_seconds_bucket{role="api",route="/v1/invoices",status="201"
duepay_kafka_produce_seconds_count{topic="'"$topic"'"}
duepay_postgres_pool_in_use{pool="api"}'
  [checkout]='duepay_http_request_duration_seconds_count{role="checkout",route="/healthz",status="200"}
duepay_postgres_pool_in_use{pool="checkout"}'
  [projector]='duepay_kafka_consumer_lag{group="'"$group"'",topic="'"$topic"'",partition="
duepay_events_processed_total{group="'"$group"'",type="charge.created"} 1
duepay_projector_batch_size_count{group="'"$group"'"}
duepay_projector_transaction_seconds_bucket{group="'"$group"'",le="+Inf"}
duepay_quarantined_events_total{group="'"$group"'"} 0'
  [chainwatch]='duepay_chainwatch_head_lag_blocks{chain="80002"}
duepay_chainwatch_confirmations_pending{chain="80002"}
duepay_chainwatch_leader{chain="80002"} 1
duepay_kafka_consumer_lag{group="duepay-chainwatch-80002"'
  [webhooks]='duepay_webhook_queue_depth{when="due"}
duepay_webhook_in_flight
duepay_webhook_attempts_total{outcome="transport_error"} 0
duepay_kafka_consumer_lag{group="'"$group"'-webhooks"'
)

for name in api checkout projector chainwatch webhooks; do
  base="http://127.0.0.1:${ops[$name]}"
  [[ "$(curl -sS -o /dev/null -w '%{http_code}' "$base/healthz")" == 200 ]] || fail "$name: /healthz"
  ready=""
  for _ in $(seq 600); do
    ready="$(curl -sS -w ' %{http_code}' "$base/readyz")"
    [[ "$ready" == *" 200" ]] && break
    sleep 0.1
  done
  [[ "$ready" == *" 200" ]] || fail "$name: /readyz not 200 within 60 s: $ready"
  missing=""
  for _ in $(seq 300); do
    curl -sS "$base/metrics" >"$WORK/$name.prom"
    missing=""
    while IFS= read -r series; do
      grep -q -F -- "$series" "$WORK/$name.prom" || missing="$series"
    done <<<"${expect[$name]}"
    [[ -z "$missing" ]] && break
    sleep 0.1
  done
  [[ -z "$missing" ]] || { cat "$WORK/$name.prom" >&2; fail "$name: no series $missing in /metrics"; }
  promtool check metrics <"$WORK/$name.prom" >"$WORK/$name.promtool" 2>&1 ||
    { cat "$WORK/$name.promtool" >&2; fail "$name: promtool check metrics"; }
  say "$name: healthz, readyz, $(grep -c -v '^#' "$WORK/$name.prom") samples, promtool ok"
done

# A real Prometheus scrapes the five listeners; its API must answer the lag series.
prom_port="$(free_port)"
{
  echo "global: {scrape_interval: 1s, evaluation_interval: 1s}"
  echo "scrape_configs:"
  echo "  - job_name: duepay"
  echo "    static_configs:"
  echo "      - targets:"
  for name in api checkout projector chainwatch webhooks; do echo "          - 127.0.0.1:${ops[$name]}"; done
} >"$WORK/prometheus.yml"
promtool check config "$WORK/prometheus.yml" >/dev/null 2>&1 || fail "promtool check config"
prometheus --config.file="$WORK/prometheus.yml" --storage.tsdb.path="$WORK/tsdb" \
  --web.listen-address="127.0.0.1:$prom_port" >"$WORK/prometheus.log" 2>&1 &
pids+=($!)
query() {
  curl -sS --get "http://127.0.0.1:$prom_port/api/v1/query" --data-urlencode "query=$1" 2>/dev/null
}
lag=""
for _ in $(seq 600); do
  lag="$(query "duepay_kafka_consumer_lag{group=\"$group\",topic=\"$topic\"}")"
  [[ "$(grep -o '"partition":"[0-9]*"' <<<"$lag" | sort -u | wc -l)" == 3 ]] && break
  sleep 0.1
done
[[ "$(grep -o '"partition":"[0-9]*"' <<<"$lag" | sort -u | wc -l)" == 3 ]] ||
  { tail -n 20 "$WORK/prometheus.log" >&2; fail "Prometheus has no lag series for the 3 partitions: $lag"; }
total="$(query "sum(duepay_kafka_consumer_lag{group=\"$group\",topic=\"$topic\"})")"
grep -q '"value":\[[0-9.]*,"0"\]' <<<"$total" || fail "summed lag is not 0 once caught up: $total"
up=""
for _ in $(seq 300); do  # every target scraped at least once
  up="$(query 'count(up{job="duepay"} == 1)')"
  grep -q '"value":\[[0-9.]*,"5"\]' <<<"$up" && break
  sleep 0.1
done
grep -q '"value":\[[0-9.]*,"5"\]' <<<"$up" || fail "not every target is up: $up"
say "ok: Prometheus returns duepay_kafka_consumer_lag for 3 partitions (sum 0) and 5 targets up"
