"""Every number the prose cites is the number the code prints (issue 40).

A markdown cell marks a number it takes from the code with an HTML comment right
after it, which neither JupyterLab nor GitHub shows::

    ... against 88<!-- = len(import_module("m")._loop_cases()) --> servers

The expression is evaluated with ``import_module``; the number before the comment
(English ``1,000.5`` or Turkish ``1.000,5``, a Turkish suffix such as ``'den`` allowed)
must equal its value. Both languages' cells are read, so a translation cannot drift
from the English or from the checker it describes.
"""

from __future__ import annotations

import re
from importlib import import_module
from pathlib import Path

import jupytext
import pytest

ROOT = Path(__file__).resolve().parents[2]
SOURCES = sorted((ROOT / "notebooks" / "src").glob("*.md"))
CITE = re.compile(r"(-?\d[\d.,]*?)(?:'\w+)?\s*<!-- = (.+?) -->")


def citations() -> list[tuple[str, str, str, str]]:
    """(notebook, language, number as written, expression) for every marked number."""
    found = []
    for path in SOURCES:
        for cell in jupytext.reads(path.read_text(), fmt="md:myst").cells:
            if cell.cell_type != "markdown":
                continue
            lang = "tr" if "tr" in cell.metadata.get("tags", []) else "en"
            body = cell.source.replace("\n", " ")
            found += [(path.stem, lang, m.group(1), m.group(2)) for m in CITE.finditer(body)]
    return found


def written(number: str, lang: str) -> float:
    """The value of a number as the prose writes it in ``lang``."""
    if lang == "tr":
        return float(number.replace(".", "").replace(",", "."))
    return float(number.replace(",", ""))


CITED = citations()


def test_the_prose_cites_numbers_in_both_languages() -> None:
    langs = {(stem, lang) for stem, lang, _n, _e in CITED}
    assert {"en", "tr"} <= {lang for _s, lang in langs}
    assert len(CITED) >= 10, CITED


@pytest.mark.parametrize(
    ("stem", "lang", "number", "expr"), CITED, ids=[f"{s}-{lang}-{n}" for s, lang, n, _e in CITED]
)
def test_a_cited_number_is_the_one_the_code_gives(
    stem: str, lang: str, number: str, expr: str
) -> None:
    value = eval(expr, {"import_module": import_module})
    assert written(number, lang) == pytest.approx(float(value)), (
        f"{stem} ({lang}) cites {number}; the code gives {value} ({expr})"
    )


def test_a_wrong_citation_is_caught() -> None:
    body = "görmediğiniz 80<!-- = 8 * 11 --> sunucuya"
    ((number, expr),) = [(m.group(1), m.group(2)) for m in CITE.finditer(body)]
    assert written(number, "tr") != eval(expr)
