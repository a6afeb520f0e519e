#!/usr/bin/env bash
# ctest pg_disk_full (docs/operations.md "Full disks", ADR 0220): Postgres's data directory on a
# small volume of its own, filled during creates. The test runs in a mount namespace of its own
# (unshare -m; skips with 77 where it may not mount) and brings its own Postgres there: initdb on a
# 128 MB tmpfs, on a free port, the migrations, a demo key; a `duepay api` (with its ops listener)
# and a projector on it, on a fresh topic of the stack's Kafka. Then:
#   1. a file fills the volume; 20 creates, each with its own Idempotency-Key: every answer is a
#      201 or a 503 database_unavailable in the envelope with meta.retryAfterMs and Retry-After,
#      at least one is that 503, and /readyz on the api's ops listener is 503 naming the disk
#      ("disk full (SQLSTATE 53100)");
#   2. the file is deleted: with nothing restarted, each key retried until its 201 (bounded),
#      /readyz is 200 again;
#   3. every key has exactly one charge in the read model and every 201 is readable by id.
#   pg_disk_full_test.sh DUEPAY_BIN WORK_DIR   (the stack from var/dev.env, as `make test` gives)
set -uo pipefail
BIN="$1"
WORK="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
say() { printf '[pg_disk_full] %s\n' "$*" >&2; }

for v in KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_SERVER_SECRET DUEPAY_CHAINS_FILE; do
  [[ -n "${!v:-}" ]] || { say "SKIP: $v is not set (source var/dev.env, or run make test)"; exit 77; }
done
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
[[ -x "$PG_BIN/initdb" ]] || { say "SKIP: no Postgres server binaries"; exit 77; }

# Outside: re-run this script in a mount namespace of its own (its tmpfs is seen by nobody else).
if [[ -z "${DUEPAY_PG_DISK_FULL_INNER:-}" ]]; then
  if ! unshare -m true 2>/dev/null; then
    say "SKIP: this user may not make a mount namespace (unshare -m; needs root or CAP_SYS_ADMIN)"
    exit 77
  fi
  DUEPAY_PG_DISK_FULL_INNER=1 exec unshare -m "$0" "$@"
fi

rm -rf "$WORK" && mkdir -p "$WORK"
VOL="$(mktemp -d /tmp/duepay-pg-disk-full.XXXXXX)"
api_pid=""
projector=""
pg_started=0
fail() {
  say "FAIL: $*"
  for f in "$WORK/api.log" "$WORK/projector.log" "$WORK/postgres.log"; do
    [[ -f "$f" ]] && { say "--- $f"; tail -n 12 "$f" >&2; }
  done
  exit 1
}
cleanup() {
  local p
  for p in "$api_pid" "$projector"; do
    [[ -n "$p" ]] && kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  rm -f "$VOL/data/filler"
  ((pg_started)) && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$VOL/data" -m immediate -w stop >/dev/null 2>&1
  umount "$VOL" 2>/dev/null
  rmdir "$VOL" 2>/dev/null
  true
}
trap cleanup EXIT
trap 'exit 143' TERM INT

if ! mount -t tmpfs -o size=128m,mode=0755 tmpfs "$VOL" 2>"$WORK/mount.err"; then
  say "SKIP: mount -t tmpfs failed here: $(cat "$WORK/mount.err")"
  exit 77
fi
chmod 0755 "$VOL"
mkdir -m 0700 "$VOL/data" && chown postgres:postgres "$VOL/data"

# N distinct free TCP ports of 127.0.0.1 (held together while chosen, so never the same twice).
free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()
PY
}
read -r pg_port api_port ops_port <<<"$(free_ports 3)"
[[ -n "$ops_port" ]] || fail "no free ports"

runuser -u postgres -- "$PG_BIN/initdb" -D "$VOL/data" -U postgres --auth=trust --encoding=UTF8 \
  --locale=C.UTF-8 >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; fail "initdb"; }
