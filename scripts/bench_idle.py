"""Idle connections against a serving server (docs/PERFORMANCE.md, "Idle connections"): the
server's resident memory with N connections that completed their HTTP/2 preface and say nothing
more, and with N that sent half a preface; and the hands per second `pitboss bench-load` drives
with and without N idle connections held, alternating, in one run.

Usage: bench_idle.py PITBOSS_BINARY [N] [ROUNDS] [SECONDS]
"""

import os
import re
import signal
import socket
import subprocess
import sys
import tempfile
import time

sys.path.insert(0, os.path.dirname(__file__))
from bench_start import free_port  # noqa: E402

PREFACE = b"PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n" + bytes([0, 0, 0, 4, 0, 0, 0, 0, 0])


def resident(pid):
    with open("/proc/%d/status" % pid) as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) * 1024
    return 0


def hold(port, n, first):
    held = []
    for _ in range(n):
        s = socket.create_connection(("127.0.0.1", port))
        s.sendall(first)
        held.append(s)
    return held


def settle(pid, seconds=2.0):
    time.sleep(seconds)
    return resident(pid)


def load(binary, port, data, seconds):
    out = subprocess.run(
        [binary, "bench-load", "--clients", "64", "--seconds", str(seconds),
         "--server", "http://127.0.0.1:%d" % port, "--local-data", data],
        capture_output=True, text=True, check=True,
    ).stdout
    found = re.search(r"hands/s\D*([0-9.]+)", out)
    return float(found.group(1)) if found else float("nan")


def main(binary, n, rounds, seconds):
    work = tempfile.mkdtemp(prefix="pitboss-bench-idle-")
    data = os.path.join(work, "data")
    settings = os.path.join(work, "pitboss.toml")
    with open(settings, "w") as f:
        # Every idle connection kept, whatever its address, for as long as the run lasts.
        f.write("[limits]\nmax_connections = %d\nmax_connections_per_peer = %d\n"
                "[connections]\nhandshake_timeout_ms = 600000\nidle_timeout_ms = 3600000\n"
                % (n + 1000, n + 1000))
    port = free_port()
    server = subprocess.Popen(
        [binary, "serve", "--config", settings, "--data", data, "--listen", "127.0.0.1:%d" % port,
         "--warm", "false"],
        stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True,
    )
    server.stdout.readline()
    pid = server.pid
    base = settle(pid)
    held = hold(port, n, PREFACE)
    established = settle(pid)
    for s in held:
        s.close()
    after = settle(pid)
    held = hold(port, n, PREFACE[:16])
    half = settle(pid)
    for s in held:
        s.close()
    print("| connections | resident memory | per connection |")
    print("| --- | --- | --- |")
    print("| none | %.1f MiB | |" % (base / 2**20))
    print("| %d with their HTTP/2 preface, idle | %.1f MiB | %.1f KiB |"
          % (n, established / 2**20, (established - base) / n / 1024))
    print("| %d with half a preface | %.1f MiB | %.1f KiB |"
          % (n, half / 2**20, (half - after) / n / 1024))
    print()
    print("| round | hands/s, no idle connection | hands/s, %d idle connections held | ratio |" % n)
    print("| --- | --- | --- | --- |")
    for r in range(1, rounds + 1):
        without = load(binary, port, data, seconds)
        held = hold(port, n, PREFACE)
        with_idle = load(binary, port, data, seconds)
        for s in held:
            s.close()
        print("| %d | %.0f | %.0f | %.2f |" % (r, without, with_idle, with_idle / without))
    server.send_signal(signal.SIGTERM)
    server.wait()


if __name__ == "__main__":
    main(sys.argv[1],
         int(sys.argv[2]) if len(sys.argv) > 2 else 5000,
         int(sys.argv[3]) if len(sys.argv) > 3 else 3,
         int(sys.argv[4]) if len(sys.argv) > 4 else 8)
