"""The breaker figures and explorer: the state diagram (closed, open, half-open) with
its arrows counted, the timeline of a trace on the logical clock, and
:class:`BreakerExplorer`, the lesson's nine events under threshold, cooldown and
step sliders.
"""

from __future__ import annotations

from collections.abc import Hashable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from matplotlib.axes import Axes
from matplotlib.collections import PolyCollection
from matplotlib.colors import to_rgba
from matplotlib.figure import Figure
from matplotlib.patches import FancyBboxPatch, Patch
from matplotlib.text import Text

from ..core._check import check_int
from ..core.breaker import CircuitBreaker, State, TraceRow, replay
from ..core.constants import BREAKER_EVENTS
from ..i18n import N_, _, ngettext
from .explorer import Explorer, int_slider
from .kit import (
    INK,
    NODE_GID,
    SMALL_PT,
    STATE_COLOURS,
    WIDTH_IN,
    look,
    new_figure,
    projecting,
    style,
)

# -- the breaker ------------------------------------------------------------------

#: Where each state's node sits, in axes fractions of a diagram about 800 x 290 px (the
#: breaker explorer's upper panel; :func:`breaker_diagram` draws the same shape).
NODE_XY: dict[State, tuple[float, float]] = {
    State.CLOSED: (0.15, 0.2),
    State.OPEN: (0.85, 0.2),
    State.HALF_OPEN: (0.5, 0.8),
}
NODE_TEXT = {
    State.CLOSED: N_("CLOSED\nall pass"),
    State.OPEN: N_("OPEN\nnone sent"),
    State.HALF_OPEN: N_("HALF-OPEN\none trial"),
}
#: The arrows: (source, target, curvature, generic label, where the label goes in axes
#: fractions, its alignment (ha, va)): each label beside its arrow, away from the nodes,
#: and at least 4 px clear of every arrow in both languages, with the projector switch
#: on or off (tests/viz/test_breaker_arrows.py).
ARROWS: tuple[tuple[State, State, float, str, tuple[float, float], tuple[str, str]], ...] = (
    (
        State.CLOSED,
        State.OPEN,
        0.0,
        N_("threshold failures in a row"),
        (0.5, 0.13),
        ("center", "top"),
    ),
    (State.OPEN, State.HALF_OPEN, 0.3, N_("cooldown over"), (0.80, 0.64), ("left", "center")),
    (State.HALF_OPEN, State.OPEN, 0.3, N_("trial failed"), (0.54, 0.42), ("right", "center")),
    (State.HALF_OPEN, State.CLOSED, 0.3, N_("trial succeeded"), (0.25, 0.76), ("right", "center")),
)
#: The node's box: rounded, padded around its text (so it is sized to the text).
NODE_BOX = "round,pad=0.55,rounding_size=0.8"
#: How a node not in the current state is drawn: its colour faded, a thin grey edge.
FADED = 0.3


def _times(n: int) -> str:
    return ngettext("({n} time)", "({n} times)", n).format(n=n)


def arrow_labels(
    counts: Mapping[tuple[State, State], int] | None = None,
    threshold: int | None = None,
    cooldown: int | None = None,
) -> dict[tuple[State, State], str]:
    """The text on each arrow of the state diagram, with counts if given.

    >>> cb = CircuitBreaker(3, 5000)
    >>> rows = replay(BREAKER_EVENTS, cb)
    >>> arrow_labels(cb.transition_counts(), 3, 5000)[(State.OPEN, State.HALF_OPEN)]
    'cooldown of\\n5000 ms over\\n(2 times)'
    """
    labels: dict[tuple[State, State], str] = {}
    for source, target, _rad, generic, _xy, _align in ARROWS:
        text = _(generic)
        if source is State.CLOSED and threshold is not None:
            text = _("{threshold} failures in a row").format(threshold=threshold)
        if source is State.OPEN and cooldown is not None:
            text = _("cooldown of\n{cooldown} ms over").format(cooldown=cooldown)
        if counts is not None:
            text += "\n" + _times(int(counts.get((source, target), 0)))
        labels[(source, target)] = text
    return labels