cat >>"$VOL/data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $pg_port
unix_socket_directories = ''
max_connections = 50
CONF
touch "$WORK/postgres.log" && chown postgres "$WORK/postgres.log"
runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$VOL/data" -l "$WORK/postgres.log" -w -t 60 start \
  >/dev/null || fail "pg_ctl start"
pg_started=1
psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$pg_port" -U postgres -d postgres \
  -c "create role duepay login" -c "create database duepay owner duepay" || fail "role and database"
export DATABASE_URL="postgresql://duepay@127.0.0.1:$pg_port/duepay"
"$ROOT/infra/dev/stack.sh" migrate >"$WORK/migrate.log" 2>&1 || { cat "$WORK/migrate.log" >&2; fail "migrations"; }
"$BIN" admin demo >"$WORK/demo.json" 2>"$WORK/demo.err" </dev/null || fail "admin demo: $(cat "$WORK/demo.err")"
key="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/demo.json")" \
  || fail "admin demo printed no key"

suffix="$$-$RANDOM"
topic="duepay.test.pgdiskfull.$suffix"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
export DUEPAY_TOPIC="$topic" DUEPAY_PROJECTOR_GROUP="duepay-test-pgdiskfull-$suffix"
unset DUEPAY_OPS_LISTEN
"$BIN" projector >"$WORK/projector.log" 2>&1 &
projector=$!
"$BIN" api --listen "127.0.0.1:$api_port" --ops-listen "127.0.0.1:$ops_port" >"$WORK/api.log" 2>&1 &
api_pid=$!
api="http://127.0.0.1:$api_port"
readyz="http://127.0.0.1:$ops_port/readyz"
for _ in $(seq 300); do
  curl -fsS -o /dev/null "$readyz" 2>/dev/null && break
  kill -0 "$api_pid" 2>/dev/null || fail "the api exited"
  sleep 0.1
done
curl -fsS -o /dev/null "$readyz" || fail "the api was not /readyz within 30 s"

run=$((100000 + RANDOM))
# create KEY AMOUNT: one attempt; prints one JSON line {key, amount, status, code, retryAfterMs,
# retryAfter, envelope, invoiceId}.
create() {
  local status
  status="$(curl -sS -o "$WORK/body" -D "$WORK/head" -w '%{http_code}' --max-time 20 \
    -X POST "$api/v1/invoices" -H "x-api-key: $key" -H 'content-type: application/json' \
    -H "idempotency-key: $1" --data-binary "{\"chainId\":80002,\"amount\":\"$2\"}" 2>/dev/null)"
  python3 - "$1" "$2" "${status:-0}" "$WORK/body" "$WORK/head" <<'PY'
import json, sys
key, amount, status, body, head = sys.argv[1:]
rec = {"key": key, "amount": amount, "status": int(status)}
try:
    j = json.load(open(body))
    rec["envelope"] = isinstance(j.get("success"), bool) and "meta" in j
    rec["code"] = (j.get("meta") or {}).get("code")
    rec["retryAfterMs"] = (j.get("meta") or {}).get("retryAfterMs")
    rec["invoiceId"] = (j.get("data") or {}).get("invoiceId") if rec["status"] == 201 else None
except Exception:
    rec["envelope"] = False
try:
    for line in open(head, errors="replace"):
        if line.lower().startswith("retry-after:"):
            rec["retryAfter"] = line.split(":", 1)[1].strip()
except OSError:
    pass
print(json.dumps(rec))
PY
}

# 1. Full.
dd if=/dev/zero of="$VOL/data/filler" bs=1M 2>/dev/null
sync
say "volume: $(df -h "$VOL" | tail -n 1)"
ready_full=""
for i in $(seq 1 20); do
  create "full-$run-$i" "$run$((100 + i))" >>"$WORK/full.jsonl"
  if [[ -z "$ready_full" ]] && grep -q '"status": 503' "$WORK/full.jsonl"; then
    ready_full="$(curl -sS -w '\nHTTP %{http_code}' --max-time 5 "$readyz")"
  fi
  sleep 0.2
