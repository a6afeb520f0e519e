#!/usr/bin/env bash
# check-tidy.sh [BUILD_DIR]: clang-tidy over the product code (api domain infra projections
# consumers) in one pass, with the checks of .clang-tidy (ADR 0211), and bounded JSON's two rules
# (docs/adr/0202-bounded-json.md):
#   1. RapidJSON is never asked to parse except through domain/json (parse, parse_with): a grep
#      for RapidJSON's parse entry points anywhere else (Parse, ParseInsitu, ParseStream, a
#      Reader's Parse) fails.
#   2. One clang-tidy run over every product translation unit of BUILD_DIR/compile_commands.json
#      (default build), two at a time (the machine has two cores), headers of those folders
#      included. It fails on:
#        - any misc-no-recursion finding, anywhere (no function of ours is recursive; a recursion
#          over data we wrote ourselves would need a NOLINT with its reason; there is none);
#        - any finding of any configured check in a file under a folder of CLEAN below (every
#          folder but api/dashboard/, which joins when its findings are fixed);
#        - a translation unit clang-tidy cannot compile.
#      Findings elsewhere (api/dashboard/ only) are counted per check and printed, without failing.
# Each finding is printed once (a header's finding is reported by every unit including it).
# Each unit's output is cached by scripts/tidy_cached.py, keyed by what clang-tidy's answer depends
# on (its version, .clang-tidy, the compile command, the unit preprocessed with its comments), so
# an unchanged unit costs a preprocessing, not an analysis; DUEPAY_TIDY_CACHE=off runs every unit.
# TIDY_UNITS="a.cpp b.cpp" checks only those units (a folder at a time while fixing); TIDY_LIST=1
# prints the findings outside the clean folders one a line as well, not only their counts.
# Exits non-zero, printing file:line, on any failing finding. `.ci/run` runs it after the build.
set -uo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
BUILD="${1:-$ROOT/build}"
cd "$ROOT"
rc=0

dirs=(api domain infra projections consumers)
# Folders (path prefixes from the repository root) with zero findings: any finding there fails.
# Every product folder: any finding there fails; a false finding gets a NOLINT(check) with its
# reason.
CLEAN=(api/ domain/ infra/ projections/ consumers/)

allowed='^domain/json(\.cpp|\.hpp|_bounded\.hpp):'
hits="$(git grep -nE '(\.|->)(Parse|ParseInsitu|ParseStream)\s*(<[^>]*>)?\s*\(|\bGenericReader\b.*\bParse\b' \
  -- "${dirs[@]/%//*.cpp}" "${dirs[@]/%//*.hpp}" | grep -vE "$allowed" || true)"
if [[ -n "$hits" ]]; then
  echo "check-tidy: RapidJSON parse calls outside domain/json (use domain::json::parse):" >&2
  echo "$hits" >&2
  rc=1
fi

command -v clang-tidy >/dev/null || { echo "check-tidy: clang-tidy is missing (make deps)" >&2; exit 1; }
[[ -f "$BUILD/compile_commands.json" ]] || { echo "check-tidy: no $BUILD/compile_commands.json (make build)" >&2; exit 1; }
if [[ -n "${TIDY_UNITS:-}" ]]; then
  read -r -a units <<<"$TIDY_UNITS"
else
  mapfile -t units < <(git ls-files -- "${dirs[@]/%//*.cpp}")
fi
out="$(mktemp)"
trap 'rm -f "$out"' EXIT
started=$SECONDS
# Through the output cache of scripts/tidy_cached.py (a unit whose preprocessed text, command and
# checks are unchanged is not analysed again; DUEPAY_TIDY_CACHE=off disables it).
printf '%s\n' "${units[@]}" | xargs -P 2 -n 8 python3 "$ROOT/scripts/tidy_cached.py" "$ROOT" "$BUILD" \
  >"$out" 2>/dev/null

# file:line:col: warning: text [check], once each, the path from the repository root.
findings="$(grep -E '^/.*:[0-9]+:[0-9]+: warning: .* \[[a-z0-9.,-]+\]$' "$out" | sed "s#^$ROOT/##" | sort -u)"
errors="$(grep -E '^/.*:[0-9]+:[0-9]+: error: ' "$out" | sed "s#^$ROOT/##" | sort -u)"
if [[ -n "$errors" ]]; then
  echo "check-tidy: clang-tidy could not compile:" >&2
  echo "$errors" >&2
  rc=1
fi
recursion="$(grep -F '[misc-no-recursion]' <<<"$findings" || true)"
if [[ -n "$recursion" ]]; then
  echo "check-tidy: recursion in product code (misc-no-recursion, ADR 0202):" >&2
  echo "$recursion" >&2
  rc=1
fi
clean_re='^$'  # no folder clean yet: matches no finding
((${#CLEAN[@]} > 0)) && clean_re="^($(IFS='|'; echo "${CLEAN[*]}"))"
failing="$(grep -E "$clean_re" <<<"$findings" | grep -vF '[misc-no-recursion]' || true)"
if [[ -n "$failing" ]]; then
  echo "check-tidy: findings in folders that are clean (${CLEAN[*]}):" >&2
  echo "$failing" >&2
  rc=1
fi
rest="$(grep -vE "$clean_re" <<<"$findings" | grep -vF '[misc-no-recursion]' || true)"
if [[ -n "$rest" ]]; then
  echo "check-tidy: not failing, outside the clean folders: $(wc -l <<<"$rest") findings:"
  grep -oE '\[[a-z0-9.,-]+\]$' <<<"$rest" | sort | uniq -c | sort -rn
  [[ "${TIDY_LIST:-0}" == 1 ]] && echo "$rest"
fi
((rc == 0)) && echo "check-tidy: ${#units[@]} translation units in $((SECONDS - started)) s:" \
  "parsing only through domain/json, no recursion, no finding in ${CLEAN[*]}"
exit $rc