def _box(node: Text) -> FancyBboxPatch:
    """The box a node's text is drawn in."""
    box = node.get_bbox_patch()
    if box is None:
        raise ValueError(f"node {node.get_text()!r} has no box")
    return box


def style_nodes(
    nodes: Mapping[State, Text],
    arrows: Mapping[tuple[State, State], Any],
    current: State,
    moved: tuple[State, State] | None = None,
) -> None:
    """Make ``current`` stand out (its full colour, a heavy edge) and the arrow of the
    transition ``moved`` that led there (heavy, in the new state's colour)."""
    for state, node in nodes.items():
        now = state is current
        box = _box(node)
        colour = to_rgba(STATE_COLOURS[state.value], 1.0 if now else FADED)
        box.set_facecolor(colour)
        box.set_edgecolor(INK if now else look("mark", "reference").colour)
        box.set_linewidth(3.5 if now else 1.0)
        node.set_fontweight("bold" if now else "normal")
    for key, arrow in arrows.items():
        hot = key == moved
        arrow.arrow_patch.set_linewidth(4.0 if hot else 1.6)
        arrow.arrow_patch.set_color(STATE_COLOURS[key[1].value] if hot else INK)
        arrow.arrow_patch.set_mutation_scale(30 if hot else 20)


def draw_breaker_diagram(
    ax: Axes,
    counts: Mapping[tuple[State, State], int] | None = None,
    current: State = State.CLOSED,
    *,
    threshold: int | None = None,
    cooldown: int | None = None,
    moved: tuple[State, State] | None = None,
    fontsize: float = SMALL_PT,
) -> dict[tuple[State, State], Text]:
    """Draw the three states and their arrows on ``ax``; returns the arrow labels.

    Each node is its text in a rounded box (sized to the text in any language, a
    ``gid`` of :data:`~retrylab.viz.kit.NODE_GID`); each arrow runs from box edge to box
    edge and its label sits beside it. ``current`` stands out, and so does the arrow of
    the transition ``moved`` (the event that brought the breaker there), if given.
    """
    current = State(current)
    nodes: dict[State, Text] = {}
    for state, (x, y) in NODE_XY.items():
        nodes[state] = ax.text(
            x,
            y,
            _(NODE_TEXT[state]),
            transform=ax.transAxes,
            ha="center",
            va="center",
            fontsize=fontsize + 1,
            linespacing=1.3,
            gid=NODE_GID,
            zorder=4,
            bbox={"boxstyle": NODE_BOX},
        )
    labels = arrow_labels(counts, threshold, cooldown)
    texts: dict[tuple[State, State], Text] = {}
    arrows: dict[tuple[State, State], Any] = {}
    for source, target, rad, _generic, (lx, ly), (ha, va) in ARROWS:
        arrows[(source, target)] = ax.annotate(
            "",
            xy=(0.5, 0.5),
            xycoords=nodes[target],
            xytext=(0.5, 0.5),
            textcoords=nodes[source],
            zorder=5,
            arrowprops={
                "arrowstyle": "-|>",
                "connectionstyle": f"arc3,rad={rad}",
                "patchA": nodes[source].get_bbox_patch(),
                "patchB": nodes[target].get_bbox_patch(),
                "shrinkA": 3,
                "shrinkB": 3,
            },
        )
        texts[(source, target)] = ax.text(
            lx,
            ly,
            labels[(source, target)],
            transform=ax.transAxes,
            ha=ha,
            va=va,
            fontsize=fontsize,
            zorder=5,
        )
    # success in closed: a loop on the node's left side
    closed = _box(nodes[State.CLOSED])  # placed when the node is drawn
    ax.annotate(
        "",
        xy=(0, 0.3),
        xycoords=closed,
        xytext=(0, 0.7),
        textcoords=closed,
        zorder=5,
        arrowprops={
            "arrowstyle": "-|>",
            "connectionstyle": "arc3,rad=1.5",
            "color": INK,
            "linewidth": 1.4,
            "mutation_scale": 16,
            "shrinkA": 0,
            "shrinkB": 0,
        },
    )
    ax.annotate(  # just under the node's box, however large its text
        _("success resets\nthe failure count"),
        xy=(0.5, 0.0),
        xycoords=closed,
        xytext=(0, -4),
        textcoords="offset points",
        ha="center",
        va="top",
        fontsize=fontsize,
        zorder=5,
    )
    style_nodes(nodes, arrows, current, moved)
    ax.axis("off")
    ax.retrylab_nodes = nodes  # type: ignore[attr-defined]
    ax.retrylab_arrows = arrows  # type: ignore[attr-defined]
    return texts


