"""The contention explorer's strategy names read one by one (issue 34).

Five names label five bars per panel. Under upright bars, in two staggered rows, the
Turkish "eşit" and "geri çekilmesiz" met on the lower row and read as one phrase ("eşit
geri çekilmesiz"). What is checked, with Matplotlib's own text extents after the
explorer rendered its PNG, at the defaults and each control's two ends, in English and
Turkish, with the projector switch off and on:

- every strategy has one name shown, beside its own bar: the name's extent across the
  bars stays inside its bar's slot (half way to each neighbour's bar);
- two names side by side are at least a space of their font apart.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import _projector
import pytest
from matplotlib.axes import Axes
from matplotlib.container import BarContainer
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from test_figure_text_layout import SLACK_PX, states

from retrylab.i18n import language
from retrylab.sim.contention import STRATEGIES
from retrylab.viz.contention import ContentionExplorer

switch = _projector.switch  # the projector switch, off then on (a fixture)


def _space_px(t: Text, renderer: Any) -> float:
    """The width (px) of a space in ``t``'s font: "a a" less "aa"."""
    font = t.get_fontproperties()
    wide = renderer.get_text_width_height_descent("a a", font, ismath=False)[0]
    narrow = renderer.get_text_width_height_descent("aa", font, ismath=False)[0]
    return float(wide - narrow)


@dataclass(frozen=True)
class Slot:
    """Where a bar's name may sit, across the bars (px)."""

    index: int  #: the bar's
    upright: bool  #: the slot runs along x (upright bars) or y (lying ones)
    lo: float
    hi: float

    def holds(self, box: Bbox) -> bool:
        a, b = (box.x0, box.x1) if self.upright else (box.y0, box.y1)
        return self.lo - SLACK_PX <= a and b <= self.hi + SLACK_PX


def _names(ax: Axes, bars: BarContainer, renderer: Any) -> list[tuple[Text, Bbox, Slot]]:
    """The names shown beside ``bars``: the label, its extent, and its bar's slot in px
    across the bars (x for upright bars, y for lying ones: the bar's centre +- half the
    distance to the next bar's) with the bar's index."""
    upright = bars.orientation == "vertical"
    axis = ax.xaxis if upright else ax.yaxis
    centres = [
        r.get_x() + r.get_width() / 2 if upright else r.get_y() + r.get_height() / 2 for r in bars
    ]
    half = abs(centres[1] - centres[0]) / 2
    lo, hi = sorted(axis.get_view_interval())
    found = []
    for tick in axis.get_major_ticks():
        label = tick.label1
        if not (ax.axison and label.get_visible() and label.get_text().strip()):
            continue
        if not lo - 1e-9 <= tick.get_loc() <= hi + 1e-9:
            continue
        i = min(range(len(centres)), key=lambda k: abs(centres[k] - tick.get_loc()))
        ends = [centres[i] - half, centres[i] + half]
        points = [(e, 0.0) if upright else (0.0, e) for e in ends]
        px = ax.transData.transform(points)[:, 0 if upright else 1]
        slot = Slot(i, upright, float(min(px)), float(max(px)))
        found.append((label, label.get_window_extent(renderer), slot))
    return found


def name_problems(ex: ContentionExplorer) -> list[str]:
    """Names missing, outside their bar's slot, or too close to a neighbour; one line each."""
    renderer = ex.figure.canvas.get_renderer()  # type: ignore[attr-defined]
    problems: list[str] = []
    panels = [(ex.ax_calls, ex.bars_calls), (ex.ax_time, ex.bars_time)]
    shown = [_names(ax, bars, renderer) for ax, bars in panels]
    every = list(range(len(STRATEGIES)))
    if not any(sorted(slot.index for *_, slot in names) == every for names in shown):
        problems.append("no panel names each strategy once")
    for names in shown:
        for label, box, slot in names:
            if not slot.holds(box):
                problems.append(
                    f"{label.get_text()!r} leaves its bar's slot ({slot.lo:.0f}-{slot.hi:.0f} px)"
                )
        for k, (a, a_box, _) in enumerate(names):
            for b, b_box, _ in names[k + 1 :]:
                same_row = min(a_box.y1, b_box.y1) - max(a_box.y0, b_box.y0) > 0
                gap = max(a_box.x0, b_box.x0) - min(a_box.x1, b_box.x1)
                space = _space_px(a, renderer)
                if same_row and gap < space:
                    problems.append(
                        f"{a.get_text()!r} and {b.get_text()!r} are {gap:.1f} px"
                        f" apart, less than a space ({space:.1f} px)"
                    )
    return problems


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_each_strategy_name_reads_as_its_own_label(lang: str, switch: bool) -> None:
    found: dict[str, list[str]] = {}
    with language(lang):
        ex = ContentionExplorer()
        defaults = ex.values
        for change in states(ContentionExplorer):
            if change:
                ex.set(**change)
            ex.png  # noqa: B018 - renders the setting as a page shows it
            ex.figure.draw_without_rendering()
            problems = name_problems(ex)
            if problems:
                found[", ".join(f"{k}={v!r}" for k, v in change.items()) or "defaults"] = problems
            if change:
                ex.set(**{k: defaults[k] for k in change})
    assert found == {}
