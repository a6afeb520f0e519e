#!/usr/bin/env bash
# ctest api_kill (docs/limits.md "A crashed holder", ADR 0219): two `duepay api` processes and a
# projector on a fresh topic of the real stack; 8 clients (../ha/clients.mjs) create charges, each
# with its own Idempotency-Key, each attempt to one of the two apis at random, retried with the
# same key on a broken connection or a 503. Meanwhile `kill -9` of an api, 20 times (the two in
# turn, each started again at once), each kill once the clients made progress.
# The key lock is set to an hour (DUEPAY_IDEMPOTENCY_LOCK_SECONDS=3600): a key cut mid-create is
# freed only because its holder's session died with the process, so a retry that waited for the
# lock timeout would never finish here. Then:
#   - every client finishes (every key got its 201) within 60 s of being told to stop;
#   - every answer was a 201, a connection error, a 503 in the envelope with Retry-After, or a 409
#     idempotency_key_in_use for a key whose earlier attempt was cut (counted and printed);
#   - every key got one invoice id in its 201s, every 201's charge is readable (GET by id, with its
#     amount), and the read model has exactly one charge per key (by amount).
# Prints: kills, attempts by outcome, keys cut by a kill and the slowest cut-to-201 time.
#   api_kill_test.sh DUEPAY_BIN WORK_DIR   (the stack from var/dev.env, as `make test` gives)
set -uo pipefail
BIN="$1"
WORK="$2"
HERE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
KILLS="${DUEPAY_TEST_API_KILLS:-20}"
say() { printf '[api_kill] %s\n' "$*" >&2; }
fail() {
  say "FAIL: $*"
  for f in "$WORK"/api*.log "$WORK/projector.log"; do
    [[ -f "$f" ]] && { say "--- $f"; tail -n 15 "$f" >&2; }
  done
  exit 1
}

for v in DATABASE_URL KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_DEMO_TEST_KEY DUEPAY_CHAINS_FILE; do
  [[ -n "${!v:-}" ]] || { say "SKIP: $v is not set (source var/dev.env, or run make test)"; exit 77; }
done
command -v node >/dev/null || fail "node is missing (make deps)"
rm -rf "$WORK" && mkdir -p "$WORK"

projector=""
clients=""
api_pid=("" "")
cleanup() {
  local p
  for p in "$clients" "${api_pid[@]}" "$projector"; do
    [[ -n "$p" ]] && kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  true
}
trap cleanup EXIT
trap 'exit 143' TERM INT

