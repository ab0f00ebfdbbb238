"""Every committed notebook, in every edition, was built from its source as it is now.

The .md sources in notebooks/src/ are where notebooks are edited; a source
changed without rebuilding (python tools/build_notebooks.py NAME) would leave a
committed .ipynb, which students open and nbval runs, teaching the old text.
Each edition (tools/build_notebooks.py's EDITIONS) has its own folder.
"""

from __future__ import annotations

from pathlib import Path

import nbformat
import pytest
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.md"))

builder = load_tool("build_notebooks")
EDITIONS = builder.EDITIONS
PAIRS = [(src, ed) for ed in EDITIONS for src in SOURCES]


def cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[str], str]]:
    return [
        (c.cell_type, c.source, list(c.metadata.get("tags", [])), c.get("id", "")) for c in nb.cells
    ]


def test_the_editions_are_the_student_and_instructor_ones() -> None:
    folders = {e.name: e.folder for e in EDITIONS}
    assert folders["student"] == "" and folders["instructor"] == "solutions"
    assert len({e.out for e in EDITIONS}) == len(EDITIONS)


@pytest.mark.parametrize("edition", EDITIONS, ids=[e.name for e in EDITIONS])
def test_every_source_has_a_notebook_and_back(edition: object) -> None:
    built = sorted(p.stem for p in edition.out.glob("*.ipynb"))  # type: ignore[attr-defined]
    assert built == [p.stem for p in SOURCES], (
        f"{edition.name} edition: run python tools/build_notebooks.py"
    )  # type: ignore[attr-defined]
    assert len(SOURCES) >= 8


@pytest.mark.parametrize(("src", "edition"), PAIRS, ids=[f"{e.name}-{s.stem}" for s, e in PAIRS])
def test_notebook_matches_its_source(src: Path, edition: object) -> None:
    expected = builder.edition_notebook(builder.parse(src.read_text()), edition)
    path = edition.path(src.stem)  # type: ignore[attr-defined]
    assert path.exists(), f"{path.relative_to(ROOT)} is missing: run tools/build_notebooks.py"
    committed = nbformat.read(path, as_version=4)
    assert cells(committed) == cells(expected), (
        f"{path.relative_to(ROOT)} is stale: run python tools/build_notebooks.py {src.stem}"
    )
    assert committed.metadata["kernelspec"]["display_name"] == "Python 3 (ipykernel)"
    assert "widgets" not in committed.metadata
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code if c.source.strip()), (
        f"{path.relative_to(ROOT)} has cells without stored outputs"
    )


def _ran(*texts: str) -> nbformat.NotebookNode:
    cell = nbformat.v4.new_code_cell("run()", execution_count=1, id="run")
    cell.outputs = [nbformat.v4.new_output("stream", name="stdout", text=t) for t in texts]
    return nbformat.v4.new_notebook(cells=[cell])


def test_a_rebuild_that_changes_only_what_nbval_masks_leaves_the_file(tmp_path: Path) -> None:
    """The lab's port and the experiments' seconds change on every build, and a print may
    reach the notebook in one stream output or two: none of that is a change to commit."""
    path = tmp_path / "nb.ipynb"
    nbformat.write(_ran("LabServer(http://127.0.0.1:37119)\n1,000 writes in 1.95 s\n"), path)
    assert not builder.differs(
        _ran("LabServer(http://127.0.0.1:40001)\n", "1,000 writes in 2.14 s\n"), path
    )
    assert builder.differs(
        _ran("LabServer(http://127.0.0.1:40001)\n1,001 writes in 2.14 s\n"), path
    )
    changed = _ran("LabServer(http://127.0.0.1:37119)\n1,000 writes in 1.95 s\n")
    changed.cells[0].source = "run(again=True)"
    assert builder.differs(changed, path)
    # the masks are nbval's, for outputs: a source that reads like a port is compared as is
    nbformat.write(changed, path)
    moved = _ran("LabServer(http://127.0.0.1:37119)\n1,000 writes in 1.95 s\n")
    moved.cells[0].source = "run(again=True)  # http://127.0.0.1:8899"
    assert builder.differs(moved, path)
