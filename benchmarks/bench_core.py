"""Speed of the vectorized core: the generator, the herd, the fleet, the AWS sweep.

Each line is one figure against its target (best of a few repeats, wall clock):

- ``Mulberry32.random``: >= 30 M draws/s, and >= 25x the scalar ``rng()`` loop;
- a herd of 1,000,000 clients (full-jitter wake-ups + 200 ms buckets): < 100 ms;
- a fleet of 100,000 clients over 60 simulated s at 10 ms steps: < 2 s (the
  retry storm of notebook 06 with 100,000 clients, the hardest case: about
  900,000 requests; and the same clients without a storm);
- the full contention sweep (19 client counts x 5 strategies x 100 runs): < 5 s.
  For reference, the blog's own simulator (pure Python, an event heap) took
  49.7 s for the same sweep on this machine (the issue quotes about 105 s).

"margin" is how many times better than the target a figure is (>= 1 passes).
Peak memory: tracemalloc's peak of Python allocations during one more run of
each case (measured apart from the timings, which it would slow), and the
process's peak resident size at the end.

Run: ``python benchmarks/bench_core.py [--repeats N]``; exit status 1 if a
target is missed.
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.core.backoff import Backoff
from retrylab.core.rng import Mulberry32
from retrylab.lessons.outputs import SEED
from retrylab.sim.contention import contention_sweep
from retrylab.sim.fleet import storm_fleet
from retrylab.sim.herd import bucket_counts, wakeups

DRAWS = 10_000_000
SCALAR_DRAWS = 300_000
HERD = 1_000_000
FLEET = 100_000


def best(fn: Callable[[], Any], repeats: int) -> float:
    """The fastest of ``repeats`` runs, in seconds."""
    times = []
    for _ in range(repeats):
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return min(times)


def peak_mib(fn: Callable[[], Any]) -> float:
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def scalar_loop() -> None:
    rng = Mulberry32(SEED)
    for _ in range(SCALAR_DRAWS):
        rng()


def herd() -> None:
    w = wakeups(Backoff(200, 2, 5000, jitter="full"), HERD, 3, Mulberry32(SEED))
    bucket_counts(w, 200)


def fleet_storm() -> None:
    storm_fleet(clients=FLEET).run()


def fleet_calm() -> None:
    storm_fleet(clients=FLEET, capacity=40, reject_cost=0.0).run()


def sweep() -> None:
    contention_sweep()


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    args = parser.parse_args(argv)
    r = args.repeats

    vec_s = best(lambda: Mulberry32(SEED).random(DRAWS), r)
    scalar_s = best(scalar_loop, max(1, r - 1))
    vec_rate = DRAWS / vec_s
    scalar_rate = SCALAR_DRAWS / scalar_s
    herd_s = best(herd, r)
    storm_s = best(fleet_storm, r)
    calm_s = best(fleet_calm, r)
    sweep_s = best(sweep, max(1, r - 1))
    requests = storm_fleet(clients=FLEET).run().total_requests

    rows: list[tuple[str, str, str, float]] = [
        ("Mulberry32.random", f"{vec_rate / 1e6:.1f} M draws/s", ">= 30 M draws/s",
         vec_rate / 30e6),
        ("  vs scalar rng() loop", f"{vec_rate / scalar_rate:.0f}x "
         f"({scalar_rate / 1e6:.2f} M/s scalar)", ">= 25x", vec_rate / scalar_rate / 25),
        ("herd, 1,000,000 clients", f"{herd_s * 1000:.0f} ms", "< 100 ms", 0.1 / herd_s),
        ("fleet 100k x 60 s, storm", f"{storm_s:.2f} s ({requests:,} requests)", "< 2 s",
         2 / storm_s),
        ("fleet 100k x 60 s, calm", f"{calm_s:.2f} s", "< 2 s", 2 / calm_s),
        ("contention sweep 19x5x100", f"{sweep_s:.2f} s", "< 5 s", 5 / sweep_s),
    ]
    # Not re-run here (its code is not in this repository): the blog's own simulator,
    # timed once by hand on this machine for the same sweep.
    print("reference: the blog's published simulator took 49.7 s for the same sweep here\n")
    memory = [
        ("Mulberry32.random(10 M)", peak_mib(lambda: Mulberry32(SEED).random(DRAWS))),
        ("herd, 1,000,000 clients", peak_mib(herd)),
        ("fleet 100k, storm", peak_mib(fleet_storm)),
        ("contention sweep", peak_mib(sweep)),
    ]
    width = max(len(n) for n, *_ in rows) + 2
    print(f"{'benchmark':<{width}}{'measured':<42}{'target':<18}margin")
    for name, measured, target, margin in rows:
        flag = "" if margin >= 1 else "   MISSED"
        print(f"{name:<{width}}{measured:<42}{target:<18}{margin:5.1f}x{flag}")
    print()
    print("peak Python memory (tracemalloc):")
    for name, mib in memory:
        print(f"  {name:<{width}}{mib:8.1f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  {'process peak resident size':<{width}}{rss:8.1f} MiB")
    return 0 if all(m >= 1 for *_, m in rows) else 1


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
