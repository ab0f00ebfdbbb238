"""What a student sees, at every explorer's defaults and at each slider's two ends, in
English and in Turkish, and in every static figure of the notebooks:

- no text runs past the figure's edge;
- no text's extent overlaps another text (tick labels, titles, legends, notes, an
  arrow's label) or a node of a diagram (a patch or a boxed text with gid ``"node"``,
  see :func:`retrylab.viz.kit.mark_node`);
- the figure is at most :data:`~retrylab.viz.kit.MAX_HEIGHT_IN` tall as shown (600 px:
  with its controls it fits a 1280 x 800 screen);
- every text is at least :data:`~retrylab.viz.kit.MIN_FONT_PX` px as shown in
  JupyterLab's 848 px column: a figure drawn wider than the column is scaled down, so
  its font px times ``min(1, 848 / width px)`` must reach the floor.

Extents are Matplotlib's own (``Text.get_window_extent`` with the canvas's renderer,
``Patch.get_window_extent``), measured after the explorer rendered its PNG. A translation
longer than its English (Turkish often is) is what breaks a layout, so both languages
are checked. Every failing state is listed at once, per explorer and language.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from _tools import load_test
from matplotlib.artist import Artist
from matplotlib.figure import Figure
from matplotlib.patches import Patch
from matplotlib.text import Text
from matplotlib.transforms import Bbox
from test_explorer_base import _default_figures, _shown

from retrylab.i18n import language
from retrylab.viz.catalog import explorer_classes
from retrylab.viz.controls import Switch, options_of
from retrylab.viz.explorer import Explorer
from retrylab.viz.kit import COLUMN_PX, DPI, MAX_HEIGHT_IN, MIN_FONT_PX, NODE_GID, shown_px
from retrylab.viz.range import FloatRange, IntRange

lesson_figures = load_test("test_i18n").lesson_figures  # tests/lessons/test_i18n.py

#: How far (px) two boxes may touch or a box may reach past the edge: antialiasing,
#: and the padding Matplotlib counts in a text's extent.
SLACK_PX = 1.5

CLASSES = [c for c in explorer_classes() if c.figsize is not None]


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
                    if (
                        ax.axison
                        and ax.get_visible()
                        and lo - 1e-9 <= tick.get_loc() <= hi + 1e-9
                        and _shown(label)
                    ):
                        drawn.append(label)
    others = [
        t
        for t in fig.findobj(Text)
        if id(t) not in ticks and _shown(t) and t.get_text().strip() and _ancestors_visible(t)
    ]
    return drawn + [t for t in others if not _in_hidden_legend(t)]


def _ancestors_visible(t: Text) -> bool:
    """False for a text in an Axes that is hidden."""
    return t.axes is None or t.axes.get_visible()


def _in_hidden_legend(t: Text) -> bool:
    """A legend text whose legend is not shown."""
    parent = t.axes.get_legend() if t.axes is not None else None
    return parent is not None and not parent.get_visible() and t in parent.get_texts()


def _extent(t: Text, renderer: Any) -> Bbox:
    """The text's extent, with its box (a node's, a note's background) if it has one."""
    box = t.get_window_extent(renderer)
    patch = t.get_bbox_patch()
    if patch is not None and patch.get_visible():
        box = Bbox.union([box, patch.get_window_extent(renderer)])
    return box


def _nodes(fig: Figure) -> list[Artist]:
    """The patches marked as a diagram's nodes (boxed texts are measured as texts)."""
    return [p for p in fig.findobj(Patch) if p.get_gid() == NODE_GID and p.get_visible()]