def breaker_diagram(
    counts: Mapping[tuple[State, State], int] | None = None,
    current: State = State.CLOSED,
    *,
    threshold: int | None = None,
    cooldown: int | None = None,
    title: str | None = None,
) -> Figure:
    """The breaker's state diagram: three states, labelled arrows, the current one bold.

    Pass ``CircuitBreaker.transition_counts()`` to write on each arrow how often
    it was taken.

    >>> cb = CircuitBreaker(3, 5000)
    >>> rows = replay(BREAKER_EVENTS, cb)
    >>> fig = breaker_diagram(cb.transition_counts(), cb.state)
    >>> print(fig.retrylab_labels[(State.HALF_OPEN, State.OPEN)].get_text())
    trial failed
    (1 time)
    """
    fig = new_figure((WIDTH_IN, 4.2), layout=None)
    ax = fig.add_subplot()
    fig.subplots_adjust(left=0.01, right=0.99, top=0.9, bottom=0.14)
    texts = draw_breaker_diagram(ax, counts, current, threshold=threshold, cooldown=cooldown)
    ax.set_title(
        title
        or _("Circuit breaker: three states (current: {state})").format(
            state=_(State(current).value.replace("_", "-"))
        ),
        fontsize=14,
    )
    fig.retrylab_labels = texts  # type: ignore[attr-defined]
    return fig


def timeline_segments(
    rows: Sequence[TraceRow], cooldown: int, end: int | None = None
) -> list[tuple[int, int, State]]:
    """The breaker's state over logical time as ``(start, end, state)`` bands.

    Open lasts ``cooldown`` ms from the failure that opened it; after that the
    breaker would let a trial through, so the band turns half-open (the lesson's
    breaker only notices when the next request asks). ``end`` defaults to the
    last event plus 1000 ms.

    >>> from retrylab.lessons.outputs import breaker_trace
    >>> [(a, b, s.value) for a, b, s in timeline_segments(breaker_trace(), 5000)][:4]
    [(0, 600, 'closed'), (600, 5600, 'open'), (5600, 6000, 'half_open'), (6000, 11000, 'open')]
    """
    cooldown = check_int("cooldown", cooldown, low=0)
    if not rows:
        return [(0, 1000 if end is None else end, State.CLOSED)]
    stop = rows[-1].now + 1000 if end is None else end
    bands: list[tuple[int, int, State]] = []
    state, since, opened = State.CLOSED, 0, 0

    def close(t: int) -> None:
        if state is State.OPEN and opened + cooldown < t:
            turn = max(since, opened + cooldown)
            if turn > since:
                bands.append((since, turn, State.OPEN))
            bands.append((turn, t, State.HALF_OPEN))
        elif t > since:
            bands.append((since, t, state))

    for row in rows:
        if row.state_after is not state or (
            row.state_after is State.OPEN and row.state_before is not State.OPEN
        ):
            close(row.now)
            if row.state_after is State.OPEN and row.state_before is not State.OPEN:
                opened = row.now
            state, since = row.state_after, row.now
    close(max(stop, since))
    merged: list[tuple[int, int, State]] = []
    for a, b, s in bands:
        if merged and merged[-1][2] is s and merged[-1][1] == a:
            merged[-1] = (merged[-1][0], b, s)
        else:
            merged.append((a, b, s))
    return merged


