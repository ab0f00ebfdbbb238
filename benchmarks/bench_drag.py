"""Dragging an explorer's slider with the mouse in JupyterLab + Chromium (issue 34).

What a student sees while dragging: a new image while the handle moves, and the
last value's image soon after the mouse is let go. Notebooks 02, 04, 06 and 09 are
opened in a throw-away JupyterLab (the browser tests' harness in ``tests/browser/``,
imported as it is) and run; then every enabled slider of every explorer is dragged
as a quick hand does (``tests.browser.sliders.drag_slider``: mouse down on the thumb,
:data:`HAND_MOVES` moves :data:`HAND_PAUSE_MS` ms apart across half the track, about
a mouse event per frame, up) and put back with its number box. Playwright sends a
move once Chromium has taken the one before, so on a page busy drawing the hand moves
slower than asked: the value interval of a many-step slider shows the pace it got.

Per drag, on the page's clock: the intervals between new images while the handle
moves (first move to first image, image to image, last image to release), and the
time from release to the final image (0 when the last value's image was on screen
before the release). Targets, medians over the drags of the four notebooks: a new
image at least every 100 ms (the median interval <= 100 ms), the final image within
150 ms of release.

A new image can come no more often than the value changes, and a slider of few steps
crosses few values in a drag whatever the kernel's speed (four values in 0.7 s: an
image every 175 ms at best). So the interval is judged over the drags whose value
changed at least every 100 ms (median), where it measures the explorer, not the
slider's steps; each row gives its value interval. Beside them: the lag, from the
latest value change to each new image during the drag.

The figures, with the date, the machine (CPUs, load average) and the command, are
appended to ``benchmarks/RESULTS.md`` as a section of their own.

Run: ``python benchmarks/bench_drag.py [--only 02 06 ...] [--no-record]``; exit status
1 if a target is missed. Needs Debian's /usr/bin/chromium and the playwright package
(never ``playwright install``).
"""

from __future__ import annotations

import argparse
import contextlib
import datetime
import math
import os
import platform
import re
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from browser_walk import load_line, opened_notebooks  # noqa: E402

from tests.browser.catalog import NOTEBOOKS  # noqa: E402
from tests.browser.lab import LabServer  # noqa: E402
from tests.browser.pages import NotebookPage  # noqa: E402
from tests.browser.sliders import Drag, ExplorerDriver, drag_slider  # noqa: E402

TARGET_NOTEBOOKS = (
    "02_computing_the_wait",
    "04_circuit_breaker",
    "06_retry_storms_lab",
    "09_beyond_the_lessons",
)
INTERVAL_TARGET_MS = 100.0
RELEASE_TARGET_MS = 150.0
RUN_ALL_TIMEOUT_MS = 180_000
#: The hand: mouse moves across half the track, this many ms apart (a frame is 16 ms).
HAND_MOVES, HAND_PAUSE_MS = 40, 16


@dataclass
class Run:
    drags: list[tuple[str, Drag]] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    load_before: str = ""
    load_after: str = ""


def drag_every_slider(nb: NotebookPage, stem: str, run: Run) -> None:
    boxes = nb.page.locator(".retrylab-explorer")
    for k in range(boxes.count()):
        drv = ExplorerDriver(nb.page, boxes.nth(k))
        drv.box.scroll_into_view_if_needed()
        if drv.img_src() is None:
            continue
        for control in [c for c in drv.controls() if c.kind == "slider" and not c.disabled]:
            drag = drag_slider(drv, control.name, moves=HAND_MOVES, pause_ms=HAND_PAUSE_MS)
            run.drags.append((f"{stem} explorer {k}", drag))
            if not drv.type_number(control.name, drag.start):
                run.notes.append(f"{stem} explorer {k}: {control.name} not put back")