def text_problems(fig: Figure, min_px: float = MIN_FONT_PX) -> list[str]:
    """Texts of ``fig`` past its edge, over another text or a node, or smaller than
    ``min_px`` as shown in the column; one line each."""
    renderer = fig.canvas.get_renderer()  # type: ignore[attr-defined]
    edge = fig.bbox.padded(SLACK_PX)
    texts = shown_texts(fig)
    boxes = [(t, _extent(t, renderer)) for t in texts]
    found = []
    width = fig.bbox.width
    tall = fig.bbox.height * min(1.0, COLUMN_PX / width)
    if tall > MAX_HEIGHT_IN * DPI + 0.5:  # with its controls, off a 1280 x 800 screen
        found.append(
            f"the figure is {tall:.0f} px tall as shown, more than {MAX_HEIGHT_IN * DPI:.0f}"
        )
    for t, box in boxes:
        px = shown_px(float(t.get_fontsize()), fig.dpi, width)
        if px < min_px - 1e-6:
            found.append(
                f"{t.get_text()!r} is {px:.1f} px as shown in a {COLUMN_PX} px "
                f"column (figure {width:.0f} px wide)"
            )
        if not (
            edge.containsx(box.x0)
            and edge.containsx(box.x1)
            and edge.containsy(box.y0)
            and edge.containsy(box.y1)
        ):
            found.append(
                f"{t.get_text()!r} reaches past the figure's edge ({_px(box)} in {_px(fig.bbox)})"
            )
    # the same text in the same place is drawn twice but reads once (a tick of two axes)
    for i, (a, box_a) in enumerate(boxes):
        for b, box_b in boxes[i + 1 :]:
            if _overlap(box_a, box_b) and not (
                a.get_text() == b.get_text() and box_a.bounds == box_b.bounds
            ):
                found.append(
                    f"{a.get_text()!r} ({_px(box_a)}) overlaps {b.get_text()!r} ({_px(box_b)})"
                )
    for node in _nodes(fig):
        path = node.get_path().transformed(node.get_transform())  # type: ignore[attr-defined]
        for t, box in boxes:
            if t.get_gid() != NODE_GID and path.intersects_bbox(box.padded(-SLACK_PX), filled=True):
                found.append(f"{t.get_text()!r} ({_px(box)}) runs into a node")
    return found


def _overlap(a: Bbox, b: Bbox) -> bool:
    return (
        min(a.x1, b.x1) - max(a.x0, b.x0) > SLACK_PX
        and min(a.y1, b.y1) - max(a.y0, b.y0) > SLACK_PX
    )


def _px(box: Bbox) -> str:
    return f"x {box.x0:.0f}-{box.x1:.0f}, y {box.y0:.0f}-{box.y1:.0f}"


def control_ends(control: Any) -> list[Any]:
    """A control's two ends: a slider's minimum and maximum, a choice's first and last
    option, a switch's two words."""
    if isinstance(control, Switch):
        return list(control.words)
    if isinstance(control, (IntRange, FloatRange)):
        return [control.min, control.max]
    options = options_of(control)
    if options:
        return [options[0], options[-1]]
    if isinstance(control.value, bool):
        return [False, True]
    raise AssertionError(f"no ends known for {type(control).__name__}")


def states(cls: type[Explorer]) -> Iterator[dict[str, Any]]:
    """The defaults, then each control at each of its ends (the others at their defaults);
    a setting met twice is yielded once."""
    defaults = cls.default_values()
    seen = [defaults]
    yield {}
    for name, control in cls.make_controls().items():
        for end in control_ends(control):
            setting = {**defaults, name: end}
            if setting not in seen:
                seen.append(setting)
                yield {name: end}


def explorer_problems(cls: type[Explorer], min_px: float = MIN_FONT_PX) -> dict[str, list[str]]:
    """Every state's problems, by state (``"defaults"`` or ``"name=value"``), texts
    smaller than ``min_px`` as shown among them."""
    ex = cls()
    defaults = ex.values
    found: dict[str, list[str]] = {}
    for change in states(cls):
        if change:
            ex.set(**change)
        ex.png  # noqa: B018 - renders the setting as a page shows it
        # place what a saved background holds (a legend remade for a level): a draw
        # with no rendering, as Matplotlib offers to measure artists
        ex.figure.draw_without_rendering()
        problems = text_problems(ex.figure, min_px)
        key = ", ".join(f"{k}={v!r}" for k, v in change.items()) or "defaults"
        if problems:
            found[key] = problems
        if change:
            ex.set(**{k: defaults[k] for k in change})
    return found


@pytest.mark.parametrize("lang", ["en", "tr"])
@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
def test_explorer_text_is_legible_at_every_end(cls: type[Explorer], lang: str) -> None:
    with language(lang):
        problems = explorer_problems(cls)
    assert problems == {}


def _figures() -> Iterator[tuple[str, Figure]]:
    yield from _default_figures()
    yield from lesson_figures()  # 06's compared fleets: the legend clipped both sides in Turkish


@pytest.mark.parametrize("lang", ["en", "tr"])
def test_static_figure_text_is_legible(lang: str) -> None:
    problems = {}
    with language(lang):
        for name, fig in _figures():
            fig.draw_without_rendering()
            found = text_problems(fig)
            if found:
                problems[name] = found
    assert problems == {}
