"""Every committed notebook was built from its source in notebooks/src/ as it is now.

The .py sources are where notebooks are edited; a source changed without
rebuilding (python tools/build_notebooks.py NAME) would leave the committed
.ipynb, which students open and nbval runs, teaching the old text.
"""

from __future__ import annotations

import importlib.util
from pathlib import Path

import nbformat
import pytest

ROOT = Path(__file__).resolve().parents[1]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.py"))

_spec = importlib.util.spec_from_file_location("build_notebooks",
                                               ROOT / "tools" / "build_notebooks.py")
assert _spec is not None and _spec.loader is not None
builder = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(builder)


def cells(nb: nbformat.NotebookNode) -> list[tuple[str, str, list[str]]]:
    return [(c.cell_type, c.source, list(c.metadata.get("tags", []))) for c in nb.cells]


def test_every_source_has_a_notebook_and_back() -> None:
    built = sorted(p.stem for p in (ROOT / "notebooks").glob("*.ipynb"))
    assert built == [p.stem for p in SOURCES]
    assert len(SOURCES) >= 9


@pytest.mark.parametrize("src", SOURCES, ids=[p.stem for p in SOURCES])
def test_notebook_matches_its_source(src: Path) -> None:
    expected = builder.parse(src.read_text())
    committed = nbformat.read(ROOT / "notebooks" / (src.stem + ".ipynb"), as_version=4)
    assert cells(committed) == cells(expected), (
        f"notebooks/{src.stem}.ipynb is stale: run python tools/build_notebooks.py {src.stem}")
    code = [c for c in committed.cells if c.cell_type == "code"]
    assert all(c.execution_count is not None for c in code if c.source.strip()), (
        f"notebooks/{src.stem}.ipynb has cells without stored outputs")