LANES = {"succeeded": 2, "failed": 1, "blocked": 0}
#: How each kind of request is marked on the timeline: (marker, colour, label).
TIMELINE_KINDS = {
    kind: (look("outcome", kind).marker, look("outcome", kind).colour, label)
    for kind, label in (
        ("succeeded", N_("sent: succeeded")),
        ("failed", N_("sent: failed")),
        ("blocked", N_("blocked: not sent")),
    )
}


def draw_breaker_timeline(
    ax: Axes,
    rows: Sequence[TraceRow],
    cooldown: int,
    *,
    upto: int | None = None,
    end: int | None = None,
) -> None:
    """Draw state bands and request markers for ``rows[:upto]`` on ``ax``.

    The x range covers all ``rows`` so a step-through keeps a steady axis.
    """
    shown = list(rows if upto is None else rows[:upto])
    stop = (rows[-1].now + 1000 if rows else 1000) if end is None else end
    last = stop if upto is None else shown[-1].now if shown else 0
    for a, b, s in timeline_segments(shown, cooldown, end=last):
        ax.axvspan(a, b, color=STATE_COLOURS[s.value], alpha=0.28, linewidth=0)
    for kind, (marker, colour, label) in TIMELINE_KINDS.items():
        xs = [r.now for r in shown if _kind(r) == kind]
        ax.plot(
            xs,
            [LANES[kind]] * len(xs),
            linestyle="none",
            marker=marker,
            markersize=11,
            markerfacecolor=colour,
            markeredgecolor=INK,
            label=_(label),
            zorder=3,
        )
    for r in shown:
        if r.state_after is State.OPEN and r.state_before is not State.OPEN:
            ax.annotate(
                "",
                xy=(r.now + cooldown, 2.75),
                xytext=(r.now, 2.75),
                arrowprops={"arrowstyle": "<->", "color": INK},
            )
            ax.text(
                r.now + cooldown / 2,
                2.85,
                _("cooldown {cooldown} ms").format(cooldown=cooldown),
                ha="center",
                va="bottom",
                fontsize=SMALL_PT,
            )
    if shown and upto is not None:
        ax.axvline(shown[-1].now, color=INK, linewidth=1.5, linestyle=":")
    ax.set_xlim(-200, stop)
    ax.set_ylim(-0.6, 3.4)
    ax.set_yticks(list(LANES.values()), [_(lane) for lane in LANES])
    style(ax, None, _("logical time (ms)"), _("request"))
    handles: list[Any] = [
        Patch(color=STATE_COLOURS[s.value], alpha=0.4, label=_(s.value.replace("_", "-")))
        for s in State
    ]
    handles += ax.get_legend_handles_labels()[0]
    ax.legend(
        handles=handles,
        loc="upper center",
        bbox_to_anchor=(0.5, -0.2),
        ncols=3,
        frameon=False,
        fontsize=SMALL_PT,
        handletextpad=0.4,
        columnspacing=1.0,
    )


def _kind(row: TraceRow) -> str:
    if not row.allowed:
        return "blocked"
    return "succeeded" if row.success else "failed"


def breaker_timeline(
    rows: Sequence[TraceRow] | None = None,
    cooldown: int = 5000,
    *,
    threshold: int = 3,
    upto: int | None = None,
    title: str | None = None,
) -> Figure:
    """The breaker over logical time: state bands, requests sent, failed, blocked.

    Default: the lesson's nine events replayed with ``threshold`` and
    ``cooldown`` (3 and 5000 ms, the lesson's). ``upto`` shows only the first
    events, with a dotted line at the last one shown.

    >>> fig = breaker_timeline()
    >>> ax = fig.axes[0]
    >>> [len(line.get_xdata()) for line in ax.lines[:3]]      # succeeded, failed, blocked
    [2, 4, 3]
    """
    if rows is None:
        rows = replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown))
    fig = new_figure((WIDTH_IN, 4.0))
    ax = fig.add_subplot()
    draw_breaker_timeline(ax, rows, cooldown, upto=upto)
    shown = rows if upto is None else rows[:upto]
    sent = sum(r.allowed for r in shown)
    ax.set_title(
        title
        or _(
            "Breaker timeline (threshold {threshold}, cooldown {cooldown} "
            "ms): sent {sent}, blocked {blocked}"
        ).format(threshold=threshold, cooldown=cooldown, sent=sent, blocked=len(shown) - sent)
    )
    return fig


