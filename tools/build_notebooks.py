"""Build notebooks/NN_name.ipynb from notebooks/src/NN_name.py, then execute it.

The .py source is the single place a notebook is edited: short cells in the
"percent" format, reviewable as a diff. The .ipynb is generated, executed in a
fresh kernel from the notebooks/ folder, and committed with its outputs (so it
reads on GitHub without a kernel, and nbval compares against them).

Cell markers (one line each, ``# %%`` then optional words):

    # %% [markdown]          a markdown cell; its lines lose their leading "# "
    # %%                     a code cell
    # %% ignore-output       a code cell tagged nbval-ignore-output (widgets)
    # %% solution            a code cell whose source is collapsed (a solution)
    # %% skip                a code cell tagged nbval-skip (never in CI)

Usage: python tools/build_notebooks.py [NAME ...]   (default: every source)
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

import nbformat
from nbclient import NotebookClient

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
OUT = ROOT / "notebooks"
FLAGS = {"ignore-output", "solution", "skip"}


def parse(text: str) -> nbformat.NotebookNode:
    """Turn a percent-format source into a notebook (not executed)."""
    nb = nbformat.v4.new_notebook()
    nb.metadata["kernelspec"] = {"display_name": "Python 3", "language": "python",
                                 "name": "python3"}
    nb.metadata["language_info"] = {"name": "python"}
    cells: list[tuple[str, set[str], list[str]]] = []
    for line in text.splitlines():
        if line.startswith("# %%"):
            words = line[4:].split()
            kind = "markdown" if words[:1] == ["[markdown]"] else "code"
            flags = {w for w in words if w in FLAGS}
            unknown = [w for w in words if w not in FLAGS and w != "[markdown]"]
            if unknown:
                raise SystemExit(f"unknown cell flag(s) {unknown} in line {line!r}")
            cells.append((kind, flags, []))
        elif cells:
            cells[-1][2].append(line)
    for kind, flags, lines in cells:
        while lines and not lines[-1].strip():
            lines.pop()
        while lines and not lines[0].strip():
            lines.pop(0)
        if kind == "markdown":
            body = "\n".join(ln[2:] if ln.startswith("# ") else ln.lstrip("#") for ln in lines)
            nb.cells.append(nbformat.v4.new_markdown_cell(body))
            continue
        cell = nbformat.v4.new_code_cell("\n".join(lines))
        tags = []
        if "ignore-output" in flags:
            tags.append("nbval-ignore-output")
        if "skip" in flags:
            tags.append("nbval-skip")
        if "solution" in flags:
            tags.append("solution")
            cell.metadata["jupyter"] = {"source_hidden": True}
        if tags:
            cell.metadata["tags"] = tags
        nb.cells.append(cell)
    for i, cell in enumerate(nb.cells):  # stable ids: clean diffs between builds
        cell["id"] = f"c{i:03d}"
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
