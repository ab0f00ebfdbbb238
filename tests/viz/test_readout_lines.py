"""Issue 34: the readout above every explorer's figure is at most two short lines, in
English and in Turkish, at the explorer's defaults: the lesson is on the figure, not in a
block of numbers above it.

"Short" is measured, not counted: each line is laid out as the page shows it (the readout's
font, 1.1 x JupyterLab's 13 px widget font) with Matplotlib's own text extents, and wraps
at the width of JupyterLab's notebook column (:data:`~retrylab.viz.kit.COLUMN_PX`). The
lines as shown, wrapped ones counted, must be two at most.
"""

from __future__ import annotations

import math

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text

from retrylab.i18n import language
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.explorer import Explorer
from retrylab.viz.kit import COLUMN_PX, new_figure

#: The readout's font as the page shows it: 1.1em of JupyterLab's 13 px widget font.
READOUT_PX = 1.1 * 13
#: The most lines a readout may take on the page.
MAX_LINES = 2


def shown_lines(text: str, fig: Figure) -> int:
    """How many lines ``text`` takes in a column :data:`COLUMN_PX` wide (each of its lines
    wraps when wider), measured at :data:`READOUT_PX` with the figure's renderer."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    lines = 0
    for line in text.splitlines() or [""]:
        t = Text(0, 0, line, fontsize=READOUT_PX * 72 / fig.dpi, figure=fig)
        width = t.get_window_extent(renderer).width
        lines += max(1, math.ceil(width / COLUMN_PX))
    return lines


def test_a_long_line_counts_as_the_lines_it_wraps_to() -> None:
    fig = new_figure((2, 1))
    assert shown_lines("served 200 of 1000 clients", fig) == 1
    assert shown_lines("a\nb", fig) == 2
    assert shown_lines("word " * 60, fig) >= 3


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", explorer_classes(), ids=lambda c: c.__name__)
def test_the_readout_is_at_most_two_short_lines(cls: type[Explorer], lang: str) -> None:
    fig = new_figure((2, 1))
    with language(lang):
        readout = cls.readout_for()
    assert shown_lines(readout, fig) <= MAX_LINES, readout


def test_a_share_in_a_figure_title_is_written_the_turkish_way() -> None:
    """«bottom failing 100%» in English is «%100» in Turkish (``i18n.percent``)."""
    from retrylab.viz.contention import layered_load

    with language("en"):
        assert "100%" in layered_load().axes[0].get_title()
    with language("tr"):
        title = layered_load().axes[0].get_title()
    assert "%100" in title and "100%" not in title, title
