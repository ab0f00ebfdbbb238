"""How long one slider redraw of the herd explorer takes at 10,000 clients.

One redraw is what a student waits for after letting go of a slider: compute
the wake-ups (10,000 Mulberry32 draws), bucket them, update the two histograms
and render the figure to PNG bytes. The target is 100 ms (a redraw that feels
immediate). Also reports the compute part alone and peak memory (tracemalloc,
Python allocations only, measured on separate redraws so its overhead does not
inflate the times; the Agg pixel buffer is C++ memory it does not see) and the
process's peak resident size.

Run: ``python benchmarks/bench_redraw.py [--redraws N] [--clients N]``
"""

from __future__ import annotations

import argparse
import resource
import statistics
import sys
import time
import tracemalloc
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from retrylab.viz.explorers import HerdExplorer, herd_explorer

TARGET_MS = 100.0


def measure(redraws: int, clients: int) -> dict[str, float]:
    """Median/min/max ms of full redraws and of compute alone; peak MiB."""
    ex = herd_explorer(clients=clients)
    ex.on_page()  # as displayed: every redraw renders
    retries = [3, 2]  # alternate so every set() is a real change (starts at 2)
    for i in range(4):  # warm-up: fonts, backgrounds; ends back at retry 2
        ex.set(retry=retries[i % 2])
    full: list[float] = []
    for i in range(redraws):
        before = ex.redraws
        ex.clear_cache()  # cold: computed and rendered anew, not served by the cache
        t0 = time.perf_counter()
        ex.set(retry=retries[i % 2])
        full.append((time.perf_counter() - t0) * 1000)
        if ex.redraws != before + 1 or ex.message:
            raise RuntimeError(f"redraw {i} did not happen: {ex.message!r}")
    compute: list[float] = []
    values = ex.values
    for i in range(redraws):
        values["retry"] = retries[i % 2]
        t0 = time.perf_counter()
        HerdExplorer.compute(**values)
        compute.append((time.perf_counter() - t0) * 1000)
    tracemalloc.start()
    for i in range(5):
        ex.clear_cache()
        ex.set(retry=retries[i % 2])
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {
        "redraw_median": statistics.median(full),
        "redraw_min": min(full),
        "redraw_max": max(full),
        "compute_median": statistics.median(compute),
        "peak_mib": peak / 2**20,
        "png_kib": len(ex.png) / 1024,
        "rss_mib": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024,  # KiB on Linux
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--redraws", type=int, default=30, help="redraws to time (>= 20)")
    parser.add_argument("--clients", type=int, default=10_000)
    args = parser.parse_args(argv)
    if args.redraws < 20:
        parser.error(f"--redraws={args.redraws} is out of range: must be >= 20")
    r = measure(args.redraws, args.clients)
    rows = [
        ("redraw, median (compute + draw + PNG)", f"{r['redraw_median']:.1f} ms"),
        ("redraw, min .. max", f"{r['redraw_min']:.1f} .. {r['redraw_max']:.1f} ms"),
        ("compute only, median", f"{r['compute_median']:.2f} ms"),
        ("target", f"{TARGET_MS:.0f} ms"),
        ("median / target", f"{r['redraw_median'] / TARGET_MS:.2f}"),
        ("peak Python memory during 5 redraws", f"{r['peak_mib']:.1f} MiB"),
        ("process peak RSS (Python, numpy, matplotlib)", f"{r['rss_mib']:.0f} MiB"),
        ("PNG size", f"{r['png_kib']:.0f} KiB"),
    ]
    print(f"herd explorer, {args.clients} clients, {args.redraws} redraws")
    width = max(len(k) for k, _ in rows)
    for k, v in rows:
        print(f"  {k:<{width}}  {v:>16}")
    ok = r["redraw_median"] < TARGET_MS
    print(
        "PASS" if ok else "OVER TARGET",
        f"median {r['redraw_median']:.1f} ms {'<' if ok else '>='} {TARGET_MS:.0f} ms",
    )
    return 0 if ok else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
