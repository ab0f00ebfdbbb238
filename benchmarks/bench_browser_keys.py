"""Key press on an explorer's slider -> new image in JupyterLab + Chromium (issue 20).

What a student waits for in a browser: a key press on a slider handle, the value
sent to the kernel, the redraw (compute + blit + palette PNG), the image sent
back, and a new ``src`` on the explorer's ``<img>``. Notebooks 02, 04, 06 and 09
are opened in a throw-away JupyterLab (the browser tests' harness in
``tests/browser/``, imported as it is), run with Run All, and then every
enabled slider of every explorer on the page is pressed ``--presses`` times in
one direction (the one with room), so every press goes to a setting this walk
has never drawn. A press whose settings are refused (a message instead of an
image) is stepped back and not timed.

Each timed press records, on the page's clock (``performance.now()``): keydown
-> new ``src`` (the figure the targets judge) and keydown -> the new image
decoded (``HTMLImageElement.decode()``, what the browser adds). The kernel's own
part is read from the live kernel afterwards: every explorer's
``Explorer.redraw_ms`` (compute, draw + PNG, sending the widgets' values), asked
as a user expression through a second client on the kernel's connection file
(nothing is printed into the notebook). Key -> src minus the kernel's callback
is the comm round trip and the page.

Two runs, each with a fresh server:

- ``free``: the kernel may use every CPU. Targets: median <= 60 ms, p95 <= 150 ms
  over at least 40 presses.
- ``pinned``: the kernel started under ``taskset -c 0`` (one CPU, as on a small
  Binder), through the kernel spec's argv. Target: median <= 100 ms.

Wall-clock times depend on what else the machine runs: the load average is
printed before and after each run.

Run: ``python benchmarks/bench_browser_keys.py [--presses N] [--mode free|pinned|both]
[--only 02 04 ...] [--json FILE]``; exit status 1 if a target is missed. Needs
Debian's /usr/bin/chromium and the playwright package (never ``playwright install``).
"""

from __future__ import annotations

import argparse
import ast
import contextlib
import json
import math
import os
import re
import shutil
import statistics
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from browser_walk import load_line, opened_notebooks  # noqa: E402

from tests.browser.catalog import NOTEBOOKS  # noqa: E402
from tests.browser.lab import LabServer  # noqa: E402
from tests.browser.pages import NotebookPage  # noqa: E402
from tests.browser.sliders import ExplorerDriver, key_for  # noqa: E402

#: The notebooks of issue 20's target, by stem.
TARGET_NOTEBOOKS = (
    "02_computing_the_wait",
    "04_circuit_breaker",
    "06_retry_storms_lab",
    "09_beyond_the_lessons",
)
MEDIAN_TARGET_MS = 60.0
P95_TARGET_MS = 150.0
PINNED_MEDIAN_TARGET_MS = 100.0
PRESSES_WANTED = 40
#: Key presses per slider, all one way from where Run All left it.
PRESSES = 3
RUN_ALL_TIMEOUT_MS = 180_000
#: A press whose image does not change in this long drew the same PNG (ipywidgets sends
#: nothing for an unchanged value); a redraw takes well under a second even under load.
REDRAW_TIMEOUT_MS = 5_000

#: What every explorer in the kernel spent on its redraws (``Explorer.redraw_ms``), read
#: as a user expression: nothing is printed into the notebook and no name is defined.
KERNEL_TIMES = (
    "__import__('json').dumps([[id(o), [list(t) for t in o.redraw_ms]] for o in "
    "__import__('gc').get_objects() if isinstance(o, __import__("
    "'retrylab.viz.explorer', fromlist=['Explorer']).Explorer)])"
)

# When an explorer's <img> gets a new src, and when that image is decoded (page clock).
JS_DECODE_PROBE = r"""
() => {
  if (window.__rlDecode) return;
  window.__rlDecode = {decoded: 0};
  new MutationObserver(ms => {
    for (const m of ms) {
      const img = m.target;
      if (img.tagName === 'IMG' && img.closest('.retrylab-explorer')) {
        const src = img.src;
        img.decode().then(() => {
          if (img.src === src) window.__rlDecode.decoded = performance.now();
        }).catch(() => {});
      }
    }
  }).observe(document.body, {subtree: true, attributes: true, attributeFilter: ['src']});
}
"""

# True once the image src differs from ``old``, the explorer shows a message, or its limit
# line says the figure is the same (class retrylab-same, with a title other than ``note``).
JS_SRC_OR_MESSAGE = r"""
([box, old, note]) => {
  const img = box.querySelector('img');
  if (img && img.src !== old) return 'image';
  const msg = box.querySelector('.retrylab-message');
  if (msg && msg.innerText.trim()) return 'message';
  const same = box.querySelector('.retrylab-limit .retrylab-same');
  return same && same.title !== note ? 'same' : false;
}
"""

