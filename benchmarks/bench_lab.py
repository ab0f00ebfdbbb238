"""Throughput and tail latency of the lab: 200 keep-alive clients against one LabServer.

The server runs in a child process (as a real service would, so the clients do
not share its interpreter lock); the clients are threads of this process, each
with one keep-alive :class:`~retrylab.lab.client.Connection` (httpx), all
starting at the same moment. Every request is ``GET /measurements`` (200, the
lesson's measurement); a request fails if it gets anything but a success.

Each line is one figure against its target:

- failed requests: 0 (before issue 11, a listen backlog of 5 made 1,075 of
  80,000 fail, with p99 up to 14 s);
- requests/s over the whole run: >= 1,000 (the issue measured 2,700-4,700
  from outside with a backlog of 128; here client and server share the
  machine's cores, and the client is httpx, not a load generator in C);
- p99 latency of one request: < 1,000 ms; and the median, for reference.

"margin" is how many times better than the target a figure is (>= 1 passes).
Throughput and latency are the best of ``--repeats`` runs (default 3; the
machine may be busy with other work); failures are counted over all runs.
Loopback only; bounded: ``--clients`` x ``--requests`` requests a run (default
200 x 25 = 5,000), and a run stops at ``--deadline`` seconds.

Run: ``python benchmarks/bench_lab.py [--clients N] [--requests N] [--repeats N]``; exit
status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import threading
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.lab.client import Connection

ROOT = Path(__file__).resolve().parents[1]

SERVER = """
import sys
from retrylab.lab.server import LabServer
with LabServer(fail_first=0) as lab:
    print(lab.url, flush=True)
    sys.stdin.read()  # until the parent closes it
    print(lab.requests, flush=True)
"""


def run(clients: int, requests: int, deadline: float) -> tuple[list[float], int, float, int]:
    """(latencies in s, failures, wall seconds, requests the server logged)."""
    server = subprocess.Popen(
        [sys.executable, "-c", SERVER, str(clients)],
        cwd=ROOT,
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        text=True,
    )
    assert server.stdout is not None and server.stdin is not None
    url = server.stdout.readline().strip()
    with Connection(url) as warm:  # httpx's first use in a process pays one-time costs
        warm.request("GET", "/report")
    latencies: list[list[float]] = [[] for _ in range(clients)]
    failures = [0] * clients
    barrier = threading.Barrier(clients + 1)
    stop_at = [0.0]

    def client(i: int) -> None:
        with Connection(url, timeout=30) as conn:
            barrier.wait()
            mine = latencies[i]
            for _ in range(requests):
                if time.perf_counter() > stop_at[0]:
                    break
                t0 = time.perf_counter()
                ok = conn.request("GET", "/measurements").ok
                mine.append(time.perf_counter() - t0)
                failures[i] += not ok

    threads = [threading.Thread(target=client, args=(i,), daemon=True) for i in range(clients)]
    for t in threads:
        t.start()
    stop_at[0] = time.perf_counter() + deadline
    barrier.wait()
    t0 = time.perf_counter()
    for t in threads:
        t.join(deadline + 30)
    wall = time.perf_counter() - t0
    server.stdin.close()
    logged = int(server.stdout.readline() or 0)
    server.wait(timeout=30)
    return [x for lane in latencies for x in lane], sum(failures), wall, logged - 1


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--clients", type=int, default=200)
    parser.add_argument("--requests", type=int, default=25, help="per client")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--deadline", type=float, default=120.0, help="seconds at most")
    args = parser.parse_args(argv)
    if not (1 <= args.clients <= 1000 and 1 <= args.requests <= 1000 and 1 <= args.repeats <= 10):
        parser.error("--clients and --requests must be 1 to 1000, --repeats 1 to 10")
    planned = args.clients * args.requests
    runs = []
    for _ in range(args.repeats):
        latencies, failed, wall, logged = run(args.clients, args.requests, args.deadline)
        lat = np.array(latencies) * 1000
        runs.append(
            (
                len(latencies),
                failed,
                len(latencies) / wall,
                float(np.percentile(lat, 50)),
                float(np.percentile(lat, 99)),
                wall,
                logged,
            )
        )
        done, _, rate, p50, p99, _, _ = runs[-1]
        print(
            f"run {len(runs)}: {done:,} of {planned:,} requests in {wall:.2f} s "
            f"(server logged {logged:,}), {failed} failed, {rate:,.0f} requests/s, "
            f"p50 {p50:.1f} ms, p99 {p99:.1f} ms"
        )
    # the best run, as bench_core takes the best of its repeats; failures count in all
    done, _, rate, p50, p99, wall, _ = min(runs, key=lambda r: r[4])
    failed = sum(r[1] for r in runs)
    sent = sum(r[0] for r in runs)
    rate = max(r[2] for r in runs)
    print(
        f"\n{args.clients} keep-alive clients x {args.requests} requests, best of "
        f"{args.repeats} runs\n"
    )
    rows: list[tuple[str, str, str, float]] = [
        (
            "failed requests",
            f"{failed} of {sent:,}",
            "0",
            float("inf") if failed == 0 and sent == planned * args.repeats else 0.0,
        ),
        ("throughput", f"{rate:,.0f} requests/s", ">= 1,000 requests/s", rate / 1000),
        ("p99 latency", f"{p99:.1f} ms (median {p50:.1f} ms)", "< 1,000 ms", 1000 / p99),
    ]
    width = max(len(n) for n, *_ in rows) + 2
    print(f"{'benchmark':<{width}}{'measured':<34}{'target':<22}margin")
    for name, measured, target, margin in rows:
        flag = "" if margin >= 1 else "   MISSED"
        shown = "  all" if margin == float("inf") else f"{margin:5.1f}x"
        print(f"{name:<{width}}{measured:<34}{target:<22}{shown}{flag}")
    return 0 if all(m >= 1 for *_, m in rows) else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(lambda: main(sys.argv[1:])))
