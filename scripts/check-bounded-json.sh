#!/usr/bin/env bash
# check-bounded-json.sh [BUILD_DIR]: the two rules of bounded JSON (docs/adr/0202-bounded-json.md),
# checked over the product code (api domain infra projections consumers):
#   1. RapidJSON is never asked to parse except through domain/json (parse, parse_with): a grep
#      for RapidJSON's parse entry points anywhere else (Parse, ParseInsitu, ParseStream, a
#      Reader's Parse) fails.
#   2. No function of ours is recursive: clang-tidy's misc-no-recursion over every product
#      translation unit of BUILD_DIR/compile_commands.json (default build) finds nothing. A
#      recursion over data we wrote ourselves would need a NOLINT with its reason; there is none.
# Exits non-zero, printing file:line, on any finding. `.ci/run` runs it after the build.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
cd "$ROOT"
rc=0

dirs=(api domain infra projections consumers)
allowed='^domain/json(\.cpp|\.hpp|_bounded\.hpp):'
hits="$(git grep -nE '(\.|->)(Parse|ParseInsitu|ParseStream)\s*(<[^>]*>)?\s*\(|\bGenericReader\b.*\bParse\b' \
  -- "${dirs[@]/%//*.cpp}" "${dirs[@]/%//*.hpp}" | grep -vE "$allowed" || true)"
if [[ -n "$hits" ]]; then
  echo "check-bounded-json: RapidJSON parse calls outside domain/json (use domain::json::parse):" >&2
  echo "$hits" >&2
  rc=1
fi

command -v clang-tidy >/dev/null || { echo "check-bounded-json: clang-tidy is missing (make deps)" >&2; exit 1; }
[[ -f "$BUILD/compile_commands.json" ]] || { echo "check-bounded-json: no $BUILD/compile_commands.json (make build)" >&2; exit 1; }
mapfile -t units < <(git ls-files -- "${dirs[@]/%//*.cpp}")
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
# Two at a time (the machine has two cores); only this check, so only what it finds is printed.
printf '%s\n' "${units[@]}" | xargs -P 2 -n 8 clang-tidy -p "$BUILD" --quiet \
  --checks='-*,misc-no-recursion' --warnings-as-errors='misc-no-recursion' --extra-arg=-Wno-error \
  --header-filter="^$ROOT/(api|domain|infra|projections|consumers)/" >"$out" 2>/dev/null
tidy_rc=$?
if grep -q 'misc-no-recursion' "$out" || ((tidy_rc != 0)); then
  echo "check-bounded-json: recursion in product code (clang-tidy misc-no-recursion):" >&2
  grep -E 'warning:|error:|note:' "$out" >&2 || cat "$out" >&2
  rc=1
fi
((rc == 0)) && echo "check-bounded-json: ${#units[@]} translation units: parsing only through domain/json, no recursion"
exit $rc
