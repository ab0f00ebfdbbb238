"""Every Turkish twin was made from the English cell it follows (tools/twins.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[1]
twins_tool = load_tool("twins")
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.py"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_every_twin_translates_the_english_it_follows(path: Path) -> None:
    bad = [t.describe() for t in twins_tool.stale(path)]
    assert bad == [], "\n".join(bad)


def test_a_changed_english_cell_makes_its_twin_stale(tmp_path: Path) -> None:
    src = tmp_path / "nb.py"
    src.write_text('# %% [markdown]\n# Hello\n\n# %% [markdown] tags=["tr"]\n# Merhaba\n')
    assert [t.describe() for t in twins_tool.stale(src)] == [
        "nb: unstamped twin: English cell 'Hello' has changed since its translation "
        "'Merhaba' was made (translate it, then: python tools/twins.py stamp nb)"
    ]
    assert twins_tool.stamp(src) == 1 and twins_tool.stale(src) == []
    assert 'tags=["tr"] en_hash="185f8db3"' in src.read_text()
    src.write_text(src.read_text().replace("# Hello", "# Hello, world"))
    (bad,) = twins_tool.stale(src)
    assert bad.describe().startswith("nb: stale twin: English cell 'Hello, world'")


def test_the_builder_accepts_the_hash_and_leaves_it_out_of_the_editions() -> None:
    builder = load_tool("build_notebooks")
    full = builder.parse(
        '# %% [markdown]\n# Hello\n\n# %% [markdown] tags=["tr"] en_hash="185f8db3"\n# Merhaba\n'
    )
    (cell,) = builder.edition_notebook(full, builder.STUDENT_TR).cells
    assert cell.source == "Merhaba" and "en_hash" not in cell.metadata
