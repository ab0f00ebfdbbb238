"""Notebook 09's speed targets: fleet simulations at 100k clients, explorer redraws.

Targets (from the project's issues): each fleet-level simulation at 100,000
clients under 2 s; every explorer's redraw after one slider step from its
defaults at most 50 ms median and 100 ms max (compute + draw + PNG; the
explorers' caches are cleared first, so every step really recomputes).

Both wall-clock and CPU time (``time.process_time``) are printed: on a
shared machine the wall time includes waiting for a core; the verdict uses
the wall time unless ``--cpu`` is given.

Run: ``python benchmarks/bench_beyond.py [--repeat N] [--cpu]``
"""

from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.core.metastable import MetastableModel
from retrylab.sim.hedged import hedge_stats, latency_samples
from retrylab.sim.metastable import metastable_fleet
from retrylab.sim.ratebreakers import breaker_outage, slider_outage
from retrylab.sim.throttled import throttled_fleet
from retrylab.viz import beyond

FLEET_TARGET_S = 2.0
REDRAW_MEDIAN_MS = 50.0
REDRAW_MAX_MS = 100.0
CLIENTS = 100_000


def _hedged() -> None:
    hedge_stats(latency_samples(CLIENTS, 2), 50, 2)


FLEETS: dict[str, Callable[[], Any]] = {
    "rate breakers, 40 s outage run (400 steps)": lambda: breaker_outage("rate", CLIENTS),
    "consecutive breakers, same run": lambda: breaker_outage("consecutive", CLIENTS),
    "hedged requests, 100k requests": _hedged,
    "SRE throttle, 50 s incident (500 steps)": lambda: throttled_fleet(
        "sre", CLIENTS, capacity=6400
    ),
    "botocore adaptive, same run": lambda: throttled_fleet("adaptive", CLIENTS, capacity=6400),
    "metastable fleet, 40 s (800 steps)": lambda: metastable_fleet(
        MetastableModel(step=50, duration=40_000), CLIENTS
    ),
}


def timed(fn: Callable[[], Any]) -> tuple[float, float]:
    """(wall s, cpu s) of one call."""
    w, c = time.perf_counter(), time.process_time()
    fn()
    return time.perf_counter() - w, time.process_time() - c


def neighbours(ex: Any) -> list[tuple[str, Any]]:
    """One step of every slider from its default (up, or down at the top)."""
    out = []
    for name, w in ex.controls.items():
        value = w.value
        if hasattr(w, "options") and not hasattr(w, "step"):
            opts = [o[1] if isinstance(o, tuple) else o for o in w.options]
            i = opts.index(value)
            out.append((name, opts[i + 1] if i + 1 < len(opts) else opts[i - 1]))
        else:
            up = value + w.step
            new = up if up <= w.max else value - w.step
            out.append((name, round(new, 6) if isinstance(value, float) else new))
    return out


def clear_caches() -> None:
    for fn in (slider_outage, beyond._sweep, beyond._throttled, beyond._metastable):
        fn.cache_clear()


def redraws(cls: Any, repeat: int) -> tuple[list[float], list[float]]:
    """Wall and CPU ms of every single-step redraw, ``repeat`` rounds, caches cleared."""
    walls: list[float] = []
    cpus: list[float] = []
    for _ in range(repeat):
        clear_caches()
        ex = cls()
        ex.on_page()  # as displayed: every redraw renders
        defaults = ex.values
        for name, value in neighbours(ex):
            w, c = time.perf_counter(), time.process_time()
            ex.set(**{name: value})
            walls.append((time.perf_counter() - w) * 1000)
            cpus.append((time.process_time() - c) * 1000)
            if ex.message or ex.error:
                raise RuntimeError(f"{cls.__name__} {name}={value!r}: {ex.message or ex.error}")
            clear_caches()
            ex.set(**{name: defaults[name]})
    return walls, cpus


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=3, help="rounds of redraws (>= 1)")
    parser.add_argument("--cpu", action="store_true", help="judge by CPU time, not wall")
    args = parser.parse_args(argv)
    if args.repeat < 1:
        parser.error(f"--repeat={args.repeat} is out of range: must be >= 1")
    failed = 0
    print(f"fleet simulations at {CLIENTS:,} clients (target < {FLEET_TARGET_S:.0f} s)")
    for name, fn in FLEETS.items():
        wall, cpu = timed(fn)
        judged = cpu if args.cpu else wall
        ok = judged < FLEET_TARGET_S
        failed += not ok
        print(
            f"  {name:45s} wall {wall:5.2f} s  cpu {cpu:5.2f} s  "
            f"{judged / FLEET_TARGET_S:4.2f}x target  {'PASS' if ok else 'FAIL'}"
        )
    print(
        f"explorer redraws after one slider step (target median <= {REDRAW_MEDIAN_MS:.0f} ms, "
        f"max <= {REDRAW_MAX_MS:.0f} ms)"
    )
    for cls in (
        beyond.RateBreakerExplorer,
        beyond.HedgingExplorer,
        beyond.ThrottleExplorer,
        beyond.MetastableExplorer,
    ):
        walls, cpus = redraws(cls, args.repeat)
        judged = cpus if args.cpu else walls
        med, top = statistics.median(judged), max(judged)
        ok = med <= REDRAW_MEDIAN_MS and top <= REDRAW_MAX_MS
        failed += not ok
        print(
            f"  {cls.__name__:22s} wall median {statistics.median(walls):5.1f} max "
            f"{max(walls):5.1f} ms  cpu median {statistics.median(cpus):5.1f} max "
            f"{max(cpus):5.1f} ms  ({len(walls)} redraws)  {'PASS' if ok else 'FAIL'}"
        )
    print("all targets met" if not failed else f"{failed} target(s) missed")
    return 1 if failed else 0


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
