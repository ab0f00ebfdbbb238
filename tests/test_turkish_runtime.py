"""A Turkish student reads Turkish after Run All (tools/english_words.py).

Two checks with one word list: the committed, executed Turkish editions'
outputs (CI executes every edition under nbval, and the committed notebooks are
rebuilt before a release), and every explorer's readout and messages rendered
in Turkish, at its defaults and with each control one step either way. English
is allowed only in code, identifiers and quoted names, which the word check
skips. These fail until every run-time text has its Turkish: they are the
definition of done of the Turkish edition.
"""

from __future__ import annotations

import importlib.util
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
_spec = importlib.util.spec_from_file_location("english_words", ROOT / "tools" / "english_words.py")
assert _spec is not None and _spec.loader is not None
english = importlib.util.module_from_spec(_spec)
sys.modules["english_words"] = english
_spec.loader.exec_module(english)
TURKISH = sorted((ROOT / "notebooks" / "tr").glob("**/*.ipynb"))


def _report(rows: list[tuple[str, str, list[str]]]) -> str:
    words = sum(len(w) for _, _, w in rows)
    shown = "\n".join(f"  [{where[:40]}] {line[:120]}" for where, line, _ in rows[:30])
    return f"{words} English words in {len(rows)} lines:\n{shown}"


def test_the_word_check_skips_code_and_finds_prose() -> None:
    assert english.english_words("Not yet: replace the ...") == ["Not", "yet", "replace", "the"]
    assert english.english_words("deneme=3 sonuç=basari beklemeler=[70, 184]") == []
    assert english.english_words("Henüz değil: ... yerine bir liste yazın.") == []


@pytest.mark.parametrize("path", TURKISH, ids=lambda p: str(p.relative_to(ROOT / "notebooks")))
def test_a_turkish_notebook_prints_no_english_prose(path: Path) -> None:
    rows = english.notebook_words(path)
    assert rows == [], _report(rows)


def test_every_explorer_speaks_turkish() -> None:
    rows = english.explorer_words("tr")
    assert rows == [], _report(rows)
