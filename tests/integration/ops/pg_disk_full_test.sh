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
# Helpers shared with kafka_disk_full: disk_full_lib.sh.
#   pg_disk_full_test.sh DUEPAY_BIN WORK_DIR   (the stack from var/dev.env, as `make test` gives)
set -uo pipefail
BIN="$1"
WORK="$2"
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../../.." && pwd)"
DFL_NAME=pg_disk_full
# shellcheck source=disk_full_lib.sh
source "$ROOT/tests/integration/ops/disk_full_lib.sh"

dfl_require_env KAFKA_BOOTSTRAP DUEPAY_SIGNER_KEY DUEPAY_SERVER_SECRET DUEPAY_CHAINS_FILE
# Outside: re-run this script in a mount namespace of its own (its tmpfs is seen by nobody else).
dfl_enter_namespaces -m "$0" "$@"

rm -rf "$WORK" && mkdir -p "$WORK"
VOL="$(mktemp -d /tmp/duepay-pg-disk-full.XXXXXX)"
dfl_extra_cleanup() {
  rm -f "$VOL/data/filler"
  umount "$VOL" 2>/dev/null
  rmdir "$VOL" 2>/dev/null
}
dfl_arm_cleanup
dfl_mount_tmpfs "$VOL" 128m
chmod 0755 "$VOL"
mkdir -m 0700 "$VOL/data" && chown postgres:postgres "$VOL/data"

read -r pg_port api_port ops_port <<<"$(free_ports 3)"
[[ -n "$ops_port" ]] || fail "no free ports"
dfl_start_postgres "$VOL/data" "$pg_port"

suffix="$$-$RANDOM"
topic="duepay.test.pgdiskfull.$suffix"
"$BIN" admin topic create --name "$topic" --partitions 3 >/dev/null || fail "topic create"
dfl_start_roles "$topic" "duepay-test-pgdiskfull-$suffix" "$api_port" "$ops_port"

run=$((100000 + RANDOM))
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
dfl_check_full "$WORK/full.jsonl" 1 database_unavailable
[[ "$ready_full" == *"HTTP 503"* && "$ready_full" == *"disk full (SQLSTATE 53100)"* ]] \
  || fail "/readyz while full did not name the disk: $ready_full"
say "/readyz while full: $(head -n 1 <<<"$ready_full" | cut -c1-160)"

# 2. Space back: nothing restarted; every key retried until its 201.
rm -f "$VOL/data/filler"
sync
t_free="$(date +%s%3N)"
dfl_retry_keys "$WORK/full.jsonl" 60
say "$(cat "$WORK/after.txt"); $(($(date +%s%3N) - t_free)) ms after the space came back"
for _ in $(seq 300); do curl -fsS -o /dev/null "$readyz" 2>/dev/null && break; sleep 0.1; done
curl -fsS -o /dev/null "$readyz" || fail "/readyz not 200 within 30 s of the space coming back: $(curl -sS "$readyz")"

# 3. One charge per key, every 201 readable by id.
dfl_check_charges 20 "$WORK/full.jsonl" "$WORK/after.jsonl"
say "PASS: 20 keys while full, one charge each in the read model, all readable; /readyz named the disk and is ready again"
