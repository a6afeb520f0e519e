# tests/integration/lib.sh: shell helpers the integration test scripts share; source it
# (`source "$(dirname "${BASH_SOURCE[0]}")/../lib.sh"`), it runs nothing by itself.
#   free_port        prints a TCP port on 127.0.0.1 that was free a moment ago
#   free_ports N     prints N distinct ports of 127.0.0.1 free a moment ago (held together while
#                    chosen, so never the same twice)
#   free_port_run N  prints a base port B with B..B+N-1 all free a moment ago (the supervisor's
#                    --ops-base-port: its own listener on B, each role's on the next ones);
#                    prints nothing when 200 random tries found no such run

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'
}

free_ports() {
  python3 - "$1" <<'PY'
import socket, sys
socks = [socket.socket() for _ in range(int(sys.argv[1]))]
for s in socks: s.bind(("127.0.0.1", 0))
print(" ".join(str(s.getsockname()[1]) for s in socks))
for s in socks: s.close()
PY
}

free_port_run() {
  python3 - "$1" <<'PY'
import random, socket, sys
n = int(sys.argv[1])
for _ in range(200):
    base = random.randint(20000, 30000)
    socks = []
    try:
        for p in range(base, base + n):
            s = socket.socket(); s.bind(("127.0.0.1", p)); socks.append(s)
        print(base); break
    except OSError:
        pass
    finally:
        for s in socks: s.close()
PY
}
