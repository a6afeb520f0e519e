#!/usr/bin/env bash
# Fails (exit 1, printing file:line: text) when a tracked file points outside the repository:
# a sibling checkout (`../shared`), the outside product contract, design or style documents by
# name or number ("DESIGN 4", "STYLE rule 2", "spec 4.1"), or an issue tracker by number
# ("issue 12", "issue #12", "issues 3-5", "issue-14"). The repository's own texts are
# docs/product.md, docs/design.md and docs/style.md: cite those by section name, cite an ADR, or
# state the substance. A third-party bug may be cited by its full URL (…/issues/NNNN), which does
# not match. Skipped: package-lock.json (generated) and this script (it spells the patterns).
# Run by .ci/run next to `make format-check`.
set -euo pipefail
cd "$(dirname "$0")/.."

patterns=(
  '\.\./shared\b'
  '\bshared/(spec|DESIGN|STYLE)'
  'charge-payment-service\.md'
  '\b(DESIGN|STYLE)\b'
  '\b[Ii]ssues?[ -]#?[0-9]+'
  '\b[Ii]ssue[0-9]+'
  '\b[Ss]pec (sections? )?[0-9]+(\.[0-9]+)*\b'
  '\b[Ss]pec §'
)
regex=$(IFS='|'; echo "${patterns[*]}")
excluded=(':!:package-lock.json' ':!:**/package-lock.json' ':!:scripts/check-standalone.sh')

status=0
# Contents of every tracked text file (-I skips binary files, -s files deleted in the work tree).
# xargs may run grep several times, so the verdict is the output, not an exit status.
hits=$(git ls-files -z -- . "${excluded[@]}" | xargs -0 grep -nIHsE -e "$regex" -- || true)
# File names count too (a plot named after an issue).
names=$(git ls-files -- . "${excluded[@]}" | grep -E '(^|/)[^/]*[Ii]ssues?[-_ ]?#?[0-9]' || true)
for found in "$hits" "$names"; do
  if [[ -n "$found" ]]; then
    printf '%s\n' "$found"
    status=1
  fi
done

if [[ $status -ne 0 ]]; then
  echo "check-standalone: the lines above point outside the repository; cite docs/product.md," \
       "docs/design.md, docs/style.md or an ADR, or state the substance" >&2
fi
exit $status
