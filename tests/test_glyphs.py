"""Remembered text (retrylab.viz.glyphs) draws the very pixels Matplotlib draws afresh."""

from __future__ import annotations

from typing import Any

import pytest
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from retrylab.viz import glyphs
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.figure import Explorer
from retrylab.viz.kit import to_png
from retrylab.viz.prefetch import Prefetcher


def _settings(cls: type[Explorer]) -> list[dict[str, Any]]:
    """The defaults, then every control one step either way (the redraws a student makes)."""
    ex = cls()
    return [ex.values, *Prefetcher.neighbour_settings(ex.values, ex.controls, None)]


@pytest.mark.parametrize("cls", [c for c in explorer_classes() if c.figsize is not None],
                         ids=lambda c: c.__name__)
def test_every_explorer_redraw_is_byte_identical_with_remembered_text(
        cls: type[Explorer]) -> None:
    remembering, fresh = cls(), cls()
    checked = 0
    for values in _settings(cls):
        try:
            remembering.set(**values)
        except ValueError:  # a step into invalid settings: nothing drawn
            continue
        with glyphs.afresh():
            fresh.set(**values)
        assert remembering.png == fresh.png, f"{cls.__name__} at {values}"
        checked += 1
    assert checked >= 2


def test_an_explorer_redraw_reuses_its_texts() -> None:
    from retrylab.viz.explorers import BackoffExplorer

    ex = BackoffExplorer()
    held = glyphs.remembered()
    ex.set(base=250)
    assert held > 0 and glyphs.remembered() - held < held  # most texts were drawn before


def test_text_that_moves_or_changes_is_drawn_again() -> None:
    fig = Figure((3, 1), dpi=100)
    label = fig.text(0.1, 0.5, "attempt 1", color="black")
    pngs = {}
    # 0.1004 moves the text a tenth of a pixel (Matplotlib 3.11 places glyphs to 1/64
    # px; older ones round to whole pixels), 0.105 a pixel and a half
    for text, x, colour in [("attempt 1", 0.1, "black"), ("attempt 2", 0.1, "black"),
                            ("attempt 1", 0.1004, "black"), ("attempt 1", 0.105, "black"),
                            ("attempt 1", 0.1, "red")]:
        label.set_text(text)
        label.set_x(x)
        label.set_color(colour)
        png = to_png(fig)
        with glyphs.afresh():
            assert png == to_png(fig), (text, x, colour)
        pngs[(text, x, colour)] = png
    del pngs[("attempt 1", 0.1004, "black")]
    assert len(set(pngs.values())) == 4  # each change shows


def test_math_text_and_other_canvases_are_drawn_as_matplotlib_draws_them() -> None:
    fig = Figure((2, 1), dpi=100)
    fig.text(0.1, 0.5, r"$2^{n}$ ms")
    before = glyphs.remembered()
    png = to_png(fig)
    assert glyphs.remembered() == before  # math text is never remembered
    with glyphs.afresh():
        assert to_png(fig) == png
    other = FigureCanvasAgg(Figure((1, 1)))
    assert "draw_text" not in vars(other.get_renderer())  # only our canvases


def test_the_memory_is_bounded(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(glyphs, "MAX_TEXTS", 5)
    fig = Figure((2, 1), dpi=100)
    label = fig.text(0.1, 0.5, "")
    for k in range(20):
        label.set_text(f"wait {k} ms")
        to_png(fig)
    assert glyphs.remembered() <= 5
