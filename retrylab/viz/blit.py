"""The blit helpers of :class:`~retrylab.viz.explorer.Explorer`: the animated artists in
drawing order, and a limit that follows the data quantized to a few levels (one saved
background each).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from matplotlib.figure import Figure

__all__ = ["NO_LEVEL", "animated_artists", "quantize"]


def quantize(value: float, levels: Sequence[float]) -> Any:
    """The smallest of ``levels`` (ascending) at or above ``value``; the largest if none is:
    a limit that follows the data, in a few steps (one saved background each).

    >>> quantize(800, (1000, 2000, 5000)), quantize(2000, (1000, 2000, 5000)), quantize(9e9, (1, 2))
    (1000, 2000, 2)
    """
    return next((lv for lv in levels if value <= lv), levels[-1])


#: The level before any: the first redraw always applies its level.
NO_LEVEL = object()


def animated_artists(fig: Figure) -> list[Any]:
    """The artists marked animated, in drawing order: figure-level first, then each Axes's
    by z-order (the order a full draw would draw them in)."""

    def key(a: Any) -> float:
        return float(a.get_zorder())

    out = sorted((a for a in fig.get_children() if a.get_animated()), key=key)
    for ax in fig.axes:
        out += sorted((a for a in ax.get_children() if a.get_animated()), key=key)
    return out
