"""Figures and explorers in Turkish: every label they show has its translation.

Each explorer at its defaults and each figure function that needs no argument is
drawn in English and in Turkish; every text on it (titles, axis labels, legends,
notes, slider descriptions) must come out different in Turkish, except names
that are the same in both languages (p50, Retry-After...). Texts are translated where they are made
(templates at the call site), so the test compares what is drawn.
"""

from __future__ import annotations

import inspect
import re
from collections.abc import Iterator

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from retrylab.viz import backoff, beyond, breaker, contention, explorers, fleet, herd
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.explorer import Explorer, to_png
from retrylab.viz.i18n import current, language, set_language

#: Shown as they are in Turkish too.
SAME = {"p50", "p99", "K", "k", "Retry-After", "API"}
WORDS = re.compile(r"[A-Za-z]{2}")


def figure_functions() -> Iterator[tuple[str, Figure]]:
    """Every figure function of the viz modules that needs no argument, drawn now."""
    for mod in (backoff, herd, breaker, fleet, contention, beyond):
        for name, fn in inspect.getmembers(mod, inspect.isfunction):
            if fn.__module__ != mod.__name__ or name.startswith("_"):
                continue
            params = inspect.signature(fn).parameters.values()
            if any(p.default is inspect.Parameter.empty and p.kind in
                   (p.POSITIONAL_ONLY, p.POSITIONAL_OR_KEYWORD) for p in params):
                continue
            if inspect.signature(fn).return_annotation not in (Figure, "Figure"):
                continue
            yield name, fn()


def texts(fig: Figure) -> set[str]:
    fig.canvas.draw()  # type: ignore[no-untyped-call]
    return {a.get_text() for a in fig.findobj(Text) if WORDS.search(a.get_text())
            and not a.get_text().startswith("$")}


def untranslated(same: set[str]) -> list[str]:
    """Of the texts drawn the same in both languages, those not meant to be: a text whose
    Turkish the catalogue has but is drawn in English was made without ``_()``."""
    return sorted(t for t in same if t not in SAME)


def _explorer_texts(cls: type[Explorer]) -> set[str]:
    ex = cls()
    found = texts(ex.figure) if ex.figure is not None else set()
    return found | {w.description for w in ex.controls.values()}


@pytest.mark.parametrize("cls", explorer_classes(), ids=lambda c: c.__name__)
def test_every_explorer_label_has_its_turkish(cls: type[Explorer]) -> None:
    """Drawn in Turkish, no text of the figure or the sliders is still the English one
    (texts made from templates at their call site compared as drawn, numbers filled in)."""
    english = _explorer_texts(cls)
    with language("tr"):
        turkish = _explorer_texts(cls)
    # drawn the same in both: untranslated
    assert untranslated(english & turkish) == []


def test_every_figure_label_has_its_turkish() -> None:
    english = {name: texts(fig) for name, fig in figure_functions()}
    with language("tr"):
        turkish = {name: texts(fig) for name, fig in figure_functions()}
    assert english.keys() == turkish.keys() and english
    missing = {name: untranslated(english[name] & turkish[name]) for name in english}
    assert {k: v for k, v in missing.items() if v} == {}


def test_a_turkish_explorer_draws_in_turkish() -> None:
    with language("tr"):
        ex = explorers.backoff_explorer()
        shown = texts(ex.figure)
        assert "bekleme" in " ".join(shown) and "tavan" in " ".join(shown)
        assert ex.controls["base"].description == "taban (ms)"
        ex.set(base=300)           # values keep their English names
        assert ex.values["base"] == 300
        assert to_png(ex.figure)[:4] == b"\x89PNG"
    assert current() == "en"


def test_set_language_checks_its_argument() -> None:
    with pytest.raises(ValueError, match="lang='de' is out of range"):
        set_language("de")
    assert current() == "en"


@pytest.mark.parametrize("cls", explorer_classes(), ids=lambda c: c.__name__)
def test_every_explorer_works_in_turkish(cls: type[Explorer]) -> None:
    with language("tr"):
        ex = cls()
        assert ex.message == ""
        assert ex.figure is None or ex.png[:4] == b"\x89PNG"


# The 14 px floor is tests/test_explorer_base.py's: sizes are set where texts are made.
