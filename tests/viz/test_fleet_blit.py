"""The fleet, storm, contention and notebook 09 explorers blit and draw in the language of
the kernel (the same PNG bytes for a step or a fresh draw: tests/viz/test_explorer_base.py)."""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.text import Text

from retrylab.i18n import _, language
from retrylab.viz.beyond import (
    HedgingExplorer,
    MetastableExplorer,
    RateBreakerExplorer,
    ThrottleExplorer,
)
from retrylab.viz.contention import ContentionExplorer
from retrylab.viz.controls import neighbours
from retrylab.viz.explorer import Explorer
from retrylab.viz.fleet import FleetExplorer, StormExplorer

EXPLORERS: list[type[Explorer]] = [
    FleetExplorer,
    StormExplorer,
    ContentionExplorer,
    RateBreakerExplorer,
    HedgingExplorer,
    ThrottleExplorer,
    MetastableExplorer,
]

#: The most animated texts an explorer here draws on each redraw: its notes (about
#: 0.5 ms each); contention writes its five bars' calls and the picked time.
MAX_NOTES = 3
NOTES = {"ContentionExplorer": 6}


def steps(cls: type[Explorer]) -> list[tuple[str, Any]]:
    """One key press from the defaults on every control (the first neighbour)."""
    ex_controls = cls.make_controls()
    return [(name, neighbours(c)[0]) for name, c in ex_controls.items() if neighbours(c)]


@pytest.mark.parametrize("cls", EXPLORERS, ids=lambda c: c.__name__)
def test_the_explorer_blits(cls: type[Explorer]) -> None:
    """Animated artists over saved backgrounds: a handful of levels, and no animated text
    but the few notes that put the readout's numbers on the figure (retrylab.viz.notes):
    a redraw stays cheap."""
    ex = cls()
    ex.on_page()  # the backgrounds are drawn for a page
    assert ex._animated, "no animated artist: every redraw would draw the whole figure"
    notes = [a for a in ex._animated if isinstance(a, Text)]
    assert len(notes) <= NOTES.get(cls.__name__, MAX_NOTES)
    for name, value in steps(cls):
        ex.set(**{name: value})
    assert 1 <= len(ex.backgrounds) <= 8


@pytest.mark.parametrize("cls", EXPLORERS, ids=lambda c: c.__name__)
def test_a_turkish_explorer_shows_no_english_text(cls: type[Explorer]) -> None:
    with language("tr"):
        ex = cls()
        assert ex.figure is not None
        ex.figure.canvas.draw()  # type: ignore[no-untyped-call]
        shown = {t.get_text() for t in ex.figure.findobj(Text) if t.get_text()}
    with language("tr"):  # a text still the English msgid of a Turkish translation
        english = {t for t in shown if _(t) != t}
    assert english == set()
