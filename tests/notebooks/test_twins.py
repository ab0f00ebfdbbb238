"""Every Turkish twin was made from the English cell it follows (tools/twins.py)."""

from __future__ import annotations

from pathlib import Path

import pytest
from _tools import load_tool

ROOT = Path(__file__).resolve().parents[2]
twins_tool = load_tool("twins")
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.md"))


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.stem)
def test_every_twin_translates_the_english_it_follows(path: Path) -> None:
    bad = [t.describe() for t in twins_tool.stale(path)]
    assert bad == [], "\n".join(bad)


def test_a_changed_english_cell_makes_its_twin_stale(tmp_path: Path) -> None:
    src = tmp_path / "nb.md"
    src.write_text('Hello\n\n+++ {"tags": ["tr"]}\n\nMerhaba\n\n+++\n\nMore\n')
    assert [t.describe() for t in twins_tool.stale(src)] == [
        "nb: unstamped twin: English cell 'Hello' has changed since its translation "
        "'Merhaba' was made (translate it, then: python tools/twins.py stamp nb)"
    ]
    assert twins_tool.stamp(src) == 1 and twins_tool.stale(src) == []
    assert src.read_text() == (
        'Hello\n\n+++ {"tags": ["tr"], "en_hash": "185f8db3"}\n\nMerhaba\n\n+++\n\nMore\n'
    )  # the twin's line, and nothing else, changed
    src.write_text(src.read_text().replace("Hello", "Hello, world"))
    (bad,) = twins_tool.stale(src)
    assert bad.describe().startswith("nb: stale twin: English cell 'Hello, world'")
    assert twins_tool.stamp(src, new_only=True) == 0, "a stale twin is not a new one"
    assert len(twins_tool.stale(src)) == 1


def test_the_builder_accepts_the_hash_and_leaves_it_out_of_the_editions() -> None:
    builder = load_tool("build_notebooks")
    full = builder.parse('Hello\n\n+++ {"tags": ["tr"], "en_hash": "185f8db3"}\n\nMerhaba\n')
    (cell,) = builder.edition_notebook(full, builder.STUDENT_TR).cells
    assert cell.source == "Merhaba" and "en_hash" not in cell.metadata


def test_a_code_twin_is_stamped_in_its_options(tmp_path: Path) -> None:
    """A Turkish code cell (the lesson's words: ``/olcumler``) carries its hash as a
    ``:en_hash:`` option under ``{code-cell}``; stamping adds or replaces that line only."""
    english = '```{code-cell}\nurl = "/measurements"\n```\n\n'
    twin = '```{code-cell}\n:tags: [tr]\n\nurl = "/olcumler"\n```\n'
    src = tmp_path / "nb.md"
    src.write_text(english + twin)
    (bad,) = twins_tool.stale(src)
    assert bad.describe().startswith("nb: unstamped twin: English cell 'url = \"/measurements\"'")
    assert twins_tool.stamp(src) == 1 and twins_tool.stale(src) == []
    recorded = twins_tool.en_hash('url = "/measurements"')
    stamped = twin.replace(":tags: [tr]\n", f":tags: [tr]\n:en_hash: {recorded}\n")
    assert src.read_text() == english + stamped
    src.write_text(src.read_text().replace("/measurements", "/measurements/1"))
    assert len(twins_tool.stale(src)) == 1
    assert twins_tool.stamp(src) == 1 and twins_tool.stale(src) == []
    assert src.read_text().count(":en_hash:") == 1, "the old hash's line is replaced"
    builder = load_tool("build_notebooks")
    (cell,) = builder.edition_notebook(builder.parse(src.read_text()), builder.STUDENT_TR).cells
    assert cell.source == 'url = "/olcumler"' and "en_hash" not in cell.metadata
