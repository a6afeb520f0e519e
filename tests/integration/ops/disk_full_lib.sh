# Shared by the full-disk tests (pg_disk_full_test.sh, kafka_disk_full_test.sh; ADR 0220); sourced,
# never run. The caller sets DFL_NAME (the test's name), BIN (the duepay binary) and WORK (its
# scratch directory, emptied by dfl_enter_namespaces' caller), and defines dfl_extra_cleanup (what
# its own volume needs at exit) before dfl_arm_cleanup. Roles and Postgres started here are stopped
# by the EXIT trap that dfl_arm_cleanup sets.

say() { printf '[%s] %s\n' "$DFL_NAME" "$*" >&2; }
skip() { say "SKIP: $*"; exit 77; }

api_pid=""
projector=""
DFL_LOGS=()  # more logs fail() shows the end of
PG_DATA=""
PG_BIN="$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)"
# The client's timeout of every create (curl --max-time, s): an answer must come before it.
DFL_CLIENT_TIMEOUT="${DFL_CLIENT_TIMEOUT:-20}"

fail() {
  say "FAIL: $*"
  local f
  for f in "$WORK"/api.log "$WORK"/projector.log "$WORK"/postgres.log "${DFL_LOGS[@]}"; do
    [[ -f "$f" ]] && { say "--- $f"; tail -n 12 "$f" >&2; }
  done
  exit 1
}

# dfl_require_env VAR...: skip unless each is set (var/dev.env, as make test gives).
dfl_require_env() {
  local v
  for v in "$@"; do
    [[ -n "${!v:-}" ]] || skip "$v is not set (source var/dev.env, or run make test)"
  done
  [[ -x "$PG_BIN/initdb" ]] || skip "no Postgres server binaries"
}

# dfl_enter_namespaces FLAGS SCRIPT ARGS...: re-runs SCRIPT in namespaces of its own (unshare FLAGS:
# -m for a mount namespace, -mn for a network namespace as well, its loopback up), once; skips
# where this user may not make them.
dfl_enter_namespaces() {
  local flags="$1"
  shift
  [[ -n "${DUEPAY_DISK_FULL_INNER:-}" ]] && return 0
  unshare "$flags" true 2>/dev/null \
    || skip "this user may not make the namespaces (unshare $flags; needs root or CAP_SYS_ADMIN)"
  DUEPAY_DISK_FULL_INNER=1 exec unshare "$flags" bash -c \
    '[[ "$1" != *n* ]] || ip link set lo up || exit 1; shift; exec "$@"' _ "$flags" "$@"
}

# dfl_mount_tmpfs DIR SIZE: a tmpfs of SIZE at DIR (seen only in this mount namespace), or skip.
dfl_mount_tmpfs() {
  mount -t tmpfs -o "size=$2,mode=0755" tmpfs "$1" 2>"$WORK/mount.err" \
    || skip "mount -t tmpfs failed here: $(cat "$WORK/mount.err")"
}

dfl_cleanup() {
  local p
  for p in "$api_pid" "$projector"; do
    [[ -n "$p" ]] && kill -TERM "$p" 2>/dev/null && wait "$p" 2>/dev/null
  done
  [[ -n "$PG_DATA" ]] \
    && runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$PG_DATA" -m immediate -w stop >/dev/null 2>&1
  dfl_extra_cleanup
  true
}
dfl_arm_cleanup() {
  trap dfl_cleanup EXIT
  trap 'exit 143' TERM INT
}

# shellcheck source=../lib.sh
source "$ROOT/tests/integration/lib.sh"  # free_ports

