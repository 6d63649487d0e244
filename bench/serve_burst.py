"""A room's burst of new connections to the mock endpoint, with the machine busy: how many wait
for a SYN retry (>= 1 s) or are refused, for a listen backlog of 5 (socketserver's default) and
for the endpoint's own.

    python bench/serve_burst.py            # 3 bursts of 60 connections, 4 CPU hogs

Each request opens a new connection, as each `connect()` in a learner's kernel does; the hogs
stand in for the room's kernels, which keep the endpoint from accepting promptly.
"""

from __future__ import annotations

import http.client
import json
import statistics
import subprocess
import sys
import threading
import time

from whentostop.mock import endpoint

BODY = json.dumps(
    {"model": "searcher", "messages": [{"role": "user", "content": "Find the star in this level."}]}
)


def burst(backlog: int, connections: int = 60, bursts: int = 3) -> str:
    original = endpoint._QuietServer.request_queue_size
    endpoint._QuietServer.request_queue_size = backlog
    try:
        server = endpoint.MockServer().start()
    finally:
        endpoint._QuietServer.request_queue_size = original
    host, port = server.httpd.server_address[:2]
    latencies: list[float] = []
    errors: list[str] = []
    go = threading.Event()

    def one() -> None:
        go.wait()
        started = time.perf_counter()
        try:
            conn = http.client.HTTPConnection(host, port, timeout=30)
            conn.request("POST", "/v1/chat/completions", BODY, {"Content-Type": "application/json"})
            conn.getresponse().read()
            conn.close()
            latencies.append(time.perf_counter() - started)
        except OSError as exc:
            errors.append(type(exc).__name__)

    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(4)]
    try:
        for _ in range(bursts):
            threads = [threading.Thread(target=one) for _ in range(connections)]
            for thread in threads:
                thread.start()
            time.sleep(0.2)
            go.set()
            for thread in threads:
                thread.join()
            go.clear()
    finally:
        for hog in hogs:
            hog.kill()
        server.stop()
    return (
        f"| {backlog} | {connections * bursts} | {len(latencies)} | "
        f"{statistics.median(latencies) * 1000:.0f} ms | {max(latencies) * 1000:.0f} ms | "
        f"{sum(x >= 1 for x in latencies)} | {len(errors)} ({', '.join(sorted(set(errors))) or '-'}) |"
    )


def main() -> None:
    print("| listen backlog | requests | answered | median | max | waited >= 1 s | failed |")
    print("|---|---|---|---|---|---|---|")
    for backlog in (5, endpoint._QuietServer.request_queue_size):
        print(burst(backlog), flush=True)


if __name__ == "__main__":
    main()
