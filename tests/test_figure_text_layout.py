"""What a student sees: no text of a figure clipped by its edge or drawn over another.

Every default figure and every explorer at its defaults, in English and in
Turkish, is drawn; each text that is shown (titles, axis labels, the tick labels
inside the axes' range, legend entries, notes) is measured with
``Text.get_window_extent`` and must lie inside the figure and overlap no other
text. A translation longer than its English (Turkish often is) is what breaks
this, so both languages are checked.
"""

from __future__ import annotations

from collections.abc import Iterator

import pytest
from matplotlib.figure import Figure
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from test_explorer_base import _default_figures, _shown
from test_i18n import lesson_figures

from retrylab.i18n import language
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.explorer import Explorer

#: How far (px) two boxes may touch or a box may reach past the edge: antialiasing,
#: and the padding Matplotlib counts in a text's extent.
SLACK_PX = 1.5


def shown_texts(fig: Figure) -> list[Text]:
    """The texts a render of ``fig`` draws: tick labels only for ticks inside the axes'
    view interval (an axis also keeps ticks outside it, which are not drawn)."""
    ticks: set[int] = set()
    drawn: list[Text] = []
    for ax in fig.axes:
        for axis in (ax.xaxis, ax.yaxis):
            lo, hi = sorted(axis.get_view_interval())
            for tick in [*axis.get_major_ticks(), *axis.get_minor_ticks()]:
                for label in (tick.label1, tick.label2):
                    ticks.add(id(label))
                    if ax.axison and lo - 1e-9 <= tick.get_loc() <= hi + 1e-9 and _shown(label):
                        drawn.append(label)
    others = [t for t in fig.findobj(Text) if id(t) not in ticks and _shown(t)
              and t.get_text().strip()]
    return drawn + [t for t in others if not _in_hidden_legend(t)]


def _in_hidden_legend(t: Text) -> bool:
    """A legend text whose legend is not shown."""
    parent = t.axes.get_legend() if t.axes is not None else None
    return parent is not None and not parent.get_visible() and t in parent.get_texts()


def text_problems(fig: Figure) -> list[str]:
    """Texts of ``fig`` past its edge or over another text, one line each."""
    fig.canvas.draw()  # type: ignore[no-untyped-call]
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    edge = fig.bbox.padded(SLACK_PX)
    boxes = [(t, t.get_window_extent(renderer)) for t in shown_texts(fig)]
    found = []
    for t, box in boxes:
        if not edge.containsx(box.x0) or not edge.containsx(box.x1) or not (
                edge.containsy(box.y0) and edge.containsy(box.y1)):
            found.append(f"{t.get_text()!r} reaches past the figure's edge "
                         f"({_px(box)} in {_px(fig.bbox)})")
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1:]:
            if _overlap(box_a, box_b):
                found.append(f"{a.get_text()!r} ({_px(box_a)}) overlaps {b.get_text()!r} "
                             f"({_px(box_b)})")
    return found


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX
            and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX)


def _px(box: Bbox) -> str:
    return f"x {box.x0:.0f}-{box.x1:.0f}, y {box.y0:.0f}-{box.y1:.0f}"


def _figures() -> Iterator[tuple[str, Figure]]:
    yield from _default_figures()
    yield from lesson_figures()  # 06's compared fleets: the legend clipped both sides in Turkish
    for cls in explorer_classes():
        ex: Explorer = cls()
        if ex.figure is not None:
            yield cls.__name__, ex.figure


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_no_text_is_clipped_or_drawn_over_another(lang: str) -> None:
    with language(lang):
        problems = {name: text_problems(fig) for name, fig in _figures()}
    assert {k: v for k, v in problems.items() if v} == {}
