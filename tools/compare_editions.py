"""Compare the editions the sources make now with the committed ones, cell ids aside.

    python tools/compare_editions.py [NAME ...]            cells (type, text, tags, nbgrader
                                                           metadata) of every edition, built
                                                           in memory from notebooks/src
    python tools/compare_editions.py --outputs DIR [NAME]  also the outputs of the executed
                                                           editions found under DIR (a copy
                                                           of notebooks/ built from the
                                                           sources), against the committed
                                                           (sanitized as nbval does,
                                                           execution counts aside)

Made to show that a change of the sources' form (percent scripts to MyST, one
exercise cell for a scaffold and its solution, ids from content) leaves every
edition as it was; exit 1 and the first difference of each notebook otherwise.
Committed cells tagged ``test`` (the page checks, now in tests/notebooks/test_page_checks.py)
are left out of the comparison.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import nbformat

sys.path.insert(0, str(Path(__file__).resolve().parent))
import build_notebooks as builder  # (tools/ is not a package: its folder is put on the path)

#: nbval's sanitizing of outputs (tests/sanitize.cfg: memory addresses, ports, seconds).
SANITIZE = builder.masks()


def _outputs(cell: nbformat.NotebookNode) -> str:
    """A code cell's outputs as nbval compares them: sanitized, execution counts aside."""
    text = json.dumps(
        [{k: v for k, v in o.items() if k != "execution_count"} for o in cell.outputs],
        sort_keys=True,
    )
    for pattern, replace in SANITIZE:
        text = pattern.sub(replace, text)
    return text


def _cells(nb: nbformat.NotebookNode, outputs: bool) -> list[tuple[object, ...]]:
    rows = []
    for c in nb.cells:
        if "test" in c.metadata.get("tags", []):
            continue
        row: tuple[object, ...] = (
            c.cell_type,
            c.source,
            list(c.metadata.get("tags", [])),
            {k: v for k, v in c.metadata.get("nbgrader", {}).items() if k != "grade_id"}
            if "nbgrader" in c.metadata
            else None,
        )
        if outputs and c.cell_type == "code":
            row += (_outputs(c),)
        rows.append(row)
    return rows


def compare(stem: str, edition: builder.Edition, built: Path | None) -> str | None:
    """The first difference of one edition of one notebook, or None."""
    committed_path = edition.path(stem)
    if not committed_path.exists():
        return None if edition.kind == "nbgrader" else f"{committed_path} is not committed"
    committed = nbformat.read(committed_path, as_version=4)
    if built is not None:
        if edition.kind == "nbgrader":
            return None
        made = nbformat.read(built / edition.path(stem).relative_to(builder.OUT), as_version=4)
    else:
        made = builder.make_notebook(stem, edition)
    a, b = _cells(committed, built is not None), _cells(made, built is not None)
    if a == b:
        return None
    i = next((i for i, (x, y) in enumerate(zip(a, b, strict=False)) if x != y), min(len(a), len(b)))
    return f"{len(a)} cells committed, {len(b)} made; first difference at cell {i}:\n" + (
        f"  committed: {a[i] if i < len(a) else None!r:.300}\n  made:      "
        f"{b[i] if i < len(b) else None!r:.300}"
    )


def main(argv: list[str]) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("names", nargs="*")
    parser.add_argument("--outputs", type=Path, help="a folder of executed editions to compare")
    args = parser.parse_args(argv)
    stems = [Path(n).stem for n in args.names] or [p.stem for p in builder.sources()]
    bad = 0
    for stem in stems:
        for edition in builder.ALL_EDITIONS if args.outputs is None else builder.EDITIONS:
            diff = compare(stem, edition, args.outputs)
            print(f"{stem} [{edition.name}]: {'same' if diff is None else 'DIFFERENT'}")
            if diff:
                print(diff)
                bad += 1
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