# shellcheck source=../lib.sh
source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"
read -r -a port <<<"$(free_ports 2)"
((${#port[@]} == 2)) || fail "no free ports"
suffix="$$-$RANDOM"
topic="duepay.test.apikill.$suffix"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
export DUEPAY_TOPIC="$topic" DUEPAY_PROJECTOR_GROUP="duepay-test-apikill-$suffix" \
  DUEPAY_IDEMPOTENCY_LOCK_SECONDS=3600
unset DUEPAY_OPS_LISTEN

"$BIN" projector >"$WORK/projector.log" 2>&1 &
projector=$!
start_api() {
  "$BIN" api --listen "127.0.0.1:${port[$1]}" >>"$WORK/api$1.log" 2>&1 &
  api_pid[$1]=$!
}
healthy() { curl -fsS -o /dev/null --max-time 2 "http://127.0.0.1:${port[$1]}/healthz" 2>/dev/null; }
wait_healthy() {
  for _ in $(seq 300); do
    healthy "$1" && return 0
    kill -0 "${api_pid[$1]}" 2>/dev/null || fail "api $1 exited: $(tail -n 3 "$WORK/api$1.log")"
    sleep 0.1
  done
  fail "api $1 did not answer /healthz within 30 s"
}
start_api 0
start_api 1
wait_healthy 0
wait_healthy 1
kill -0 "$projector" 2>/dev/null || fail "the projector exited"

node "$HERE/../ha/clients.mjs" "http://127.0.0.1:${port[0]},http://127.0.0.1:${port[1]}" \
  "$DUEPAY_DEMO_TEST_KEY" "$WORK" 8 >"$WORK/clients.log" 2>&1 &
clients=$!
created() { cat "$WORK/created.jsonl" 2>/dev/null | wc -l; }
# wait_progress N: until N more charges were created (at most 30 s; false when none came).
wait_progress() {
  local before
  before="$(created)"
  for _ in $(seq 300); do
    (($(created) >= before + $1)) && return 0
    kill -0 "$clients" 2>/dev/null || fail "the clients exited: $(tail -n 5 "$WORK/clients.log")"
    sleep 0.1
  done
  return 1
}

t0="$(date +%s%3N)"
for ((k = 1; k <= KILLS; k++)); do
  i=$((k % 2))
  wait_healthy "$i"
  wait_progress 3 || fail "kill $k: the clients made no progress in 30 s" \
    "($(grep -c idempotency_key_in_use "$WORK/attempts.jsonl") answers 409 idempotency_key_in_use)"
  kill -KILL "${api_pid[$i]}"
  wait "${api_pid[$i]}" 2>/dev/null
  start_api "$i"
done
say "$KILLS kills in $(($(date +%s%3N) - t0)) ms, $(created) charges created so far"
wait_healthy 0
wait_healthy 1
wait_progress 16 || fail "no progress after the last kill"

touch "$WORK/stop"
for _ in $(seq 600); do kill -0 "$clients" 2>/dev/null || break; sleep 0.1; done
kill -0 "$clients" 2>/dev/null && fail "the clients did not finish within 60 s: a key stayed locked"
wait "$clients"
rc=$?
clients=""
((rc == 0)) || fail "the clients failed: $(tail -n 5 "$WORK/clients.log")"

# The answers (attempts.jsonl: one line per attempt, in the order they ended).
node --input-type=commonjs - "$WORK/attempts.jsonl" >"$WORK/summary.txt" <<'JS' || { cat "$WORK/summary.txt" >&2; fail "the answers"; }
const lines = require("fs").readFileSync(process.argv[2], "utf8").split("\n").filter(Boolean)
  .map(JSON.parse).sort((a, b) => a.t + a.ms - (b.t + b.ms));
const count = {}; const bad = []; const byKey = new Map(); const cutAt = new Map(); let slowest = 0;
for (const r of lines) {
  const k = r.outcome === "http" ? `${r.status} ${r.code}${r.retryAfter ? "" : " (no Retry-After)"}` : r.outcome;
  count[k] = (count[k] || 0) + 1;
  if (r.outcome === "connection" || (r.outcome === "http" && r.status >= 500)) {
    if (!cutAt.has(r.key)) cutAt.set(r.key, r.t + r.ms);
  }
  if (r.outcome === "created") {
    if (!byKey.has(r.key)) byKey.set(r.key, new Set());
    byKey.get(r.key).add(r.invoiceId);
    if (cutAt.has(r.key)) slowest = Math.max(slowest, r.t + r.ms - cutAt.get(r.key));
  } else if (r.outcome === "connection") {
  } else if (r.outcome === "http" && r.status === 503 && r.envelope && r.retryAfter) {
  } else if (r.outcome === "http" && r.status === 409 && r.code === "idempotency_key_in_use" && cutAt.has(r.key)) {
  } else bad.push(r);
}
const twice = [...byKey].filter(([, s]) => s.size !== 1);
const cutKeys = [...cutAt.keys()];
const unfinished = cutKeys.filter((k) => !byKey.has(k));
console.log(`attempts ${lines.length}; ${JSON.stringify(count)}; keys ${byKey.size}, ` +
  `${cutKeys.length} cut by a kill or a 503, slowest cut -> 201 ${slowest} ms`);
for (const r of bad.slice(0, 10)) console.log("unexpected:", JSON.stringify(r));
for (const [k, s] of twice.slice(0, 10)) console.log("key with two invoice ids:", k, [...s]);
for (const k of unfinished.slice(0, 10)) console.log("cut key without a 201:", k);
if (!count.connection) console.log("no attempt was cut by a kill: nothing was tested");
process.exit(bad.length || twice.length || unfinished.length || !count.connection ? 1 : 0);
JS
say "$(cat "$WORK/summary.txt")"

# Every 201 names a charge that exists: GET by id answers it with its amount.
node --input-type=module - "http://127.0.0.1:${port[0]}" "$DUEPAY_DEMO_TEST_KEY" "$WORK/created.jsonl" \
  >"$WORK/reads.txt" 2>&1 <<'JS' || { cat "$WORK/reads.txt" >&2; fail "reading the created charges back"; }
import { readFileSync } from "node:fs";
const [api, key, file] = process.argv.slice(2);
const rows = readFileSync(file, "utf8").split("\n").filter(Boolean).map(JSON.parse);
const bad = [];
for (let i = 0; i < rows.length; i += 16) {
  await Promise.all(rows.slice(i, i + 16).map(async (c) => {
    const res = await fetch(`${api}/v1/charges/${c.invoiceId}`, { headers: { "x-api-key": key } });
    const j = await res.json().catch(() => null);
    if (res.status !== 200 || j?.data?.invoiceId !== c.invoiceId || String(j?.data?.amount) !== c.amount) {
      bad.push(`${c.invoiceId}: HTTP ${res.status} ${JSON.stringify(j).slice(0, 200)}`);
    }
  }));
}
for (const b of bad.slice(0, 10)) console.log("not readable:", b);
console.log(`${rows.length - bad.length} of ${rows.length} charges readable by id with their amount`);
process.exit(bad.length ? 1 : 0);
JS
say "$(cat "$WORK/reads.txt")"

# One charge per key in the read model: each key had its own amount.
keys="$(wc -l <"$WORK/created.jsonl")"
node -e 'process.stdout.write(require("fs").readFileSync(process.argv[1],"utf8").split("\n")
  .filter(Boolean).map(l=>JSON.parse(l).amount).join("\n")+"\n")' "$WORK/created.jsonl" >"$WORK/amounts.txt"
counts="$(psql -X -qtA -d "$DATABASE_URL" -v ON_ERROR_STOP=1 \
  -c "create temp table a (amount numeric)" -c "\\copy a from '$WORK/amounts.txt'" \
  -c "select count(*), count(distinct c.amount) from charges c join a using (amount)")" \
  || fail "read-model query"
counts="$(tail -n 1 <<<"$counts")"
[[ "$counts" == "$keys|$keys" ]] || fail "read model: charges|distinct amounts = $counts for $keys keys"
say "PASS: $KILLS kills; $keys keys, one charge each in the read model, every 201 readable"
