#!/usr/bin/env bash
# ctest log_secrets: every role at DUEPAY_LOG_LEVEL=debug (librdkafka's debug lines included) in one
# `duepay dev --with-chainwatch --with-webhooks`, driven through a create with the demo key, a
# request with a wrong key, a wallet payment and a stop; then the whole log must
#   - be logfmt only: every line starts with `ts=` and carries level= and role= (no raw
#     `%7|...` librdkafka line, no bare std::cerr line),
#   - hold librdkafka's own lines (role=kafka), the access log with request_id, an invoice_id field,
#   - never hold the demo key, the signer key (with or without 0x) or the server secret.
#   log_secrets_test.sh DUEPAY_BIN WORK_DIR      (the stack from var/dev.env, as `make test` gives)
# Exit 77 (ctest: skipped) only when the stack variables are absent.
set -uo pipefail
BIN="$1"
WORK="$2"
say() { printf '[log_secrets] %s\n' "$*" >&2; }
fail() { say "FAIL: $*"; exit 1; }

for v in DATABASE_URL KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_SERVER_SECRET DUEPAY_DEMO_TEST_KEY; do
  [[ -n "${!v:-}" ]] || { say "SKIP: $v is not set (source var/dev.env, or run make test)"; exit 77; }
done
mkdir -p "$WORK"
LOG="$WORK/dev.log"
: >"$LOG"

pid=""
cleanup() {
  if [[ -n "$pid" ]]; then
    kill -TERM "$pid" 2>/dev/null
    for _ in $(seq 150); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=""
  fi
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
port="$(free_port)"
base="http://127.0.0.1:$port"
DUEPAY_LOG_LEVEL=debug DUEPAY_KAFKA_DEBUG=generic,cgrp DUEPAY_CHAINWATCH_TRACE=1 DUEPAY_PROJECTOR_TRACE=1 \
  DUEPAY_LISTEN="127.0.0.1:$port" \
  "$BIN" dev --with-chainwatch --with-webhooks >"$LOG" 2>&1 &
pid=$!
up=0
for _ in $(seq 300); do
  curl -fsS -o /dev/null "$base/healthz" 2>/dev/null && { up=1; break; }
  kill -0 "$pid" 2>/dev/null || break
  sleep 0.1
done
((up)) || { tail -n 30 "$LOG" >&2; fail "duepay dev did not answer /healthz within 30 s"; }

key="$DUEPAY_DEMO_TEST_KEY"
created="$(curl -sS -X POST "$base/v1/invoices" -H "x-api-key: $key" -H 'content-type: application/json' \
  -H 'x-request-id: log-secrets-1' -d '{"chainId":80002,"amount":"1000000"}')"
invoice="$(sed -n 's/.*"invoiceId":"\(0x[0-9a-fA-F]*\)".*/\1/p' <<<"$created")"
[[ -n "$invoice" ]] || fail "create answered no invoiceId: $created"
wrong="${key%?}x"
status="$(curl -sS -o /dev/null -w '%{http_code}' "$base/v1/charges/$invoice/status" -H "x-api-key: $wrong")"
[[ "$status" == 401 ]] || fail "a wrong key got $status, not 401"
"$BIN" admin simulate-payment --invoice "$invoice" --rail wallet >"$WORK/simulate.out" 2>&1 ||
  fail "simulate-payment failed: $(cat "$WORK/simulate.out")"
paid=0
for _ in $(seq 300); do
  curl -fsS "$base/v1/charges/$invoice/status" -H "x-api-key: $key" 2>/dev/null | grep -q '"paid"' &&
    { paid=1; break; }
  sleep 0.1
done
((paid)) || say "note: $invoice not seen paid within 30 s (the grep below still runs)"
cleanup

lines="$(wc -l <"$LOG")"
say "$lines log lines from duepay dev at debug level"
((lines > 50)) || fail "only $lines log lines: the log is too thin to prove anything"
bad="$(grep -v -E '^ts=[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:.]+Z level=(debug|info|warn|error) role=' "$LOG" |
  head -n 5)"
[[ -z "$bad" ]] || fail "lines that are not logfmt records:
$bad"
grep -q ' level=debug role=kafka client=' "$LOG" || fail "no librdkafka line routed through the log"
grep -q 'role=api request_id=log-secrets-1 method=POST path=/v1/invoices status=201' "$LOG" ||
  fail "no access log record of the create"
grep -q "invoice_id=$invoice" "$LOG" || fail "no invoice_id=$invoice field in the log"
signer="${DUEPAY_SIGNER_KEY#0x}"
for secret in "$key" "$signer" "$DUEPAY_SERVER_SECRET"; do
  if grep -q -i -F -- "$secret" "$LOG"; then
    fail "a secret (${#secret} chars, starting ${secret:0:6}) appears in the log"
  fi
done
say "ok: $lines logfmt lines, librdkafka routed, no key or secret"
