"""How long every slider explorer takes to redraw after a key press on a slider.

One redraw is what a student waits for after a key press: ``Explorer.set()`` =
compute + draw (restore the level's background, draw the animated artists) +
PNG bytes. Every ``Explorer`` subclass found in ``retrylab.viz`` is measured (a
new explorer module is picked up with no edit here).

Cold (the default; issue 20): every step goes to a setting never drawn before.
Each control is walked ``--walk`` key presses up from its default, then down
(:func:`walk`, which both modes use); the redraw cache is emptied before every
timed step, so only what an explorer
keeps by construction (its saved backgrounds) helps. Targets: median <= 40 ms
and max <= 80 ms per explorer.

Warm (``--warm``, the old mode, issue 14): the same walk, one key press up and
one down from the default for every control, each timed ``--repeats`` times
with a step back in between (the redraw cache serves the repeats). Targets:
median <= 50 ms, max <= 100 ms.

Wall-clock times depend on what else the machine runs: the load average is
printed before and after, and each time is also taken as this process's CPU
time (``time.process_time``), which a busy machine inflates much less.

Run: ``python benchmarks/bench_explorers.py [--walk N] [--only NAME ...]``, or
``--warm [--repeats N] [--steps]``; exit status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import os
import statistics
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.viz.catalog import explorer_classes
from retrylab.viz.controls import neighbours, options_of
from retrylab.viz.explorer import Explorer

MEDIAN_TARGET_MS = 50.0
MAX_TARGET_MS = 100.0
#: Cold targets (issue 20): every step to a setting never drawn before.
COLD_MEDIAN_TARGET_MS = 40.0
COLD_MAX_TARGET_MS = 80.0
#: How many key presses the cold mode walks each slider, each way from its default.
COLD_WALK = 4


def walk(
    cls: type[Explorer], presses: int = COLD_WALK, repeats: int = 1, *, cold: bool = True
) -> dict[str, Any]:
    """Times (ms, wall and CPU) of key presses on every control of ``cls``, and its build.

    Each control is walked ``presses`` key presses up from its default, then (after an
    untimed reset to the defaults) ``presses`` down. Each press is timed ``repeats``
    times, stepping back (untimed) in between. ``cold``: the redraw cache is emptied
    before every timed press (:meth:`Explorer.clear_cache`), so every press draws a
    setting never drawn before and only what the explorer keeps by construction (its
    saved backgrounds) helps; otherwise the cache serves the repeats.
    """
    t0 = time.perf_counter()
    ex = cls()
    ex.on_page()  # made and displayed: what a student waits for after the cell
    build_ms = (time.perf_counter() - t0) * 1000
    defaults = ex.values
    steps: list[dict[str, Any]] = []
    for name, control in ex.controls.items():
        for up in (True, False):
            ex.clear_cache()
            ex.set(**defaults)
            for _ in range(presses):
                here = ex.values[name]
                ahead = [v for v in neighbours(control, here) if _ahead(control, here, v, up=up)]
                if not ahead:
                    break
                times, cpu = [], []
                for k in range(repeats):
                    if k:
                        ex.set(**{name: here})  # back, untimed
                    if cold:
                        ex.clear_cache()
                    t0, c0 = time.perf_counter(), time.process_time()
                    ex.set(**{name: ahead[0]})
                    times.append((time.perf_counter() - t0) * 1000)
                    cpu.append((time.process_time() - c0) * 1000)
                steps.append(
                    {
                        "step": f"{name}={ahead[0]!r}",
                        "times": times,
                        "cpu": cpu,
                        "median": statistics.median(times),
                        "max": max(times),
                        "first": times[0],
                        "first_cpu": cpu[0],
                        "message": ex.message,
                    }
                )
    ex.clear_cache()
    ex.set(**defaults)
    every = [t for s in steps for t in s["times"]]
    every_cpu = [t for s in steps for t in s["cpu"]]
    firsts = [s["first"] for s in steps]
    return {
        "name": cls.__name__,
        "build_ms": build_ms,
        "steps": steps,
        "presses": len(steps),
        "median": statistics.median(every) if every else 0.0,
        "max": max(every) if every else 0.0,
        "cpu_median": statistics.median(every_cpu) if every else 0.0,
        "cpu_max": max(every_cpu) if every else 0.0,
        "first_median": statistics.median(firsts) if firsts else 0.0,
        "first_cpu_max": max(s["first_cpu"] for s in steps) if steps else 0.0,
        "worst": max(steps, key=lambda s: s["max"])["step"] if steps else "",
        "png_kib": len(ex.png) / 1024,
    }


def _ahead(control: Any, here: Any, value: Any, *, up: bool) -> bool:
    """Whether ``value`` lies up (or down) from ``here`` on ``control``."""
    options = options_of(control)
    if options is not None:
        return (options.index(value) > options.index(here)) == up
    return bool((value > here) == up)


def load_line() -> str:
    one, five, _ = os.getloadavg()
    return (
        f"machine: {os.cpu_count()} CPUs, load average {one:.2f} (1 min), "
        f"{five:.2f} (5 min); python {sys.version.split()[0]}"
    )


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeats", type=int, default=8, help="timed set() per step (>= 8)")
    parser.add_argument("--only", nargs="*", default=None, help="explorer class names")
    parser.add_argument("--steps", action="store_true", help="also print every step")
    parser.add_argument(
        "--warm",
        action="store_true",
        help="the old mode: step to a neighbour and back, repeated (the redraw cache helps)",
    )
    parser.add_argument(
        "--walk",
        type=int,
        default=COLD_WALK,
        help="cold mode: key presses each way from each default",
    )
    args = parser.parse_args(argv)
    if not args.warm:
        return cold_main(args)
    if args.repeats < 8:
        parser.error(f"--repeats={args.repeats} is out of range: must be >= 8")
    classes = [c for c in explorer_classes() if not args.only or c.__name__ in args.only]
    print(load_line())
    rows = [walk(cls, 1, args.repeats, cold=False) for cls in classes]
    print(load_line())
    print(
        "warm: a step and back, repeated (the redraw cache serves the repeats); times in "
        "ms, wall clock unless marked cpu"
    )
    header = (
        f"{'explorer':<22} {'median':>7} {'max':>7} {'target':>10} {'ratio':>6}  "
        f"{'':4}  {'cpu med':>7} {'cpu max':>7} {'1st med':>7} {'1st cpu max':>11}  "
        "worst step (first/median/max)"
    )
    print(header)
    print("-" * len(header))
    failed = 0
    for r in rows:
        ok = r["median"] <= MEDIAN_TARGET_MS and r["max"] <= MAX_TARGET_MS
        failed += not ok
        worst = next(s for s in r["steps"] if s["step"] == r["worst"]) if r["steps"] else None
        detail = (
            f"{r['worst']} ({worst['first']:.0f}/{worst['median']:.0f}/{worst['max']:.0f})"
            if worst
            else ""
        )
        print(
            f"{r['name']:<22} {r['median']:7.1f} {r['max']:7.1f} "
            f"{'<=50/<=100':>10} {r['median'] / MEDIAN_TARGET_MS:6.2f}  "
            f"{'PASS' if ok else 'FAIL':4}  {r['cpu_median']:7.1f} {r['cpu_max']:7.1f} "
            f"{r['first_median']:7.1f} {r['first_cpu_max']:11.1f}  {detail}"
        )
        if args.steps:
            for s in r["steps"]:
                msg = f"  message: {s['message']}" if s["message"] else ""
                print(
                    f"    {s['step']:<28} first {s['first']:6.1f} median "
                    f"{s['median']:6.1f} max {s['max']:6.1f}{msg}"
                )
    print(
        f"{len(rows) - failed} of {len(rows)} explorers within median "
        f"{MEDIAN_TARGET_MS:.0f} ms and max {MAX_TARGET_MS:.0f} ms "
        f"({args.repeats} repeats of every step)"
    )
    return 1 if failed else 0


def cold_main(args: argparse.Namespace) -> int:
    """The cold table: each explorer's median and max over steps to new settings."""
    classes = [c for c in explorer_classes() if not args.only or c.__name__ in args.only]
    print(load_line())
    rows = [walk(cls, args.walk) for cls in classes]
    print(load_line())
    print(
        f"cold: every step to a setting never drawn before ({args.walk} key presses each "
        "way from each default, the cache emptied before each); times in ms, wall clock "
        "unless marked cpu"
    )
    target = f"<={COLD_MEDIAN_TARGET_MS:.0f}/<={COLD_MAX_TARGET_MS:.0f}"
    header = (
        f"{'explorer':<22} {'steps':>5} {'median':>7} {'max':>7} {'target':>10} "
        f"{'':4}  {'cpu med':>7} {'cpu max':>7} {'build':>7}  worst step"
    )
    print(header)
    print("-" * len(header))
    failed = 0
    for r in rows:
        ok = r["median"] <= COLD_MEDIAN_TARGET_MS and r["max"] <= COLD_MAX_TARGET_MS
        failed += not ok
        print(
            f"{r['name']:<22} {r['presses']:5d} {r['median']:7.1f} {r['max']:7.1f} "
            f"{target:>10} {'PASS' if ok else 'FAIL':4}  {r['cpu_median']:7.1f} "
            f"{r['cpu_max']:7.1f} {r['build_ms']:7.0f}  {r['worst']}"
        )
    print(
        f"{len(rows) - failed} of {len(rows)} explorers within cold median "
        f"{COLD_MEDIAN_TARGET_MS:.0f} ms and max {COLD_MAX_TARGET_MS:.0f} ms"
    )
    return 1 if failed else 0


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
