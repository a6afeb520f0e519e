#!/usr/bin/env python3
"""tidy_cached.py ROOT BUILD UNIT...: clang-tidy on each unit, through a cache of its output.

check-tidy.sh calls this instead of clang-tidy. A unit's output is kept under
$DUEPAY_TIDY_CACHE (default ~/.cache/duepay-tidy), keyed by everything clang-tidy's answer
depends on: clang-tidy's version, .clang-tidy, the header filter, the unit's compile command, and
the unit preprocessed with its comments (`-E -C`: every header it includes, every NOLINT, line
markers included so reported lines stay exact). The checkout's own path is replaced by a
placeholder in both the key and the stored output, so another clone of the same tree hits the
same entries, as the compiler cache does for object files. DUEPAY_TIDY_CACHE=off runs clang-tidy
on every unit. Prints clang-tidy's output (stdout and stderr) for each unit.
"""
import hashlib
import json
import os
import shlex
import subprocess
import sys

PLACEHOLDER = "@DUEPAY_ROOT@"


def main():
    root, build, units = sys.argv[1], sys.argv[2], sys.argv[3:]
    cache = os.environ.get("DUEPAY_TIDY_CACHE", os.path.expanduser("~/.cache/duepay-tidy"))
    header_filter = f"^{root}/(api|domain|infra|projections|consumers)/"
    with open(os.path.join(build, "compile_commands.json")) as f:
        commands = {os.path.realpath(e["file"]): e for e in json.load(f)}
    version = subprocess.run(["clang-tidy", "--version"], capture_output=True, text=True).stdout
    with open(os.path.join(root, ".clang-tidy"), "rb") as f:
        config = f.read()
    for unit in units:
        path = os.path.realpath(os.path.join(root, unit))
        entry = commands.get(path)
        output = None
        key = None
        if cache != "off" and entry is not None:
            key = unit_key(root, entry, version, config, header_filter)
        stored = os.path.join(cache, key[:2], key) if key else None
        if stored and os.path.exists(stored):
            with open(stored, encoding="utf-8", errors="replace") as f:
                output = f.read().replace(PLACEHOLDER, root)
        if output is None:
            run = subprocess.run(
                ["clang-tidy", "-p", build, "--quiet", "--extra-arg=-Wno-error",
                 f"--header-filter={header_filter}", unit],
                cwd=root, capture_output=True, text=True, errors="replace")
            output = run.stdout + run.stderr
            # Only a run that compiled is kept: an error is reported again next time.
            if stored and ": error: " not in output:
                os.makedirs(os.path.dirname(stored), exist_ok=True)
                tmp = f"{stored}.{os.getpid()}"
                with open(tmp, "w", encoding="utf-8") as f:
                    f.write(output.replace(root, PLACEHOLDER))
                os.replace(tmp, stored)
        sys.stdout.write(output)
    return 0


def unit_key(root, entry, version, config, header_filter):
    args = shlex.split(entry["command"]) if "command" in entry else list(entry["arguments"])
    pre = []
    skip = False
    for a in args:
        if skip:
            skip = False
            continue
        if a in ("-o", "-MF", "-MT", "-MQ"):
            skip = True
            continue
        if a in ("-c", "-MD", "-MMD"):
            continue
        pre.append(a)
    pre += ["-E", "-C"]
    run = subprocess.run(pre, cwd=entry["directory"], capture_output=True)
    if run.returncode != 0:
        return None  # let clang-tidy report what does not compile
    h = hashlib.sha256()
    for part in (version.encode(), config, header_filter.replace(root, PLACEHOLDER).encode(),
                 " ".join(args).replace(root, PLACEHOLDER).encode(),
                 run.stdout.replace(root.encode(), PLACEHOLDER.encode())):
        h.update(len(part).to_bytes(8, "little"))
        h.update(part)
    return h.hexdigest()


if __name__ == "__main__":
    sys.exit(main())