# The title of the limit line's "same figure" note ("" when none shows).
JS_SAME_NOTE = "b => b.querySelector('.retrylab-limit .retrylab-same')?.title || ''"

JS_TIMES = "() => [window.__rl.key, window.__rl.img, window.__rlDecode.decoded]"


def percentile(values: list[float], p: float) -> float:
    """The nearest-rank ``p``-th percentile of ``values`` (non-empty).

    >>> percentile([10.0, 20.0, 30.0, 40.0], 95), percentile([5.0], 50)
    (40.0, 5.0)
    >>> percentile(list(map(float, range(1, 101))), 95)
    95.0
    """
    ordered = sorted(values)
    return ordered[max(0, math.ceil(p / 100 * len(ordered)) - 1)]


class PinnedLabServer(LabServer):
    """The browser tests' server, with a kernel spec that runs the kernel under
    ``taskset -c CPU`` (the kernel and every thread it starts use that CPU only)."""

    def __init__(self, notebooks: Path, cpu: int = 0) -> None:
        super().__init__(notebooks)
        self.cpu = cpu

    def _prepare_dirs(self) -> dict[str, str]:
        dirs = super()._prepare_dirs()
        spec_path = Path(dirs["JUPYTER_DATA_DIR"]) / "kernels" / "python3" / "kernel.json"
        spec = json.loads(spec_path.read_text())
        taskset = shutil.which("taskset") or "taskset"
        spec["argv"] = [taskset, "-c", str(self.cpu), *spec["argv"]]
        spec_path.write_text(json.dumps(spec))
        return dirs


def kernel_cpus(server: LabServer) -> list[str]:
    """The CPU sets of the server's kernel processes (to show the pinning took)."""
    found = []
    tmp = str(server.tmp)
    for cmdline in Path("/proc").glob("[0-9]*/cmdline"):
        try:
            argv = cmdline.read_bytes().split(b"\0")
        except OSError:
            continue
        text = b" ".join(argv).decode(errors="replace")
        if "ipykernel_launcher" in text and tmp in text:
            pid = int(cmdline.parent.name)
            try:
                found.append(f"pid {pid}: CPUs {sorted(os.sched_getaffinity(pid))}")
            except OSError:
                continue
    return found


def kernel_redraws(server: LabServer, name: str) -> dict[int, list[list[float]]]:
    """Every explorer's ``redraw_ms`` in the kernel of notebook ``name`` (by object id),
    asked through a second client on the kernel's connection file, as
    ``jupyter console --existing`` would."""
    from jupyter_client import BlockingKernelClient

    sessions = server.api("sessions")
    assert isinstance(sessions, list) and server.tmp is not None
    kernel = next(s["kernel"]["id"] for s in sessions if s.get("path") == name)
    client = BlockingKernelClient(
        connection_file=str(server.tmp / "jupyter_runtime_dir" / f"kernel-{kernel}.json")
    )
    client.load_connection_file()
    client.start_channels()
    try:
        reply = client.execute_interactive(
            "",
            user_expressions={"t": KERNEL_TIMES},
            store_history=False,
            timeout=60,
            output_hook=lambda msg: None,
        )
    finally:
        client.stop_channels()
    found = reply["content"]["user_expressions"]["t"]
    if found.get("status") != "ok":
        raise RuntimeError(f"{name}: reading redraw times failed: {found}")
    text = found["data"]["text/plain"]
    return {int(k): v for k, v in json.loads(ast.literal_eval(text))}  # the str's repr


@dataclass
class Run:
    """The presses of one run (one server, one kernel setting)."""

    mode: str
    samples: list[dict[str, Any]] = field(default_factory=list)
    skipped: list[str] = field(default_factory=list)
    #: presses that drew the same PNG, with the note the explorer showed
    unchanged: list[str] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    #: the kernel's own redraws during the presses: (compute, draw + PNG, send) ms
    kernel: list[list[float]] = field(default_factory=list)

    def latencies(self, key: str = "src_ms") -> list[float]:
        return [float(s[key]) for s in self.samples if s.get(key) is not None]