def one_run(stems: list[str], chromium: str) -> Run:
    run = Run(load_before=load_line())
    with contextlib.closing(
        opened_notebooks(LabServer(NOTEBOOKS), chromium, stems, run.notes)
    ) as walk:
        for stem, _path, nb, t0 in walk:
            nb.run_all(RUN_ALL_TIMEOUT_MS)
            before = len(run.drags)
            drag_every_slider(nb, stem, run)
            print(
                f"{stem}: open+run+drag {time.monotonic() - t0:.0f} s, "
                f"{len(run.drags) - before} drags",
                flush=True,
            )
    run.load_after = load_line()
    return run


def report(run: Run, command: str) -> tuple[bool, str]:
    """The run's table (markdown) and verdict."""
    lines = [
        f"## bench_drag, {datetime.datetime.now(datetime.UTC):%Y-%m-%d %H:%M} UTC",
        "",
        f"- command: `{command}`",
        f"- machine: {platform.node()}, {platform.platform()}, Python"
        f" {platform.python_version()}; before: {run.load_before}; after:"
        f" {run.load_after}",
        "",
        "| drag | values | images during | median interval ms | max interval ms |"
        " release -> final ms | value interval ms |",
        "|---|---|---|---|---|---|---|",
    ]
    medians: list[float] = []
    releases: list[float] = []
    value_intervals: list[float] = []
    lags: list[float] = []
    for where, d in run.drags:
        gaps = d.gaps
        during = len({src for t, src in d.images if d.down < t <= d.up})
        steps = d.value_gaps
        value_interval = statistics.median(steps) if steps else float("nan")
        medians.append(statistics.median(gaps))
        releases.append(d.release_ms)
        value_intervals.append(value_interval)
        lags += d.lags
        lines.append(
            f"| {where} {d.slider} {d.start} -> {d.end} | {len(d.inputs)} |"
            f" {during} | {statistics.median(gaps):.0f} | {max(gaps):.0f} |"
            f" {d.release_ms:.0f} | {value_interval:.0f} |"
        )
    lines += [""] + [f"- note: {n}" for n in run.notes]
    if not run.drags:
        return False, "\n".join([*lines, "- no drag: FAIL", ""])
    fast = [m for m, v in zip(medians, value_intervals, strict=True) if v <= INTERVAL_TARGET_MS]
    interval = statistics.median(fast) if fast else float("nan")
    release = statistics.median(releases)
    ok = bool(fast) and interval <= INTERVAL_TARGET_MS and release <= RELEASE_TARGET_MS
    lines += [
        f"- {len(fast)} of {len(run.drags)} drags changed the value at least every"
        f" {INTERVAL_TARGET_MS:.0f} ms: median interval between new images"
        f" {interval:.0f} ms over those (target <= {INTERVAL_TARGET_MS:.0f}); over all"
        f" drags {statistics.median(medians):.0f} ms, where the value changed every"
        f" {statistics.median([v for v in value_intervals if not math.isnan(v)] or [0]):.0f} ms",
        f"- median release -> final image {release:.0f} ms (target <= {RELEASE_TARGET_MS:.0f})",
        f"- verdict: {'PASS' if ok else 'FAIL'}",
    ]
    if lags:
        p90 = statistics.quantiles(lags, n=10)[-1] if len(lags) > 1 else lags[0]
        lines.append(
            f"- lag from the latest value change to a new image during a drag: median"
            f" {statistics.median(lags):.0f} ms, p90 {p90:.0f} ms over {len(lags)} images"
        )
    lines.append("")
    return ok, "\n".join(lines)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--only", nargs="*", default=None, help="notebook number prefixes, e.g. 02 06"
    )
    args = parser.parse_args(argv)
    chromium = os.environ.get("RETRYLAB_CHROMIUM") or shutil.which("chromium") or ""
    if not Path(chromium).is_file():
        print("chromium not found: apt-get install -y chromium (or set RETRYLAB_CHROMIUM)")
        return 2
    stems = [
        s for s in TARGET_NOTEBOOKS if not args.only or any(re.match(f"{p}_", s) for p in args.only)
    ]
    run = one_run(stems, chromium)
    command = "python benchmarks/bench_drag.py" + "".join(
        f" {a}" for a in (argv if argv is not None else sys.argv[1:])
    )
    ok, text = report(run, command)
    print(text)
    return 0 if ok else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