done
python3 - "$WORK/full.jsonl" >"$WORK/full.txt" <<'PY' || { cat "$WORK/full.txt" >&2; fail "the answers while full"; }
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
bad = [r for r in rows if not (r["status"] == 201 or (
    r["status"] == 503 and r.get("envelope") and r.get("code") == "database_unavailable"
    and isinstance(r.get("retryAfterMs"), int) and r.get("retryAfter")))]
full = sum(1 for r in rows if r["status"] == 503)
print(f"while full: {len(rows)} creates, {len(rows) - full} x 201, {full} x 503 database_unavailable")
for r in bad[:5]: print("unexpected:", json.dumps(r))
if not full: print("no create met the full disk: nothing was tested")
sys.exit(1 if bad or not full else 0)
PY
say "$(cat "$WORK/full.txt")"
[[ "$ready_full" == *"HTTP 503"* && "$ready_full" == *"disk full (SQLSTATE 53100)"* ]] \
  || fail "/readyz while full did not name the disk: $ready_full"
say "/readyz while full: $(head -n 1 <<<"$ready_full" | cut -c1-160)"

# 2. Space back: nothing restarted; every key retried until its 201.
rm -f "$VOL/data/filler"
sync
t_free="$(date +%s%3N)"
: >"$WORK/after.jsonl"
while read -r k a; do
  for _ in $(seq 60); do
    line="$(create "$k" "$a")"
    echo "$line" >>"$WORK/after.jsonl"
    [[ "$line" == *'"status": 201'* ]] && break
    sleep 0.5
  done
done < <(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print(r["key"], r["amount"])' "$WORK/full.jsonl")
python3 - "$WORK/after.jsonl" "$WORK/full.jsonl" >"$WORK/after.txt" <<'PY' || { cat "$WORK/after.txt" >&2; fail "the retries after the space came back"; }
import json, sys
after = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
full = [json.loads(l) for l in open(sys.argv[2]) if l.strip()]
last = {r["key"]: r for r in after}
missing = [k for k, r in last.items() if r["status"] != 201]
ids = {}
for r in full + after:
    if r["status"] == 201: ids.setdefault(r["key"], set()).add(r["invoiceId"])
twice = {k: v for k, v in ids.items() if len(v) != 1}
print(f"after: {len(after)} attempts for {len(last)} keys, {len(last) - len(missing)} with their 201")
for k in missing[:5]: print("no 201:", json.dumps(last[k]))
for k, v in list(twice.items())[:5]: print("two invoice ids:", k, sorted(v))
sys.exit(1 if missing or twice else 0)
PY
say "$(cat "$WORK/after.txt"); $(($(date +%s%3N) - t_free)) ms after the space came back"
for _ in $(seq 300); do curl -fsS -o /dev/null "$readyz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "$readyz" || fail "/readyz not 200 within 30 s of the space coming back: $(curl -sS "$readyz")"

# 3. One charge per key, every 201 readable by id.
cat "$WORK/full.jsonl" "$WORK/after.jsonl" | python3 -c 'import json,sys
seen = {}
for l in sys.stdin:
    r = json.loads(l)
    if r["status"] == 201: seen[r["key"]] = (r["invoiceId"], r["amount"])
for inv, amount in seen.values(): print(inv, amount)' >"$WORK/created.txt"
n="$(wc -l <"$WORK/created.txt")"
((n == 20)) || fail "$n keys with a 201, expected 20"
while read -r inv amount; do
  got="$(curl -sS --max-time 10 -H "x-api-key: $key" "$api/v1/charges/$inv" \
    | python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d["invoiceId"], d["amount"])' 2>/dev/null)"
  [[ "$got" == "$inv $amount" ]] || fail "GET /v1/charges/$inv: got '$got', expected amount $amount"
done <"$WORK/created.txt"
counts="$(psql -X -qtA -d "$DATABASE_URL" -c "select count(*), count(distinct amount) from charges")" \
  || fail "read-model query"
[[ "$counts" == "20|20" ]] || fail "read model: charges|distinct amounts = $counts for 20 keys"
say "PASS: 20 keys while full, one charge each in the read model, all readable; /readyz named the disk and is ready again"
