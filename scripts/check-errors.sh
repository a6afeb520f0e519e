#!/usr/bin/env bash
# check-errors.sh: infra/ throws its own errors (docs/style.md, Errors in three tiers): every
# failure an adapter throws is an InfraError (infra/error.hpp) or one of its subclasses, so that
# callers can catch every kind as one and decide by retryable(). Fails (exit 1, printing
# file:line: text) when a tracked C++ file under infra/ throws a bare std::runtime_error or
# std::logic_error; throw InfraError(what, retryable) or the adapter's subclass instead. Run by
# .ci/run after scripts/check-standalone.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

hits=$(git grep -nE '\bthrow[[:space:]]+std::(runtime_error|logic_error)\b' -- \
  'infra/*.cpp' 'infra/*.hpp' 'infra/*.h' 'infra/*.cc' || true)
if [[ -n "$hits" ]]; then
  printf '%s\n' "$hits"
  echo "check-errors: infra/ throws a bare std::runtime_error or std::logic_error above; throw" \
       "InfraError(what, retryable) or the adapter's subclass (infra/error.hpp)" >&2
  exit 1
fi
echo "check-errors: infra/ throws no bare std::runtime_error or std::logic_error"
