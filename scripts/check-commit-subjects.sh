#!/usr/bin/env bash
# check-commit-subjects.sh: every commit subject after BASE is at most 72 characters (the detail
# goes in the body), so `git log --oneline` and the tools that show one line stay readable. BASE is
# the last commit made before the rule was checked: the older history keeps its longer subjects.
# Skips with a message where BASE is not in the clone (a shallow clone).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
BASE=61c0d1c
LIMIT=72
if ! git cat-file -e "$BASE^{commit}" 2>/dev/null; then
  echo "check-commit-subjects: $BASE is not in this clone; skipped"
  exit 0
fi
long="$(git log --format='%h %s' "$BASE..HEAD" | awk -v n="$LIMIT" '{ s = substr($0, index($0, " ") + 1); if (length(s) > n) print length(s) ": " $0 }')"
if [[ -n "$long" ]]; then
  echo "check-commit-subjects: subjects over $LIMIT characters since $BASE:" >&2
  echo "$long" >&2
  exit 1
fi
echo "check-commit-subjects: $(git rev-list --count "$BASE..HEAD") commits since $BASE, every subject <= $LIMIT characters"
