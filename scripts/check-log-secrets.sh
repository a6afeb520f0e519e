#!/usr/bin/env bash
# check-log-secrets.sh STAMP [BUILD_DIR]: the last step of `make test`. Greps the whole log of the
# run -- ctest's full output (BUILD_DIR/Testing/Temporary/LastTest.log), every log file the tests
# and the roles wrote since STAMP (/tmp/duepay-*, *.log under BUILD_DIR) and the dev stack's logs
# (var/**/*.log, Kafka's data excepted) -- for the demo test key, the signer key (with or without
# 0x) and the server secret, from the environment (var/dev.env). Exits 1 naming the file when one
# appears, never printing the secret itself.
set -uo pipefail
STAMP="$1"
BUILD="${2:-build}"
say() { printf '[log-secrets] %s\n' "$*" >&2; }
[[ -f "$STAMP" ]] || { say "no stamp file $STAMP"; exit 2; }

secrets=()
for v in DUEPAY_DEMO_TEST_KEY DUEPAY_SIGNER_KEY DUEPAY_SERVER_SECRET; do
  value="${!v:-}"
  value="${value#0x}"
  if [[ ${#value} -ge 16 ]]; then secrets+=("$value"); else say "$v not set: not checked"; fi
done
((${#secrets[@]})) || { say "no secret to look for"; exit 2; }

mapfile -t files < <(
  [[ -f "$BUILD/Testing/Temporary/LastTest.log" ]] && echo "$BUILD/Testing/Temporary/LastTest.log"
  find /tmp -maxdepth 1 -type f -name 'duepay*' -newer "$STAMP" 2>/dev/null
  find "$BUILD" -type f -name '*.log' -newer "$STAMP" 2>/dev/null
  find var -type f -name '*.log' -not -path 'var/kafka/data/*' 2>/dev/null
)
found=0
bytes=0
for f in "${files[@]}"; do
  bytes=$((bytes + $(stat -c %s "$f" 2>/dev/null || echo 0)))
  for s in "${secrets[@]}"; do
    if grep -q -a -i -F -- "$s" "$f"; then
      say "FAIL: a secret (${#s} chars) appears in $f"
      found=1
    fi
  done
done
say "${#files[@]} log files, $bytes bytes: $( ((found)) && echo 'SECRET FOUND' || echo 'no key or secret')"
exit "$found"