# dfl_start_postgres DATA PORT: initdb in DATA (an empty directory owned by postgres, mode 0700),
# start it on PORT, the role and database, the migrations, the demo project; exports DATABASE_URL
# and sets key (the demo test key).
dfl_start_postgres() {
  local data="$1" port="$2"
  runuser -u postgres -- "$PG_BIN/initdb" -D "$data" -U postgres --auth=trust --encoding=UTF8 \
    --locale=C.UTF-8 >"$WORK/initdb.log" 2>&1 || { cat "$WORK/initdb.log" >&2; fail "initdb"; }
  cat >>"$data/postgresql.conf" <<CONF
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
max_connections = 50
CONF
  touch "$WORK/postgres.log" && chown postgres "$WORK/postgres.log"
  runuser -u postgres -- "$PG_BIN/pg_ctl" -D "$data" -l "$WORK/postgres.log" -w -t 60 start \
    >/dev/null || fail "pg_ctl start"
  PG_DATA="$data"
  psql -X -q -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U postgres -d postgres \
    -c "create role duepay login" -c "create database duepay owner duepay" || fail "role and database"
  export DATABASE_URL="postgresql://duepay@127.0.0.1:$port/duepay"
  "$ROOT/infra/dev/stack.sh" migrate >"$WORK/migrate.log" 2>&1 || { cat "$WORK/migrate.log" >&2; fail "migrations"; }
  "$BIN" admin demo >"$WORK/demo.json" 2>"$WORK/demo.err" </dev/null || fail "admin demo: $(cat "$WORK/demo.err")"
  key="$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["key"])' "$WORK/demo.json")" \
    || fail "admin demo printed no key"
}

# dfl_start_roles TOPIC GROUP API_PORT OPS_PORT: a projector and an api (with its ops listener) on
# TOPIC of KAFKA_BOOTSTRAP; sets api_pid, projector, api and readyz, and waits for /readyz and for
# the API's listener.
dfl_start_roles() {
  export DUEPAY_TOPIC="$1" DUEPAY_PROJECTOR_GROUP="$2"
  unset DUEPAY_OPS_LISTEN
  "$BIN" projector >"$WORK/projector.log" 2>&1 &
  projector=$!
  "$BIN" api --listen "127.0.0.1:$3" --ops-listen "127.0.0.1:$4" >"$WORK/api.log" 2>&1 &
  api_pid=$!
  api="http://127.0.0.1:$3"
  readyz="http://127.0.0.1:$4/readyz"
  # The ops listener opens before the API's own: both must answer (the API with any status).
  local _
  for _ in $(seq 300); do
    curl -fsS -o /dev/null "$readyz" 2>/dev/null \
      && [[ "$(curl -sS -o /dev/null -w '%{http_code}' "$api/v1/charges" 2>/dev/null)" != 000 ]] && break
    kill -0 "$api_pid" 2>/dev/null || fail "the api exited"
    sleep 0.1
  done
  curl -fsS -o /dev/null "$readyz" || fail "the api was not /readyz within 30 s"
  curl -sS -o /dev/null "$api/v1/charges" || fail "the api did not listen within 30 s"
}

