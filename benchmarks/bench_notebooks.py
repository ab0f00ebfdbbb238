"""How long each notebook takes to run top to bottom in a fresh kernel (a student's Run All).

Every notebook of one edition (default: the student edition, ``notebooks/``)
is executed one after the other, each in a fresh ``python3`` kernel started
in the notebook's folder, as JupyterLab's "Restart Kernel and Run All Cells"
would. The committed file is only read; nothing is written.

Targets (issue 14): notebook 06 (the retry storms lab, the heaviest) within
15 s, and all the notebooks of an edition together within 60 s. The kernel's
start (about 1 s) is counted, since a student waits for it too; the
explorers' prefetch workers are left on, as in JupyterLab (they run at the
lowest priority and end with their kernel).

Run: ``python benchmarks/bench_notebooks.py [--edition DIR] [NAME ...]``; exit
status 1 if a target is missed.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
ONE_TARGET_S = {"06_retry_storms_lab": 15.0}
ALL_TARGET_S = 60.0


def run(path: Path) -> float:
    """Seconds to execute ``path`` in a fresh kernel (kernel start included)."""
    nb = nbformat.read(path, as_version=4)
    start = time.perf_counter()
    NotebookClient(
        nb, timeout=300, kernel_name="python3", resources={"metadata": {"path": str(path.parent)}}
    ).execute()
    return time.perf_counter() - start


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: every one)")
    parser.add_argument(
        "--edition",
        type=Path,
        default=ROOT / "notebooks",
        help="the folder of one edition (default: notebooks/)",
    )
    args = parser.parse_args(argv)
    # the kernels import this checkout's retrylab
    os.environ["PYTHONPATH"] = os.pathsep.join(
        p for p in (str(ROOT), os.environ.get("PYTHONPATH")) if p
    )
    folder: Path = args.edition
    paths = (
        [folder / f"{Path(n).stem}.ipynb" for n in args.names]
        if args.names
        else sorted(folder.glob("*.ipynb"))
    )
    missing = [p for p in paths if not p.is_file()]
    if missing:
        parser.error(f"{missing[0]} is out of range: no such notebook")
    one, five, _ = os.getloadavg()
    print(
        f"machine: {os.cpu_count()} CPUs, load average {one:.2f} (1 min), {five:.2f} "
        f"(5 min); {folder.relative_to(ROOT) if folder.is_relative_to(ROOT) else folder}"
    )
    failed = 0
    total = 0.0
    for path in paths:
        took = run(path)
        total += took
        target = ONE_TARGET_S.get(path.stem)
        verdict = (
            ""
            if target is None
            else (f"   target <= {target:.0f} s: {'PASS' if took <= target else 'FAIL'}")
        )
        failed += target is not None and took > target
        print(f"  {path.stem:<32} {took:6.1f} s{verdict}", flush=True)
    if not args.names:
        ok = total <= ALL_TARGET_S
        failed += not ok
        print(
            f"  {'all ' + str(len(paths)) + ' notebooks':<32} {total:6.1f} s   target <= "
            f"{ALL_TARGET_S:.0f} s: {'PASS' if ok else 'FAIL'}"
        )
    return 1 if failed else 0


if __name__ == "__main__":
    from results import recorded

    raise SystemExit(recorded(lambda: main(sys.argv[1:])))
