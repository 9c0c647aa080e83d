"""How soon a started server answers, measured as its clients see it (docs/PERFORMANCE.md,
"From start to the first answer"): `pitboss serve` started on a fresh data directory, then again on
the same one (a restart), each time with a client that connects as soon as the port accepts and
then calls health, and eight clients per game that send their first PlayHand at once and retry as
the server's RetryInfo asks (a quarter of a second). Times are from the process's start, read on the clients' side.

Usage: bench_start.py PITBOSS_BINARY PROTO_DIR [RESTARTS]
Prints one table row per start.
"""

import os
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "tests", "python"))
from access_client import stubs  # noqa: E402

import grpc  # noqa: E402

GAMES = {
    # game: (enum name, wagers)
    "mississippi_stud": ("GAME_MISSISSIPPI_STUD", [("ante", 500)]),
    "fortune_pai_gow": ("GAME_FORTUNE_PAI_GOW", [("main", 500)]),
    "nutz": ("GAME_NUTZ", [("box_one_pair", 500)]),
    "caribbean_stud": ("GAME_CARIBBEAN_STUD", [("ante", 500)]),
}
CLIENTS_PER_GAME = 8


def free_port():
    probe = socket.socket()
    probe.bind(("127.0.0.1", 0))
    port = probe.getsockname()[1]
    probe.close()
    return port


def health(channel):
    """grpc.health.v1.Health/Check for the whole server: the status number (1 SERVING)."""
    check = channel.unary_unary(
        "/grpc.health.v1.Health/Check",
        request_serializer=lambda _: b"",
        response_deserializer=lambda b: b[1] if len(b) >= 2 and b[0] == 0x08 else 0,
    )
    return check(None, timeout=30)


def start(binary, data, port):
    started = time.monotonic()
    server = subprocess.Popen(
        [binary, "serve", "--data", data, "--listen", "127.0.0.1:%d" % port],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    return server, started


def measure(binary, proto, data):
    play_pb2, play_pb2_grpc, audit_pb2, _, events_pb2 = proto
    port = free_port()
    server, started = start(binary, data, port)
    since = lambda: time.monotonic() - started  # noqa: E731
    # The port accepts.
    while True:
        try:
            socket.create_connection(("127.0.0.1", port), timeout=1).close()
            break
        except OSError:
            if server.poll() is not None:
                raise SystemExit("the server stopped")
            time.sleep(0.002)
    accepted = since()
    row = {"accepts": accepted}
    # The local administrator's token, made on the first start (before the port opens; an earlier
    # release made it just after).
    path = os.path.join(data, "admin.token")
    while not os.path.exists(path):
        time.sleep(0.002)
    token = open(path).read().strip()
    results = []
    lock = threading.Lock()

    def player(game):
        enum, wagers = GAMES[game]
        channel = grpc.insecure_channel("127.0.0.1:%d" % port)
        stub = play_pb2_grpc.PlayStub(channel)
        request = play_pb2.PlayHandRequest(
            open=play_pb2.OpenHandRequest(
                game=getattr(audit_pb2, enum),
                table="T-bench-start",
                player="p",
                wagers=[events_pb2.Wager(bet=b, amount=a) for b, a in wagers],
            ),
            follow_advice=True,
        )
        first_answer = None
        while True:
            try:
                stub.PlayHand(request, metadata=[("authorization", "Bearer " + token)], timeout=60)
                served = since()
                first_answer = first_answer or served
                break
            except grpc.RpcError as e:
                first_answer = first_answer or since()
                if e.code() != grpc.StatusCode.UNAVAILABLE:
                    raise
                time.sleep(0.25)  # the RetryInfo's delay (guard.rs, RETRY_PREPARING)
        with lock:
            results.append((first_answer, served))
        channel.close()

    threads = [
        threading.Thread(target=player, args=(game,))
        for game in GAMES
        for _ in range(CLIENTS_PER_GAME)
    ]
    for t in threads:
        t.start()
    channel = grpc.insecure_channel("127.0.0.1:%d" % port)
    row["first_health"] = None
    while True:
        status = health(channel)
        if row["first_health"] is None:
            row["first_health"] = since()
            row["first_status"] = {1: "SERVING", 2: "NOT_SERVING"}.get(status, str(status))
        if status == 1:
            row["serving"] = since()
            break
        time.sleep(0.01)
    for t in threads:
        t.join()
    row["slowest_first_answer"] = max(a for a, _ in results)
    row["first_hand"] = min(s for _, s in results)
    row["last_first_hand"] = max(s for _, s in results)
    channel.close()
    server.send_signal(signal.SIGTERM)
    server.wait()
    return row


def main(binary, proto_dir, restarts):
    proto = stubs(proto_dir)
    data = tempfile.mkdtemp(prefix="pitboss-bench-start-")
    rows = [("first start", measure(binary, proto, data))]
    for i in range(1, restarts + 1):
        rows.append(("restart %d" % i, measure(binary, proto, data)))
    print(
        "| start | port accepts | first health answer | health SERVING | slowest first answer "
        "of 32 PlayHand clients | first hand served | last client's first hand |"
    )
    print("| --- | --- | --- | --- | --- | --- | --- |")
    for name, r in rows:
        print(
            "| %s | %.3f s | %.3f s (%s) | %.3f s | %.3f s | %.3f s | %.3f s |"
            % (
                name,
                r["accepts"],
                r["first_health"],
                r["first_status"],
                r["serving"],
                r["slowest_first_answer"],
                r["first_hand"],
                r["last_first_hand"],
            )
        )


if __name__ == "__main__":
    main(sys.argv[1], sys.argv[2], int(sys.argv[3]) if len(sys.argv) > 3 else 3)
