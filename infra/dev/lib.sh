# Shared helpers for the dev-stack scripts (sourced, never run). Sets ROOT (repo root) and VAR.
# Everything the stack writes lives under $VAR (git-ignored).

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)"
VAR="$ROOT/var"

log() { printf '[%s] %s\n' "${DEV_COMPONENT:-dev}" "$*" >&2; }
die() { log "ERROR: $*"; exit 1; }

# port_open HOST PORT: true when something accepts TCP connections there.
port_open() { (exec 3<>"/dev/tcp/$1/$2") 2>/dev/null; }

# now_ms: wall clock in milliseconds, for the readiness timings we print.
now_ms() { date +%s%3N; }

# with_lock NAME: serialise concurrent start/stop calls of one component (fd 9). Children that
# outlive the script (the broker, postgres) must be started with 9>&- so they do not keep the lock.
with_lock() {
  mkdir -p "$VAR"
  exec 9>"$VAR/.$1.lock"
  flock 9
}

# pid_alive FILE [PATTERN]: true when FILE holds the pid of a running process (whose command
# line contains PATTERN, so a recycled pid is not mistaken for ours).
pid_alive() {
  [[ -s "$1" ]] || return 1
  local pid; pid="$(cat "$1")"
  kill -0 "$pid" 2>/dev/null || return 1
  [[ -z "${2:-}" ]] || tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$2"
}

# port_owner PORT: "pid N: command line" of the process listening on 127.0.0.1:PORT, if visible.
port_owner() {
  local pid
  pid="$(ss -ltnpH "sport = :$1" 2>/dev/null | sed -n 's/.*pid=\([0-9]*\).*/\1/p' | head -1)"
  [[ -n "$pid" ]] || { echo "unknown process"; return; }
  echo "pid $pid: $(tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | cut -c1-300)"
}