def press_every_slider(nb: NotebookPage, stem: str, presses: int, run: Run) -> None:
    """Walk every enabled slider of every explorer on the page ``presses`` key presses
    one way, timing each press that draws a new image."""
    page = nb.page
    page.evaluate(JS_DECODE_PROBE)
    boxes = page.locator(".retrylab-explorer")
    for k in range(boxes.count()):
        drv = ExplorerDriver(page, boxes.nth(k))
        drv.box.scroll_into_view_if_needed()
        if drv.img_src() is None:
            run.skipped.append(f"{stem} explorer {k}: no image")
            continue
        seen = {tuple(c.text for c in drv.controls())}
        sliders = [c for c in drv.controls() if c.kind == "slider" and not c.disabled]
        for control in sliders:
            key = key_for(control.vertical, control.at_max)
            for _ in range(presses):
                current = drv.control(control.name)
                if current.disabled or (
                    current.at_max if key in ("ArrowRight", "ArrowUp") else current.at_min
                ):
                    break
                src0 = drv.img_src()
                note0 = drv.box.evaluate(JS_SAME_NOTE)
                if not drv.press(control.name, key):
                    run.skipped.append(
                        f"{stem} explorer {k}: {key} on {control.name} did not move it"
                    )
                    break
                settings = tuple(c.text for c in drv.controls())
                sample: dict[str, Any] = {
                    "notebook": stem,
                    "explorer": k,
                    "slider": control.name,
                    "to": settings,
                }
                if settings in seen:
                    run.skipped.append(
                        f"{stem} explorer {k}: {control.name} came back to settings drawn before"
                    )
                    page.wait_for_timeout(500)  # let that (cached) image land first
                    continue
                seen.add(settings)
                try:
                    outcome = page.wait_for_function(
                        JS_SRC_OR_MESSAGE,
                        arg=[drv.box.element_handle(), src0, note0],
                        timeout=REDRAW_TIMEOUT_MS,
                        polling="raf",
                    ).json_value()
                except Exception:
                    run.skipped.append(
                        f"{stem} explorer {k}: {control.name} -> "
                        f"{drv.control(control.name).text}: no new image in "
                        f"{REDRAW_TIMEOUT_MS / 1000:.0f} s (the same PNG, "
                        "no sign on screen)"
                    )
                    continue
                if outcome == "same":  # the same PNG, and the explorer says why
                    run.unchanged.append(
                        f"{stem} explorer {k}: {control.name} -> "
                        f"{drv.control(control.name).text}: "
                        f"{drv.box.evaluate(JS_SAME_NOTE)}"
                    )
                    continue
                if outcome == "message":  # refused settings: step back, stop this slider
                    run.skipped.append(
                        f"{stem} explorer {k}: {control.name} -> "
                        f"{drv.control(control.name).text}: {drv.message()}"
                    )
                    back = key_for(control.vertical, key in ("ArrowRight", "ArrowUp"))
                    drv.press(control.name, back)
                    drv.wait_text(".retrylab-message", "", "equals")
                    break
                pressed, shown, _ = page.evaluate(JS_TIMES)
                sample["src_ms"] = round(shown - pressed, 1)
                # the decode lands a little after the src: wait for it (briefly)
                decoded = 0.0
                for _ in range(40):
                    decoded = page.evaluate(JS_TIMES)[2]
                    if decoded >= shown:
                        break
                    page.wait_for_timeout(25)
                sample["decoded_ms"] = round(decoded - pressed, 1) if decoded >= shown else None
                run.samples.append(sample)


def one_run(mode: str, stems: list[str], presses: int, chromium: str) -> Run:
    """Start a server (pinned kernel or not), open and run each notebook, press keys."""
    run = Run(mode)
    server = PinnedLabServer(NOTEBOOKS) if mode == "pinned" else LabServer(NOTEBOOKS)
    print(f"[{mode}] machine: {load_line()}", flush=True)
    with contextlib.closing(opened_notebooks(server, chromium, stems, run.skipped)) as walk:
        for stem, path, nb, t0 in walk:
            if mode == "pinned":
                run.notes.append(f"{stem} kernel: {'; '.join(kernel_cpus(server))}")
            nb.run_all(RUN_ALL_TIMEOUT_MS)
            problems = nb.problems()
            if problems:
                run.notes.append(
                    f"{stem}: {len(problems)} problem(s) after Run All, first: {problems[0][:200]}"
                )
            before = len(run.samples)
            seen = kernel_redraws(server, path.name)
            press_every_slider(nb, stem, presses, run)
            after = kernel_redraws(server, path.name)
            run.kernel += [t for k, times in after.items() for t in times[len(seen.get(k, [])) :]]
            lat = [s["src_ms"] for s in run.samples[before:]]
            print(
                f"[{mode}] {stem}: open+run {time.monotonic() - t0:.0f} s, "
                f"{len(lat)} presses, median "
                f"{statistics.median(lat) if lat else float('nan'):.0f} ms",
                flush=True,
            )
    print(f"[{mode}] machine: {load_line()}", flush=True)
    return run