#: Where the breaker explorer's two panels go (``Figure.subplots_adjust``).
BREAKER_MARGINS: dict[str, float] = {
    "left": 0.13,
    "right": 0.98,
    "top": 0.99,
    "bottom": 0.215,
    "hspace": 0.1,
}
#: What the projector switch changes in them (:func:`~retrylab.viz.kit.projector`): room
#: for the 18 px lane names on the left, the time label above the legend, and the note
#: under the (larger) closed node above the timeline.
BREAKER_PROJECTOR_MARGINS: dict[str, float] = {"left": 0.155, "bottom": 0.25, "hspace": 0.22}


class BreakerPlot:
    """The state diagram above the timeline, for the breaker explorer, updated in place.

    Everything that does not depend on the settings (the axes, the arrows, the
    lanes, the legend) is drawn once; :meth:`update` only rewrites the labels and
    moves the bands, markers and cooldown arrows (an Axes ``clear()`` and rebuild
    cost about 100 ms a redraw); :meth:`show_state` restyles the nodes and the arrow
    of the last transition (the static part of a level). With ``animated=True`` the
    artists that change are marked animated, so an explorer can blit them over the
    static rest.

    >>> cb = CircuitBreaker(3, 5000)
    >>> rows = replay(BREAKER_EVENTS, cb)
    >>> plot = BreakerPlot(new_figure(BreakerExplorer.figsize, layout=None))
    >>> plot.update(rows, 5000, 3, 4, cb.transition_counts(), State.OPEN)
    >>> [len(m.get_xdata()) for m in plot.markers.values()]
    [0, 3, 1]
    """

    def __init__(self, fig: Figure, animated: bool = False) -> None:
        # with the projector's 18 px text the diagram's nodes are larger: more of the height
        large = projecting()
        ratios = [2.0, 1.0] if large else [1.45, 1.0]
        self.diagram, self.timeline = fig.subplots(2, 1, height_ratios=ratios)
        fig.subplots_adjust(**BREAKER_MARGINS)
        if large:
            fig.subplots_adjust(**BREAKER_PROJECTOR_MARGINS)
        box = self.diagram.get_position()  # the diagram takes the whole width
        self.diagram.set_position((0.01, box.y0, 0.98, box.height))
        self.labels = draw_breaker_diagram(self.diagram, fontsize=SMALL_PT)
        self.nodes: dict[State, Text] = getattr(self.diagram, "retrylab_nodes")  # noqa: B009
        self.arrows: dict[tuple[State, State], Any] = getattr(  # noqa: B009
            self.diagram, "retrylab_arrows"
        )
        ax = self.timeline
        self.bands = PolyCollection(
            [], transform=ax.get_xaxis_transform(), alpha=0.28, linewidths=0
        )
        ax.add_collection(self.bands)
        self.markers = {}
        for kind, (marker, colour, label) in TIMELINE_KINDS.items():
            self.markers[kind] = ax.plot(
                [],
                [],
                linestyle="none",
                marker=marker,
                markersize=11,
                markerfacecolor=colour,
                markeredgecolor=INK,
                label=_(label),
                zorder=3,
            )[0]
        self.now_line = ax.axvline(np.nan, color=INK, linewidth=1.5, linestyle=":")
        # one cooldown arrow per opening at most, one opening per event at most; the
        # first one named (the others are the same length)
        self.cooldowns: list[tuple[Any, Text]] = [
            (
                ax.annotate(
                    "",
                    xy=(0, 2.75),
                    xytext=(0, 2.75),
                    arrowprops={"arrowstyle": "<->", "color": INK},
                ),
                ax.text(0, 2.85, "", ha="center", va="bottom", fontsize=SMALL_PT),
            )
            for _ in BREAKER_EVENTS
        ]
        for arrow, note in self.cooldowns:
            arrow.set_visible(False)
            note.set_visible(False)
        ax.set_ylim(-0.6, 3.6)
        ax.set_yticks(list(LANES.values()), [_(lane) for lane in LANES])
        style(ax, None, _("logical time (ms)"), None)
        handles: list[Any] = [
            Patch(color=STATE_COLOURS[s.value], alpha=0.4, label=_(s.value.replace("_", "-")))
            for s in State
        ]
        handles += list(self.markers.values())
        ax.legend(  # at the figure's foot, whatever its height
            handles=handles,
            loc="lower center",
            bbox_to_anchor=(0.5, 0.0),
            bbox_transform=fig.transFigure,
            ncols=3,
            frameon=False,
            fontsize=SMALL_PT,
            handletextpad=0.4,
            columnspacing=1.0,
        )
        ax.set_xlim(-200, BREAKER_EVENTS[-1][0] + 1000 if BREAKER_EVENTS else 1000)
        if animated:
            moving: list[Any] = [
                *self.labels.values(),
                self.bands,
                *self.markers.values(),
                self.now_line,
            ]
            for arrow, note in self.cooldowns:
                moving += [arrow, note]
            for artist in moving:
                artist.set_animated(True)

    def show_state(self, current: State, moved: tuple[State, State] | None = None) -> None:
        """Mark ``current`` on the diagram, and the arrow of the transition ``moved`` that
        led there (the breaker explorer's static part, one saved background per pair)."""
        style_nodes(self.nodes, self.arrows, State(current), moved)

    def update(
        self,
        rows: Sequence[TraceRow],
        cooldown: int,
        threshold: int,
        upto: int,
        counts: Mapping[tuple[State, State], int],
        current: State,
    ) -> None:
        """Show the first ``upto`` rows: arrow labels, bands, markers (the nodes are
        :meth:`show_state`'s)."""
        moved = last_transition(rows, upto)
        for key, text in arrow_labels(counts, threshold, cooldown).items():
            self.labels[key].set_text(text)
            self.labels[key].set_fontweight("bold" if key == moved else "normal")
        shown = list(rows[:upto])
        stop = rows[-1].now + 1000 if rows else 1000
        last = shown[-1].now if shown else 0
        segments = timeline_segments(shown, cooldown, end=last)
        self.bands.set_verts([[(a, 0), (a, 1), (b, 1), (b, 0)] for a, b, _ in segments])
        self.bands.set_facecolor([STATE_COLOURS[s.value] for _, _, s in segments])
        for kind, line in self.markers.items():
            xs = [r.now for r in shown if _kind(r) == kind]
            line.set_data(xs, [LANES[kind]] * len(xs))
        opened = [
            r.now for r in shown if r.state_after is State.OPEN and r.state_before is not State.OPEN
        ]
        for i, (arrow, note) in enumerate(self.cooldowns):
            used = i < len(opened) and cooldown > 0
            arrow.set_visible(used)
            note.set_visible(used and i == 0)
            if used:
                arrow.xy = (opened[i] + cooldown, 2.75)
                arrow.set_position((opened[i], 2.75))  # the tail (xytext)
                note.set_position((opened[i] + cooldown / 2, 2.85))
                note.set_text(_("cooldown {cooldown} ms").format(cooldown=cooldown))
        self.now_line.set_xdata([shown[-1].now if shown else np.nan] * 2)
        if self.timeline.get_xlim()[1] != stop:  # another trace: a new static part
            self.timeline.set_xlim(-200, stop)


