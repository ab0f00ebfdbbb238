"""Notes on a figure: the number that matters, written where it happens.

An explorer's readout states its numbers above the image; a note puts the one that
carries the lesson on the figure itself (at the end of a line, beside a dot), in the
colour of the series it names, so it reads from the back of a classroom. A note is a
text made once in ``setup`` (animated) and moved in ``draw``; :func:`stack` places
several at the same x so that none covers another.

>>> spread([0.1, 0.12, 0.5], 0.1, 0.0, 0.9)
[0.1, 0.2, 0.5]
>>> spread([0.85, 0.88], 0.1, 0.0, 0.9)
[0.8, 0.9]
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any
from weakref import WeakKeyDictionary

import numpy as np
from matplotlib.axes import Axes
from matplotlib.text import Text

from .kit import SMALL_PT

__all__ = [
    "NOTE_PT",
    "below_legend",
    "hide",
    "line_height",
    "new_note",
    "spread",
    "stack",
    "to_axes",
]

#: A note's size: a little over the small texts' floor (14 px as shown; 18 px with the
#: projector switch), bold, so the number reads before the legend does.
NOTE_PT = SMALL_PT + 1.0


def new_note(ax: Axes, colour: str, ha: str = "right", va: str = "bottom") -> Text:
    """An empty, animated note in ``ax`` (axes coordinates), in ``colour``."""
    note = ax.text(
        0.0,
        0.0,
        "",
        transform=ax.transAxes,
        ha=ha,
        va=va,
        fontsize=NOTE_PT,
        fontweight="bold",
        color=colour,
    )
    note.set_animated(True)
    note.set_in_layout(False)  # drawn over the axes: no part of a constrained layout
    return note


def line_height(ax: Axes, lines: int = 1) -> float:
    """The height of ``lines`` lines of a note as a share of ``ax``'s height (a line's
    extent is its font size; Matplotlib spaces lines 1.2 apart), with a little room."""
    px = NOTE_PT * (1.2 * lines - 0.2 + 0.08) * ax.figure.dpi / 72 + 1.5
    return float(px / max(ax.bbox.height, 1.0))


def to_axes(ax: Axes, x: float, y: float) -> tuple[float, float]:
    """The data point (x, y) in ``ax``'s axes coordinates (0 to 1 inside the axes)."""
    fx, fy = (ax.transData + ax.transAxes.inverted()).transform((x, y))
    return float(fx), float(fy)


def spread(wanted: Sequence[float], gap: float, low: float, high: float) -> list[float]:
    """Positions as near ``wanted`` as can be with at least ``gap`` between any two and
    all within [``low``, ``high``], in ``wanted``'s order (a 1-d label layout)."""
    order = sorted(range(len(wanted)), key=lambda i: (wanted[i], i))
    ys = [min(max(float(wanted[i]), low), high) for i in order]
    for k in range(1, len(ys)):  # upward: each clear of the one below
        ys[k] = max(ys[k], ys[k - 1] + gap)
    if ys and ys[-1] > high:  # then down from the top, if that ran out of room
        ys[-1] = high
        for k in range(len(ys) - 2, -1, -1):
            ys[k] = min(ys[k], ys[k + 1] - gap)
    out = [0.0] * len(ys)
    for k, i in enumerate(order):
        out[i] = round(ys[k], 6)
    return out


def stack(
    ax: Axes,
    notes: Sequence[tuple[Text, float]],
    x: float,
    lift: float = 0.02,
    high: float = 1.0,
) -> None:
    """Put each shown note (``va="bottom"``) at axes x ``x``, just above its axes y
    (clipped to the axes; just under it when there is no room above), the notes spread
    apart so none covers another and none reaches over axes y ``high`` (a legend's
    bottom). A negative ``lift`` centres a note on its y (pass minus half its height)."""
    shown = [(t, y) for t, y in notes if t.get_text()]
    gap = max((line_height(ax, t.get_text().count("\n") + 1) for t, _y in shown), default=0.0)
    top = min(high, 1.0) - gap
    # above its line where there is room, else under it (not across it)
    wanted = [
        y + lift if y + lift <= top else y - abs(lift) - gap
        for y in (float(np.clip(y, 0.0, 1.0)) for _t, y in shown)
    ]
    for (note, _y), at in zip(shown, spread(wanted, gap, 0.0, top), strict=True):
        note.set_position((x, at))


def below_legend(ax: Axes) -> float:
    """The axes y of the bottom of ``ax``'s legend (1.0 without one), as first laid out
    (measured once per Axes: an explorer's legend stays where it is)."""
    known = _LEGEND_BOTTOMS.get(ax)
    if known is not None:
        return known
    legend = ax.get_legend()
    bottom = 1.0
    if legend is not None:
        box = legend.get_window_extent(ax.figure.canvas.get_renderer())  # type: ignore[attr-defined]
        bottom = float(ax.transAxes.inverted().transform((0.0, box.y0))[1])
    _LEGEND_BOTTOMS[ax] = bottom
    return bottom


#: Each Axes' legend bottom (forgotten with its Axes).
_LEGEND_BOTTOMS: WeakKeyDictionary[Axes, float] = WeakKeyDictionary()


def hide(*notes: Any) -> None:
    """Empty the notes (a note with no text is not drawn)."""
    for note in notes:
        note.set_text("")