def report(run: Run) -> bool:
    """Print a run's table and verdict; True if its targets are met."""
    lat = run.latencies()
    dec = run.latencies("decoded_ms")
    print(f"\n== {run.mode}: key press -> new image src, ms (page clock)")
    by: dict[str, list[float]] = {}
    for s in run.samples:
        by.setdefault(s["notebook"], []).append(float(s["src_ms"]))
        by.setdefault(f"{s['notebook']} explorer {s['explorer']}", []).append(float(s["src_ms"]))
    for name, values in sorted(by.items()):
        print(
            f"  {name:<40} n={len(values):3d} median {statistics.median(values):6.0f} "
            f"p95 {percentile(values, 95):6.0f} max {max(values):6.0f}"
        )
    for note in run.notes:
        print(f"  note: {note}")
    for skip in run.skipped:
        print(f"  not timed: {skip}")
    for same in run.unchanged:
        print(f"  the same image, with a sign: {same}")
    if not lat:
        print("  no press timed: FAIL")
        return False
    median, p95 = statistics.median(lat), percentile(lat, 95)
    if dec:
        print(
            f"  decoded: median {statistics.median(dec):.0f} ms, p95 {percentile(dec, 95):.0f}"
            f" ms (src -> decoded adds median "
            f"{statistics.median(d - s for d, s in _pairs(run)):.1f} ms)"
        )
    if run.kernel:
        parts = list(zip(*run.kernel, strict=True))
        total = [sum(t) for t in run.kernel]
        print(
            f"  kernel, {len(total)} redraws during the presses (Explorer.redraw_ms): "
            f"median compute {statistics.median(parts[0]):.1f} + draw/PNG "
            f"{statistics.median(parts[1]):.1f} + send {statistics.median(parts[2]):.1f} "
            f"ms; whole callback median {statistics.median(total):.1f}, p95 "
            f"{percentile(total, 95):.1f} ms; the rest of key -> src (comm round trip, "
            f"the page) ~ {median - statistics.median(total):.0f} ms at the median"
        )
    enough = len(lat) >= PRESSES_WANTED
    if run.mode == "pinned":
        ok = enough and median <= PINNED_MEDIAN_TARGET_MS
        print(
            f"  ALL: n={len(lat)} (>= {PRESSES_WANTED}) median {median:.0f} ms "
            f"(target <= {PINNED_MEDIAN_TARGET_MS:.0f}), p95 {p95:.0f} ms: "
            f"{'PASS' if ok else 'FAIL'}"
        )
    else:
        ok = enough and median <= MEDIAN_TARGET_MS and p95 <= P95_TARGET_MS
        print(
            f"  ALL: n={len(lat)} (>= {PRESSES_WANTED}) median {median:.0f} ms "
            f"(target <= {MEDIAN_TARGET_MS:.0f}), p95 {p95:.0f} ms "
            f"(target <= {P95_TARGET_MS:.0f}): {'PASS' if ok else 'FAIL'}"
        )
    return ok


def _pairs(run: Run) -> list[tuple[float, float]]:
    return [
        (float(s["decoded_ms"]), float(s["src_ms"]))
        for s in run.samples
        if s.get("decoded_ms") is not None
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument(
        "--presses", type=int, default=PRESSES, help="key presses per slider, one way (>= 1)"
    )
    parser.add_argument("--mode", choices=("free", "pinned", "both"), default="both")
    parser.add_argument(
        "--only", nargs="*", default=None, help="notebook number prefixes, e.g. 02 06"
    )
    parser.add_argument("--json", type=Path, default=None, help="write every sample here")
    args = parser.parse_args(argv)
    if args.presses < 1:
        parser.error(f"--presses={args.presses} is out of range: must be >= 1")
    chromium = os.environ.get("RETRYLAB_CHROMIUM") or shutil.which("chromium") or ""
    if not Path(chromium).is_file():
        print("chromium not found: apt-get install -y chromium (or set RETRYLAB_CHROMIUM)")
        return 2
    stems = [
        s for s in TARGET_NOTEBOOKS if not args.only or any(re.match(f"{p}_", s) for p in args.only)
    ]
    modes = ["free", "pinned"] if args.mode == "both" else [args.mode]
    runs = [one_run(mode, stems, args.presses, chromium) for mode in modes]
    if args.json is not None:
        args.json.write_text(
            json.dumps(
                [
                    {
                        "mode": r.mode,
                        "samples": r.samples,
                        "skipped": r.skipped,
                        "notes": r.notes,
                        "unchanged": r.unchanged,
                        "kernel_ms": r.kernel,
                    }
                    for r in runs
                ],
                indent=1,
                default=list,
            )
            + "\n"
        )
    ok = [report(r) for r in runs]
    return 0 if all(ok) else 1


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(main))