def last_transition(rows: Sequence[TraceRow], upto: int) -> tuple[State, State] | None:
    """The transition the ``upto``-th event made (``None`` if it kept the state, or
    before the first event).

    >>> rows = replay(BREAKER_EVENTS, CircuitBreaker(3, 5000))
    >>> [s.value for s in last_transition(rows, 3)]
    ['closed', 'open']
    >>> last_transition(rows, 1) is None
    True
    """
    if upto <= 0:
        return None
    row = rows[upto - 1]
    return None if row.state_before is row.state_after else (row.state_before, row.state_after)


# -- the breaker explorer ----------------------------------------------------------


@dataclass(frozen=True)
class BreakerRun:
    """The lesson's events replayed: every row, and the breaker after ``step`` of them."""

    threshold: int
    cooldown: int
    step: int
    rows: tuple[TraceRow, ...]
    counts: dict[tuple[State, State], int]
    state: State

    @property
    def sent(self) -> int:
        """Requests sent among the first ``step`` events."""
        return sum(r.allowed for r in self.rows[: self.step])

    @property
    def blocked(self) -> int:
        """Requests refused among the first ``step`` events."""
        return self.step - self.sent


class BreakerExplorer(Explorer):
    """The lesson's nine events through a breaker: threshold, cooldown, and a step slider.

    >>> BreakerExplorer.readout_for()
    'sent 1, blocked 0; state closed at 0 ms (event 1 of 9)'
    >>> BreakerExplorer.readout_for(threshold=4, step=9)
    'sent 7, blocked 2; state closed at 11800 ms (event 9 of 9)'
    >>> BreakerExplorer.readout_for(step=4)
    'sent 3, blocked 1; state open at 900 ms (event 4 of 9)'
    """

    title = N_("circuit breaker")
    figsize = (WIDTH_IN, 5.5)
    margins = BREAKER_MARGINS

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        n = len(BREAKER_EVENTS)
        return {
            "threshold": int_slider("threshold", 3, 1, 6),
            "cooldown": int_slider("cooldown", 5000, 0, 10000, 500),
            # the first event: the student steps the story forward
            "step": int_slider("step", 1, 0, n),
        }

    @classmethod
    def compute(cls, threshold: int, cooldown: int, step: int) -> BreakerRun:
        rows = tuple(replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown)))
        cb = CircuitBreaker(threshold, cooldown)
        replay(BREAKER_EVENTS[:step], cb)
        return BreakerRun(threshold, cooldown, step, rows, dict(cb.transition_counts()), cb.state)

    @classmethod
    def readout_text(cls, result: BreakerRun) -> str:
        if result.step == 0:
            return _("sent {sent}, blocked {blocked}; state {state} before the first event").format(
                sent=result.sent, blocked=result.blocked, state=_(result.state.value)
            )
        return _(
            "sent {sent}, blocked {blocked}; state {state} at {now} ms (event {step} of {events})"
        ).format(
            sent=result.sent,
            blocked=result.blocked,
            state=_(result.state.value),
            now=result.rows[result.step - 1].now,
            step=result.step,
            events=len(result.rows),
        )

    def setup(self, fig: Figure) -> None:
        self.plot = BreakerPlot(fig, animated=True)

    #: drawn when first shown: a step into a state only blits (each state, reached by
    #: an event that kept it or by each transition into it)
    known_levels = (*((s, None) for s in State), *((b, (a, b)) for a, b, *_rest in ARROWS))

    def level(self, result: BreakerRun) -> Hashable:
        # the diagram's nodes and the arrow of the last transition
        return result.state, last_transition(result.rows, result.step)

    def apply_level(self, level: tuple[State, tuple[State, State] | None]) -> None:
        self.plot.show_state(*level)

    def draw(self, result: BreakerRun) -> None:
        self.plot.update(
            result.rows, result.cooldown, result.threshold, result.step, result.counts, result.state
        )


def breaker_explorer(**values: Any) -> BreakerExplorer:
    """Sliders threshold, cooldown and step redrawing the state diagram and the timeline."""
    return BreakerExplorer(**values)
