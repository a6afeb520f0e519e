#!/usr/bin/env bash
# check-pqxx-layer.sh: SQL and Postgres connections live in infra/ (the adapters) and projections/
# (the read-model mapping), never in the roles, the CLI, the API or the core (docs/design.md,
# Layers; ADR 0205): consumers/ orchestrates through infra/postgres's functions and ports (the
# consumer loop's TransactionRunner) without naming a libpqxx type. Fails (exit 1, printing
# file:line: text) when a tracked C++ file or CMakeLists.txt outside infra/ and projections/
# mentions pqxx; tests/ and bench/ may use it (integration tests read Postgres directly), and so
# may cmake/ (the build finds and links the library). Run by .ci/run after scripts/check-errors.sh.
set -euo pipefail
cd "$(dirname "$0")/.."

hits=$(git grep -n 'pqxx' -- '*.cpp' '*.hpp' '*.h' '*.cc' 'CMakeLists.txt' '*/CMakeLists.txt' \
  ':!infra/' ':!projections/' ':!tests/' ':!bench/' ':!cmake/' || true)
if [[ -n "$hits" ]]; then
  printf '%s\n' "$hits"
  echo "check-pqxx-layer: pqxx named outside infra/ and projections/ above; move the SQL into an" \
       "infra/postgres function or adapter (or projections/ for read-model logic) and call that" >&2
  exit 1
fi
echo "check-pqxx-layer: pqxx appears only in infra/, projections/, tests/, bench/ and cmake/"