# create KEY AMOUNT: one attempt; prints one JSON line {key, amount, status, seconds, code,
# retryAfterMs, retryAfter, envelope, invoiceId}. status 0: no answer within DFL_CLIENT_TIMEOUT
# (or none at all; then error is curl's message).
create() {
  local out
  out="$(curl -sS -o "$WORK/body" -D "$WORK/head" -w '%{http_code} %{time_total}' \
    --max-time "$DFL_CLIENT_TIMEOUT" -X POST "$api/v1/invoices" -H "x-api-key: $key" \
    -H 'content-type: application/json' -H "idempotency-key: $1" \
    --data-binary "{\"chainId\":80002,\"amount\":\"$2\"}" 2>"$WORK/curl.err")"
  python3 - "$1" "$2" "${out:-0 0}" "$WORK/body" "$WORK/head" "$WORK/curl.err" <<'PY'
import json, sys
key, amount, out, body, head, err = sys.argv[1:]
status, seconds = (out.split() + ["0"])[:2]
rec = {"key": key, "amount": amount, "status": int(status), "seconds": float(seconds)}
if rec["status"] == 0:
    rec["error"] = open(err, errors="replace").read().strip()[:200]
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

# dfl_check_full JSONL MIN_503 CODE...: every answer while full is a 201 or a 503 of one of the
# CODEs in the envelope with meta.retryAfterMs and Retry-After, and at least MIN_503 are 503s;
# prints a summary line (to $WORK/full.txt, and to stderr on failure).
dfl_check_full() {
  local jsonl="$1" min="$2"
  shift 2
  python3 - "$jsonl" "$min" "$@" >"$WORK/full.txt" <<'PY' || { cat "$WORK/full.txt" >&2; fail "the answers while full"; }
import collections, json, sys
rows = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
least, codes = int(sys.argv[2]), set(sys.argv[3:])
bad = [r for r in rows if not (r["status"] == 201 or (
    r["status"] == 503 and r.get("envelope") and r.get("code") in codes
    and isinstance(r.get("retryAfterMs"), int) and r.get("retryAfter")))]
by = collections.Counter(f'{r["status"]} {r.get("code") or ""}'.strip() for r in rows)
full = sum(1 for r in rows if r["status"] == 503)
took = [r["seconds"] for r in rows if r["status"] == 503]
span = f" ({min(took):.1f}-{max(took):.1f} s each)" if took else ""
print(f"while full: {len(rows)} creates: " + ", ".join(f"{n} x {k}" for k, n in sorted(by.items())) + span)
for r in bad[:5]: print("unexpected:", json.dumps(r))
if full < least: print(f"fewer than {least} creates met the full disk: nothing was tested")
sys.exit(1 if bad or full < least else 0)
PY
  say "$(cat "$WORK/full.txt")"
}

# dfl_retry_keys FULL_JSONL ATTEMPTS: every key of FULL_JSONL retried (same key, same body) until
# its 201, at most ATTEMPTS times 0.5 s apart, into $WORK/after.jsonl; fails unless each key got
# its 201 and no key got two invoice ids.
dfl_retry_keys() {
  local k a line _
  : >"$WORK/after.jsonl"
  while read -r k a; do
    for _ in $(seq "$2"); do
      line="$(create "$k" "$a")"
      echo "$line" >>"$WORK/after.jsonl"
      [[ "$line" == *'"status": 201'* ]] && break
      sleep 0.5
    done
  done < <(python3 -c 'import json,sys
for l in open(sys.argv[1]):
    r = json.loads(l); print(r["key"], r["amount"])' "$1")
  python3 - "$WORK/after.jsonl" "$1" >"$WORK/after.txt" <<'PY' || { cat "$WORK/after.txt" >&2; fail "the retries after the space came back"; }
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
}

# dfl_check_charges N JSONL...: N keys have a 201 in the JSONL files, each readable by id with its
# amount, and the read model holds exactly N charges with N distinct amounts. Leaves "invoiceId
# amount" lines in $WORK/created.txt.
dfl_check_charges() {
  local n="$1" got counts inv amount
  shift
  cat "$@" | python3 -c 'import json,sys
seen = {}
for l in sys.stdin:
    r = json.loads(l)
    if r["status"] == 201: seen[r["key"]] = (r["invoiceId"], r["amount"])
for inv, amount in seen.values(): print(inv, amount)' >"$WORK/created.txt"
  got="$(wc -l <"$WORK/created.txt")"
  ((got == n)) || fail "$got keys with a 201, expected $n"
  while read -r inv amount; do
    got="$(curl -sS --max-time 10 -H "x-api-key: $key" "$api/v1/charges/$inv" \
      | python3 -c 'import json,sys; d=json.load(sys.stdin)["data"]; print(d["invoiceId"], d["amount"])' 2>/dev/null)"
    [[ "$got" == "$inv $amount" ]] || fail "GET /v1/charges/$inv: got '$got', expected amount $amount"
  done <"$WORK/created.txt"
  counts="$(psql -X -qtA -d "$DATABASE_URL" -c "select count(*), count(distinct amount) from charges")" \
    || fail "read-model query"
  [[ "$counts" == "$n|$n" ]] || fail "read model: charges|distinct amounts = $counts for $n keys"
}
