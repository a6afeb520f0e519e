#!/usr/bin/env bash
# Install what duepay needs to build, test and run its dev stack, and nothing that is already there.
# Idempotent, non-interactive (CI has no stdin), a few seconds when everything is present:
#   1. Debian packages that are missing (apt-get update only when something is missing);
#      tools that may come from outside apt (node, npm, java, mvn, psql) count as present when
#      they are on PATH.
#   2. npm install of the locked versions when node_modules is missing or older than package-lock.json.
#   3. the Kafka broker jars (infra/kafka/pom.xml) into var/kafka/libs, skipped for the same pom.
#   4. a Python venv in var/venv with the pinned test tools (schemathesis) of
#      tests/integration/api_schema/requirements.txt, skipped when that file's hash is unchanged.
set -euo pipefail
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
cd "$ROOT"
log() { printf '[deps] %s\n' "$*" >&2; }
t0=$(date +%s%3N)

# postgresql-15-auto-failover: the HA mode of the dev stack and the ha_failover test (ADR 0209).
APT_PACKAGES=(
  build-essential cmake ninja-build pkg-config
  librdkafka-dev libpistache-dev rapidjson-dev libpqxx-dev libssl-dev libsecp256k1-dev
  libgtest-dev libgmock-dev libbenchmark-dev libboost-dev libcurl4-openssl-dev
  postgresql postgresql-client wrk openjdk-17-jre-headless maven nodejs npm python3-venv
  libqrencode-dev chromium zbar-tools fonts-thai-tlwg ccache clang-format libcli11-dev
  gnuplot-nox linux-perf prometheus clang-tidy postgresql-15-auto-failover
)

# present PACKAGE: installed by dpkg, or (for tools that also come from elsewhere) on PATH.
present() {
  case "$1" in
    nodejs) command -v node >/dev/null && return 0 ;;
    npm) command -v npm >/dev/null && return 0 ;;
    openjdk-17-jre-headless)
      command -v java >/dev/null && java -version 2>&1 | grep -qE 'version "(1[7-9]|2[0-9])' && return 0 ;;
    maven) command -v mvn >/dev/null && return 0 ;;
    python3-venv) command -v python3 >/dev/null && python3 -c 'import venv, ensurepip' 2>/dev/null && return 0 ;;
    postgresql-client) command -v psql >/dev/null && command -v pg_isready >/dev/null && return 0 ;;
    postgresql) compgen -G '/usr/lib/postgresql/*/bin/postgres' >/dev/null && return 0 ;;
  esac
  [[ "$(dpkg-query -W -f='${Status}' "$1" 2>/dev/null)" == "install ok installed" ]]
}

missing=()
for p in "${APT_PACKAGES[@]}"; do
  present "$p" || missing+=("$p")
done
if ((${#missing[@]})); then
  log "installing: ${missing[*]}"
  SUDO=""
  [[ "$(id -u)" == 0 ]] || SUDO="sudo -n"
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq </dev/null
  $SUDO apt-get install -y -qq --no-install-recommends -o Dpkg::Use-Pty=0 "${missing[@]}" </dev/null >/dev/null
else
  log "apt packages: all present"
fi

if [[ ! -f node_modules/.package-lock.json || package-lock.json -nt node_modules/.package-lock.json ]]; then
  # Not `npm ci`: package-lock.json pins only the platform packages of @foundry-rs/anvil that the
  # registry mirror serves (linux-amd64), so npm ci rejects it as out of sync. `npm install
  # --no-save` installs the locked versions (integrity-checked) and leaves the lock file alone.
  log "npm install (locked versions)"
  npm install --no-save --no-audit --no-fund --loglevel=error </dev/null
else
  log "node_modules: up to date"
fi

infra/dev/kafka.sh libs </dev/null

# Python test tools: rebuilt only when the requirements (or the interpreter) changed.
PY_REQS=tests/integration/api_schema/requirements.txt
PY_STAMP=var/venv/.requirements.sha256
py_hash="$( { sha256sum "$PY_REQS" | cut -d' ' -f1; python3 --version 2>&1; } | sha256sum | cut -d' ' -f1)"
if [[ -x var/venv/bin/python && -f "$PY_STAMP" && "$(cat "$PY_STAMP")" == "$py_hash" ]]; then
  log "python venv: up to date"
else
  log "python venv: installing $PY_REQS into var/venv"
  mkdir -p var
  [[ -x var/venv/bin/python ]] || python3 -m venv var/venv </dev/null
  var/venv/bin/python -m pip install --quiet --disable-pip-version-check -r "$PY_REQS" </dev/null
  echo "$py_hash" >"$PY_STAMP"
fi
log "done in $(( $(date +%s%3N) - t0 )) ms"
