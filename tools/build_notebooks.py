"""Build notebooks/NN_name.ipynb from notebooks/src/NN_name.py, then execute it.

The .py source is the single place a notebook is edited: short cells in
jupytext's "percent" format, reviewable as a diff. jupytext reads it into cells;
this script adds what the committed notebooks need, executes them in a fresh
kernel from the notebooks/ folder, and writes them with their outputs (so they
read on GitHub without a kernel, and nbval compares against them).

Cell markers are jupytext's (``# %%`` then optional metadata); the tags used here:

    # %% [markdown]                         a markdown cell
    # %%                                    a code cell
    # %% tags=["nbval-ignore-output"]       nbval does not compare its output (widgets)
    # %% tags=["solution"]                  a solution (its source is collapsed)
    # %% tags=["nbval-skip"]                never executed in CI

Usage: python tools/build_notebooks.py [NAME ...]   (default: every source)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import jupytext
import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
TAGS = {"nbval-ignore-output", "solution", "nbval-skip"}
#: What JupyterLab writes for ipykernel's kernel, so opening a notebook changes nothing.
KERNELSPEC = {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"}


def parse(text: str) -> nbformat.NotebookNode:
    """Read a percent-format source into a notebook (not executed)."""
    nb = jupytext.reads(text, fmt="py:percent")
    nb.metadata = nbformat.from_dict({"kernelspec": dict(KERNELSPEC),
                                      "language_info": {"name": "python"}})
    for i, cell in enumerate(nb.cells):
        tags = cell.metadata.get("tags", [])
        unknown = sorted(set(tags) - TAGS)
        if unknown:
            raise SystemExit(f"unknown cell tag(s) {unknown} in cell {i}: "
                             f"{cell.source.splitlines()[:1]}")
        extra = set(cell.metadata) - {"tags"}
        if extra:
            raise SystemExit(f"unexpected cell metadata {sorted(extra)} in cell {i}")
        if "solution" in tags:
            cell.metadata["jupyter"] = {"source_hidden": True}
        cell["id"] = f"c{i:03d}"  # stable ids: clean diffs between builds
    return nb


def strip_widget_views(nb: nbformat.NotebookNode) -> None:
    """Keep what reads without a kernel; drop live widget state.

    Widget state has random model ids (every build would change the diff) and
    is useless without a kernel. Each explorer's output also carries an
    ``image/png`` of its first render and a ``text/plain`` line, which stay: a
    reader on GitHub, nbviewer or in JupyterLab before running sees the figure.
    """
    nb.metadata.pop("widgets", None)
    for cell in nb.cells:
        cell.metadata.pop("execution", None)
        for out in cell.get("outputs", []):
            data = out.get("data", {})
            data.pop("application/vnd.jupyter.widget-view+json", None)


def build(src: Path) -> float:
    """Parse, execute in a fresh kernel, write; return seconds taken."""
    nb = parse(src.read_text())
    start = time.perf_counter()
    NotebookClient(nb, timeout=120, kernel_name="python3",
                   resources={"metadata": {"path": str(OUT)}}).execute()
    took = time.perf_counter() - start
    strip_widget_views(nb)
    target = OUT / (src.stem + ".ipynb")
    nbformat.write(nb, target)
    return took


def main(argv: list[str]) -> int:
    names = argv or sorted(p.stem for p in SRC.glob("*.py"))
    total = 0.0
    for name in names:
        src = SRC / (Path(name).stem + ".py")
        took = build(src)
        total += took
        print(f"{src.stem}: executed in {took:.1f} s")
    print(f"all: {total:.1f} s")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
