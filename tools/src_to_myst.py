"""Convert the notebook sources from jupytext's percent scripts to its MyST markdown.

    python tools/src_to_myst.py [NAME ...]   notebooks/src/NAME.py -> notebooks/src/NAME.md
                                            (default: every .py there), then delete the .py

The prose becomes markdown a teacher can preview, reflow and spell-check; each
cell keeps its metadata (tags, a twin's ``en_hash``, any other key). One change
besides the format: a scaffold cell and the solution cell right after it become
one exercise cell (tools/exercise_cells.py: the shared lines once, the
differences between ``### BEGIN STUB``/``### BEGIN SOLUTION`` markers), from
which the build makes both editions' cells again. And one left out: a cell
tagged ``test`` (a page's own check) is dropped when
tests/notebooks/test_page_checks.py holds the same check for that notebook
(its ``CHECKS``), and refused otherwise (move it there first), so a branch
that still has them in its .py converts without losing one.

Deterministic and lossless: the written file is read back and must give the same
cells (type, text, metadata), and every exercise cell must split into exactly
the scaffold and solution it came from; otherwise nothing is written. Run it
again after editing a .py (e.g. a branch that still edits the percent sources):
the .md is made anew from the .py.
"""

from __future__ import annotations

import argparse
import ast
import sys
from pathlib import Path

import jupytext
import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import exercise_cells  # (tools/ is not a package: its folder is put on the path)

ROOT = Path(__file__).resolve().parents[1]
SRC = ROOT / "notebooks" / "src"
FORMAT = "md:myst"
#: What JupyterLab (with jupytext) needs to open a source as a notebook and run it.
METADATA = {
    "jupytext": {"text_representation": {"extension": ".md", "format_name": "myst"}},
    "kernelspec": {"display_name": "Python 3 (ipykernel)", "language": "python", "name": "python3"},
}
#: jupytext's layout hints for percent scripts: meaningless in markdown.
LAYOUT_KEYS = ("lines_to_next_cell", "lines_to_end_of_cell_marker")
#: Where the pages' own checks (once cells tagged "test") live.
PAGE_CHECKS = ROOT / "tests" / "notebooks" / "test_page_checks.py"
TEST_TAG = "test"


def page_checks(path: Path = PAGE_CHECKS) -> dict[str, list[tuple[str, str]]]:
    """The ``CHECKS`` table of tests/notebooks/test_page_checks.py (notebook -> (first
    line of the cell a check follows, the check)), read without importing the test."""
    for node in ast.parse(path.read_text()).body:
        if isinstance(node, ast.AnnAssign) and ast.unparse(node.target) == "CHECKS":
            assert node.value is not None
            found: dict[str, list[tuple[str, str]]] = ast.literal_eval(node.value)
            return found
    raise SystemExit(f"{path}: no CHECKS table")


def _tags(cell: nbformat.NotebookNode) -> list[str]:
    return list(cell.metadata.get("tags", []))


def merge_exercises(nb: nbformat.NotebookNode, where: str) -> int:
    """Replace each scaffold cell and the solution cell after it by one exercise cell
    (the pair's other tags and metadata kept); returns how many were merged."""
    cells: list[nbformat.NotebookNode] = []
    merged = 0
    it = iter(range(len(nb.cells)))
    for i in it:
        cell = nb.cells[i]
        if "scaffold" not in _tags(cell):
            cells.append(cell)
            continue
        after = nb.cells[i + 1] if i + 1 < len(nb.cells) else None
        if after is None or after.cell_type != "code" or "solution" not in _tags(after):
            raise SystemExit(f"{where} cell {i}: a scaffold without its solution right after it")
        rest = [t for t in _tags(cell) if t != "scaffold"]
        if rest != [t for t in _tags(after) if t != "solution"] or {
            k: v for k, v in cell.metadata.items() if k != "tags"
        } != {k: v for k, v in after.metadata.items() if k != "tags"}:
            raise SystemExit(f"{where} cell {i}: the scaffold and its solution differ in metadata")
        if exercise_cells.is_exercise(cell.source) or exercise_cells.is_exercise(after.source):
            raise SystemExit(f"{where} cell {i}: a scaffold or solution already holds markers")
        one = nbformat.v4.new_code_cell(exercise_cells.merge(cell.source, after.source))
        one.metadata = nbformat.from_dict(dict(cell.metadata))
        if rest:
            one.metadata["tags"] = rest
        else:
            one.metadata.pop("tags", None)
        cells.append(one)
        merged += 1
        next(it)  # the solution is in the exercise cell
    nb.cells = cells
    return merged


def drop_page_checks(nb: nbformat.NotebookNode, known: list[tuple[str, str]], where: str) -> int:
    """Leave out the cells tagged ``test`` whose check ``known`` holds (the notebook's
    entries of :func:`page_checks`); refuse any other; returns how many were left out."""
    have = {check.strip() for _, check in known}
    kept = []
    for cell in nb.cells:
        if TEST_TAG not in _tags(cell):
            kept.append(cell)
            continue
        if cell.source.strip() not in have:
            first = next((line for line in cell.source.splitlines() if line.strip()), "")
            raise SystemExit(
                f"{where}: a cell tagged {TEST_TAG!r} that {PAGE_CHECKS.relative_to(ROOT)} "
                f"does not hold: add it to its CHECKS (after the first line of the code "
                f"cell it follows), then run this again: {first}"
            )
    dropped = len(nb.cells) - len(kept)
    nb.cells = kept
    return dropped


def convert(
    text: str, where: str = "source", checks: list[tuple[str, str]] | None = None
) -> tuple[str, int]:
    """A percent-format source as MyST markdown, and how many exercise cells it has
    (``checks``: the notebook's page checks, whose cells tagged ``test`` are left out)."""
    nb = jupytext.reads(text, fmt="py:percent")
    for cell in nb.cells:
        for key in LAYOUT_KEYS:
            cell.metadata.pop(key, None)
        cell.pop("id", None)
    drop_page_checks(nb, checks or [], where)
    merged = merge_exercises(nb, where)
    nb.metadata = nbformat.from_dict(METADATA)
    md = jupytext.writes(nb, fmt=FORMAT)
    back = jupytext.reads(md, fmt=FORMAT)
    got = [(c.cell_type, c.source, dict(c.metadata)) for c in back.cells]
    want = [(c.cell_type, c.source, dict(c.metadata)) for c in nb.cells]
    if got != want:
        bad = next(i for i, (g, w) in enumerate(zip(got, want, strict=False)) if g != w)
        raise SystemExit(f"{where}: MyST does not keep cell {bad} as it is: {want[bad]!r}")
    return md, merged


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*", help="notebook names (default: every .py source)")
    args = parser.parse_args(argv)
    paths = [SRC / (Path(n).stem + ".py") for n in args.names] or sorted(SRC.glob("*.py"))
    done = []
    checks = page_checks()
    for path in paths:
        if not path.exists():
            raise SystemExit(f"no source {path}")
        md, merged = convert(path.read_text(), path.name, checks.get(path.stem, []))
        done.append((path, md, merged))
    for path, md, merged in done:  # write only when every source converted
        path.with_suffix(".md").write_text(md)
        path.unlink()
        print(f"{path.stem}: {path.name} -> {path.stem}.md ({merged} exercise cells)")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
