"""Speed of the vectorized core: the generator, the herd, the fleet, the AWS sweep.

Each line is one figure against its target (best of a few repeats, wall clock):

- ``Mulberry32.random``: >= 30 M draws/s, and >= 25x the scalar ``rng()`` loop;
- a herd of 1,000,000 clients (full-jitter wake-ups + 200 ms buckets): < 100 ms;
- a fleet of 100,000 clients over 60 simulated s at 10 ms steps: < 2 s (the
  retry storm of notebook 06 with 100,000 clients, the hardest case: about
  900,000 requests; and the same clients without a storm);
- the full contention sweep (19 client counts x 5 strategies x 100 runs): < 5 s;
- the same sweep against the AWS blog's own simulator, run side by side in the
  same benchmark run: >= 50x faster. Its code is not in this repository (it
  is Apache-2.0 code of aws-samples/aws-arch-backoff-simulator, Python 2):
  give its ``src/backoff_simulator.py`` with ``--blog-simulator PATH`` (or
  ``RETRYLAB_BLOG_SIMULATOR=PATH``); it then runs once, in a subprocess in a
  scratch folder (its CSV and time-stamp files land there), with ``xrange``
  defined for Python 3, and the mean calls of both simulators are printed
  side by side at a few client counts (they agree statistically, not draw
  for draw). Without the path the line says it was not measured.

"margin" is how many times better than the target a figure is (>= 1 passes).
Peak memory: tracemalloc's peak of Python allocations during one more run of
each case (measured apart from the timings, which it would slow), and the
process's peak resident size at the end.

Run: ``python benchmarks/bench_core.py [--repeats N] [--blog-simulator PATH]``;
exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import tempfile
import time
import tracemalloc
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pandas as pd

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.core.backoff import Backoff
from retrylab.core.rng import Mulberry32
from retrylab.lessons.outputs import SEED
from retrylab.sim.contention import STRATEGIES, contention_sweep
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


#: The blog's simulator, started with ``xrange`` defined (it is Python 2 code) and run as
#: a script (its last line runs the whole sweep).
_BLOG_RUNNER = (
    "import builtins, runpy, sys; builtins.xrange = range; "
    "runpy.run_path(sys.argv[1], run_name='__main__')"
)


def blog_sweep(path: Path) -> tuple[float, pd.DataFrame]:
    """Run the blog's simulator once; its wall time (s) and its CSV (clients, time, calls,
    Algorithm)."""
    with tempfile.TemporaryDirectory(prefix="blog-sim-") as scratch:
        t0 = time.perf_counter()
        done = subprocess.run(
            [sys.executable, "-c", _BLOG_RUNNER, str(path)],
            cwd=scratch,
            capture_output=True,
            text=True,
            timeout=1800,
            check=False,
        )
        seconds = time.perf_counter() - t0
        if done.returncode != 0:
            raise SystemExit(f"the blog's simulator at {path} failed:\n{done.stderr[-2000:]}")
        # keep_default_na=False: its strategy "None" is a name, not a missing value
        return seconds, pd.read_csv(Path(scratch) / "backoff_results.csv", keep_default_na=False)


#: The blog's names for the strategies, in :data:`STRATEGIES` order.
_BLOG_NAMES = {
    "exponential": "Exponential",
    "full": "FullJitter",
    "equal": "EqualJitter",
    "decorrelated": "Decorr",
    "none": "None",
}


def agreement(ours: pd.DataFrame, blog: pd.DataFrame) -> list[str]:
    """Mean calls per run, ours / the blog's, at 50, 100 and 190 clients."""
    lines = [f"  {'clients':>7}  " + "  ".join(f"{s:>18}" for s in STRATEGIES)]
    for clients in (50, 100, 190):
        cells = []
        for s in STRATEGIES:
            mine = ours[(ours.clients == clients) & (ours.strategy == s)].calls.iloc[0]
            theirs = blog[(blog.clients == clients) & (blog.Algorithm == _BLOG_NAMES[s])]
            cells.append(f"{mine:8.0f} / {theirs.calls.iloc[0]:<7.0f}")
        lines.append(f"  {clients:>7}  " + "  ".join(f"{c:>18}" for c in cells))
    return lines


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument(
        "--blog-simulator",
        type=Path,
        default=os.environ.get("RETRYLAB_BLOG_SIMULATOR") or None,
        help="the blog's src/backoff_simulator.py, to time side by side",
    )
    args = parser.parse_args(argv)
    r = args.repeats
    blog_path: Path | None = args.blog_simulator
    if blog_path is not None and not Path(blog_path).is_file():
        parser.error(
            f"--blog-simulator={blog_path} is out of range: it must be the path of "
            "the blog's backoff_simulator.py"
        )

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
        (
            "Mulberry32.random",
            f"{vec_rate / 1e6:.1f} M draws/s",
            ">= 30 M draws/s",
            vec_rate / 30e6,
        ),
        (
            "  vs scalar rng() loop",
            f"{vec_rate / scalar_rate:.0f}x ({scalar_rate / 1e6:.2f} M/s scalar)",
            ">= 25x",
            vec_rate / scalar_rate / 25,
        ),
        ("herd, 1,000,000 clients", f"{herd_s * 1000:.0f} ms", "< 100 ms", 0.1 / herd_s),
        (
            "fleet 100k x 60 s, storm",
            f"{storm_s:.2f} s ({requests:,} requests)",
            "< 2 s",
            2 / storm_s,
        ),
        ("fleet 100k x 60 s, calm", f"{calm_s:.2f} s", "< 2 s", 2 / calm_s),
        ("contention sweep 19x5x100", f"{sweep_s:.2f} s", "< 5 s", 5 / sweep_s),
    ]
    compared: list[str] = []
    if blog_path is None:
        print(
            "the blog's simulator: not measured (its code is not in this repository; give "
            "--blog-simulator PATH\n  to aws-samples/aws-arch-backoff-simulator's "
            "src/backoff_simulator.py to time it side by side)\n"
        )
    else:
        print(f"the blog's simulator ({blog_path}): running the same sweep once ...", flush=True)
        blog_s, blog_df = blog_sweep(Path(blog_path))
        rows.append(
            (
                "  vs the blog's simulator",
                f"{blog_s / sweep_s:.0f}x (its sweep {blog_s:.1f} s, ours {sweep_s:.2f} s)",
                ">= 50x",
                blog_s / sweep_s / 50,
            )
        )
        compared = [
            "mean calls per run, ours / the blog's simulator's:",
            *agreement(contention_sweep(), blog_df),
            "",
        ]
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
    for line in compared:
        print(line)
    print("peak Python memory (tracemalloc):")
    for name, mib in memory:
        print(f"  {name:<{width}}{mib:8.1f} MiB")
    rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    print(f"  {'process peak resident size':<{width}}{rss:8.1f} MiB")
    return 0 if all(m >= 1 for *_, m in rows) else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(lambda: main(sys.argv[1:])))
