"""The style kit: a colour-blind-safe palette, the classroom style, PNG rendering.

Every figure module of retrylab imports this (not the explorer base), so they
all look alike: Okabe-Ito colours, projector-sized text, one Agg canvas per
figure and no pyplot global state. Text sizes are set where each text is made,
never raised at render time: nothing smaller than :data:`MIN_FONT_PT` (14 px in
the PNG, readable on a projector at 1280 x 720); ``tests/viz/test_explorer_base.py`` checks
every explorer and figure.
"""

from __future__ import annotations

import io
import os
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Any, Literal, cast

import matplotlib
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from .png import PNG_COMPRESS_LEVEL, agg_canvas, canvas_png

__all__ = [
    "ALIASES",
    "CLASSROOM_RC",
    "COLUMN_PX",
    "CONCEPTS",
    "CYCLE",
    "DPI",
    "DRAWN_SIZE_CSS",
    "GROUND",
    "INK",
    "MAX_HEIGHT_IN",
    "MIN_FONT_PT",
    "MIN_FONT_PX",
    "NODE_GID",
    "PALETTE",
    "PROJECTOR_CSS",
    "PROJECTOR_MIN_PX",
    "SMALL_PT",
    "STATE_COLOURS",
    "WIDTH_IN",
    "Look",
    "backoff_look",
    "classroom",
    "images_at_drawn_size",
    "look",
    "new_figure",
    "projecting",
    "projector",
    "show",
    "shown_px",
    "style",
    "to_png",
]

#: Okabe & Ito's colour-blind-safe palette (2008), by name.
PALETTE: dict[str, str] = {
    "black": "#000000",
    "orange": "#E69F00",
    "sky": "#56B4E9",
    "green": "#009E73",
    "yellow": "#F0E442",
    "blue": "#0072B2",
    "vermillion": "#D55E00",
    "purple": "#CC79A7",
    "grey": "#999999",
}

#: The grounds things are drawn on, outside the concepts: the page, a light grey for
#: what has not started yet, and a pale vermillion for an outage's time.
GROUND: dict[str, str] = {
    "paper": "#FFFFFF",
    "pending": "#DDDDDD",
    "outage": "#FBE3D6",
}


@dataclass(frozen=True)
class Look:
    """How one concept is drawn in every figure: a colour of :data:`PALETTE` and a marker."""

    colour: str
    marker: str


#: The one visual language: each concept of the course, one colour and one marker in
#: every figure (Okabe-Ito, colour-blind safe). Kinds: ``strategy`` (how waits grow, no
#: jitter), ``jitter`` (a jittered exponential backoff, by its jitter), ``state`` (the
#: breaker's, by ``State`` value), ``outcome`` (what became of a request or client), the
#: policies compared (``breaker``, ``throttle``), and what a figure is made of (``load``,
#: ``latency``, ``write``, ``wait``, ``mark``).
#: A figure takes its colours from here (:func:`look`), never from a literal.
CONCEPTS: dict[str, dict[str, Look]] = {
    "strategy": {
        "none": Look(PALETTE["grey"], "v"),
        "fixed": Look(PALETTE["purple"], "P"),
        "linear": Look(PALETTE["sky"], "^"),
        "exponential": Look(PALETTE["vermillion"], "o"),
    },
    "jitter": {
        "full": Look(PALETTE["blue"], "s"),
        "equal": Look(PALETTE["orange"], "D"),
        "decorrelated": Look(PALETTE["green"], "h"),
        "proportional": Look(PALETTE["yellow"], "*"),
    },
    "state": {
        "closed": Look(PALETTE["green"], "o"),
        "open": Look(PALETTE["vermillion"], "X"),
        "half_open": Look(PALETTE["orange"], "D"),
    },
    "outcome": {
        "served": Look(PALETTE["green"], "o"),
        "given_up": Look(PALETTE["purple"], "v"),
        "failed": Look(PALETTE["vermillion"], "X"),
        "blocked": Look(PALETTE["grey"], "s"),
    },
    # what a load over time is made of (a fleet, a throttled fleet, a metastable server)
    "load": {
        "sent": Look(PALETTE["blue"], "s"),
        "retries": Look(PALETTE["orange"], "D"),
        "served": Look(PALETTE["green"], "o"),
        "waiting": Look(PALETTE["black"], "."),
    },
    # the two breakers of notebook 09, side by side
    "breaker": {
        "consecutive": Look(PALETTE["orange"], "D"),
        "rate": Look(PALETTE["blue"], "s"),
    },
    # a fleet offered with and without a client-side throttle
    "throttle": {
        "none": Look(PALETTE["vermillion"], "X"),
        "throttled": Look(PALETTE["blue"], "s"),
    },
    # hedged requests' latency
    "latency": {
        "p50": Look(PALETTE["green"], "o"),
        "p99": Look(PALETTE["blue"], "s"),
        "chosen": Look(PALETTE["vermillion"], "D"),
    },
    # what a lost acknowledgement does to writes
    "write": {
        "duplicates": Look(PALETTE["vermillion"], "X"),
        "unacknowledged": Look(PALETTE["orange"], "D"),
    },
    # one backoff's waits
    "wait": {
        "drawn": Look(PALETTE["blue"], "s"),
        "ceiling": Look(PALETTE["orange"], "D"),
        "range": Look(PALETTE["sky"], "|"),
        "retry_after": Look(PALETTE["vermillion"], "X"),
    },
    # marks that are no concept of the course: outlines, arrows, limits drawn in ink
    # (a cap, a capacity, now), references in grey (an outage's time, a baseline), plain
    # bars, and an alarm (a timeout, the service that takes the load, an error message)
    "mark": {
        "ink": Look(PALETTE["black"], "."),
        "reference": Look(PALETTE["grey"], "_"),
        "plain": Look(PALETTE["sky"], "|"),
        "alarm": Look(PALETTE["vermillion"], "X"),
    },
}
#: The ink of outlines, arrows and limits (:data:`CONCEPTS`' ``mark``), as one name.
INK = CONCEPTS["mark"]["ink"].colour
#: Other names the code gives a concept: a ``Backoff``'s growth ``constant`` is the
#: fixed strategy, jitter ``none`` the plain strategy.
ALIASES: dict[tuple[str, str], tuple[str, str]] = {
    ("strategy", "constant"): ("strategy", "fixed"),
    ("jitter", "none"): ("strategy", "exponential"),
    ("strategy", "half-open"): ("state", "half_open"),
    ("state", "half-open"): ("state", "half_open"),
    ("outcome", "given up"): ("outcome", "given_up"),
    ("outcome", "succeeded"): ("outcome", "served"),
}


def look(kind: str, name: str) -> Look:
    """The colour and marker of concept ``name`` of ``kind`` (see :data:`CONCEPTS`).

    >>> look("jitter", "full") == look("jitter", "full") and look("jitter", "full").colour
    '#0072B2'
    >>> look("jitter", "none") == look("strategy", "exponential")
    True
    >>> look("jitter", "purple")
    Traceback (most recent call last):
    ValueError: jitter='purple' is not a concept: one of full, equal, decorrelated, proportional
    """
    kind, name = ALIASES.get((kind, name), (kind, name))
    if kind not in CONCEPTS:
        raise ValueError(f"kind={kind!r} is not a kind of concept: one of {', '.join(CONCEPTS)}")
    if name not in CONCEPTS[kind]:
        raise ValueError(f"{kind}={name!r} is not a concept: one of {', '.join(CONCEPTS[kind])}")
    return CONCEPTS[kind][name]


def backoff_look(growth: str, jitter: str) -> Look:
    """A backoff's look: by its jitter if it has one, else by how its waits grow.

    >>> backoff_look("exponential", "full") == look("jitter", "full")
    True
    >>> backoff_look("constant", "none") == look("strategy", "fixed")
    True
    """
    return look("strategy", growth) if jitter == "none" else look("jitter", jitter)


#: The breaker's states: closed is healthy green, open the alarm vermillion,
#: half-open the in-between orange (keys are the ``State`` values).
STATE_COLOURS: dict[str, str] = {k: v.colour for k, v in CONCEPTS["state"].items()}

#: The order in which series take colours (black is kept for reference lines).
CYCLE: tuple[str, ...] = (
    "blue",
    "orange",
    "green",
    "vermillion",
    "purple",
    "sky",
    "yellow",
    "grey",
)

#: Fixed resolution of every PNG, so image bytes are reproducible run to run.
DPI = 100

#: The smallest text a figure shows, in pixels of its PNG: readable on a projector at
#: 1280 x 720, where JupyterLab shows the figures at their own size.
MIN_FONT_PX = 14
#: The width (px) of JupyterLab's notebook column at a 1280 px wide screen: a figure
#: drawn wider is scaled down to it, so its text is smaller as shown than as drawn.
COLUMN_PX = 848
#: The width (inches at :data:`DPI`) of every figure shown in the column: 840 px, just
#: inside :data:`COLUMN_PX`, so the column shows it at its drawn size (nothing is scaled
#: down, a 14 px text stays 14 px).
WIDTH_IN = 8.4
#: The tallest figure (inches): 600 px, a figure and its controls fit a 1280 x 800 screen.
MAX_HEIGHT_IN = 6.0
#: The gid of a diagram's node (a boxed text or a patch): no other text may touch it.
NODE_GID = "node"
#: The same floor in points at :data:`DPI` (10.08 pt): the size of the small texts
#: (notes, legends, bar labels); set where the text is made.
MIN_FONT_PT = MIN_FONT_PX * 72 / DPI
#: The size of a figure's small texts (legends, notes, per-bar labels): the floor.
SMALL_PT = MIN_FONT_PT


#: The smallest text (px, as shown) with the projector switch on (:func:`projector`): a
#: room reads a 1024 x 768 projector from its back row.
PROJECTOR_MIN_PX = 18
#: Is the projector switch on? Read from ``RETRYLAB_PROJECTOR`` (``1``: on) when the
#: package is imported; :func:`projector` sets it in one kernel.
_PROJECTING = [os.environ.get("RETRYLAB_PROJECTOR", "").strip() not in ("", "0")]
#: What the switch puts on the page (every explorer's box has it): control, readout and
#: note text at :data:`PROJECTOR_MIN_PX`; the images at their drawn size.
PROJECTOR_CSS = (
    ".retrylab-projector, .retrylab-projector .widget-label, "
    ".retrylab-projector .widget-label-basic, .retrylab-projector .widget-checkbox span, "
    ".retrylab-projector .retrylab-range-label, .retrylab-projector input, "
    ".retrylab-projector select, .retrylab-projector .widget-html-content, "
    # the grid too: its columns' least width is in ch, so they widen with the labels
    ".retrylab-projector .retrylab-controls "
    f"{{ font-size: {PROJECTOR_MIN_PX}px !important; }}"
    # a number box holds the widest value of its slider (120000: six digits) at 18 px;
    # the grid's columns make room for it (controls.NUMBER_BOX_WIDTH reads the variable)
    " .retrylab-projector { --jp-widgets-inline-height: 34px; --retrylab-number-width: 92px; }"
)


def projector(on: bool = True) -> None:
    """The projector switch: from now on, in this kernel, every figure is drawn so that its
    smallest text is :data:`PROJECTOR_MIN_PX` (18 px, was 14) at the same width and height
    in pixels (a figure is no taller than without it), and an explorer's controls, readout
    and notes are 18 px text. Call it before making the figures (re-run the cells after).

    JupyterLab shows a figure at its drawn size when the notebook column is at least
    840 px: at 1024 x 768, close the left sidebar (Ctrl+B). ``RETRYLAB_PROJECTOR=1`` in
    the kernel's environment turns it on at import.

    >>> projector(); fig = new_figure((8.4, 4.0)); fig.dpi, projecting()
    (130, True)
    >>> [int(v) for v in fig.bbox.size]  # the same pixels: 840 x 400
    [840, 400]
    >>> projector(False); new_figure((8.4, 4.0)).dpi
    100
    """
    _PROJECTING[0] = bool(on)


def projecting() -> bool:
    """True while the projector switch is on (:func:`projector`)."""
    return _PROJECTING[0]


def _drawn_dpi() -> int:
    """The dpi a new figure is drawn at: :data:`DPI`, or with the projector switch on the
    dpi that makes the smallest text (:data:`MIN_FONT_PT`) :data:`PROJECTOR_MIN_PX` px
    (rounded up to a multiple of 10, so the PNG's size is whole)."""
    if not projecting():
        return DPI
    need = PROJECTOR_MIN_PX * 72 / MIN_FONT_PT
    return int(-(-need // 10) * 10)


#: rcParams for a projector: larger text, light grid, Okabe-Ito colour cycle.
CLASSROOM_RC: dict[str, Any] = {
    "font.size": 12,
    "axes.titlesize": 14,
    "axes.labelsize": 12,
    "xtick.labelsize": 11,
    "ytick.labelsize": 11,
    "legend.fontsize": 11,
    "axes.grid": True,
    "grid.alpha": 0.3,
    "axes.spines.top": False,
    "axes.spines.right": False,
    "axes.prop_cycle": cycler(color=[PALETTE[c] for c in CYCLE]),
    "svg.hashsalt": "retrylab",
    # a fixed title height: no search for decorations above the axes on every draw
    "axes.titley": 1.0,
}


def shown_px(
    fontsize_pt: float, dpi: float, width_px: float, column_px: float = COLUMN_PX
) -> float:
    """How tall (px) a text of ``fontsize_pt`` is as shown in a column ``column_px``
    wide, in a figure ``width_px`` wide drawn at ``dpi`` (a wider figure is scaled down).

    >>> shown_px(11, 100, 1000)  # 15.3 px drawn, shown at 848/1000 of it
    12.955...
    >>> round(shown_px(11, 100, 800), 2)
    15.28
    """
    return fontsize_pt * dpi / 72 * min(1.0, column_px / width_px)


@contextmanager
def classroom() -> Iterator[None]:
    """Within this block, new artists get the classroom style (:data:`CLASSROOM_RC`).

    Use it around building a figure; :func:`new_figure` and :class:`~retrylab.viz.explorer.Explorer`
    already do.
    """
    with matplotlib.rc_context(cast(Any, CLASSROOM_RC)):
        yield


def style(
    ax: Axes, title: str | None = None, xlabel: str | None = None, ylabel: str | None = None
) -> Axes:
    """Give one Axes the classroom look: sizes, a light grid, no top/right spines.

    Use it on axes made outside :func:`classroom`, before plotting on them (it
    also sets the Okabe-Ito colour cycle); the labels are set if given.

    >>> ax = new_figure((4, 3)).add_subplot()
    >>> style(ax, "Waits", "retry", "wait (ms)").get_ylabel()
    'wait (ms)'
    """
    if title is not None:
        ax.set_title(title, fontsize=CLASSROOM_RC["axes.titlesize"])
    if xlabel is not None:
        ax.set_xlabel(xlabel, fontsize=CLASSROOM_RC["axes.labelsize"])
    if ylabel is not None:
        ax.set_ylabel(ylabel, fontsize=CLASSROOM_RC["axes.labelsize"])
    ax.tick_params(labelsize=CLASSROOM_RC["xtick.labelsize"])
    ax.set_prop_cycle(color=[PALETTE[c] for c in CYCLE])
    ax.grid(True, alpha=CLASSROOM_RC["grid.alpha"])
    ax.set_axisbelow(True)
    for side in ("top", "right"):
        ax.spines[side].set_visible(False)
    return ax


def new_figure(
    figsize: tuple[float, float] = (8.0, 4.5),
    *,
    layout: Literal["constrained"] | None = "constrained",
) -> Figure:
    """A Figure on its own Agg canvas, never registered with pyplot.

    Use it instead of ``plt.figure()``: nothing is kept in a global list, so
    nothing leaks into a notebook's outputs or memory. ``layout=None`` leaves
    the axes where ``fig.subplots_adjust`` puts them (an explorer's fixed layout).

    >>> new_figure((4, 3)).get_size_inches().tolist()
    [4.0, 3.0]
    """
    dpi = _drawn_dpi()  # the projector's: the same pixels, larger text
    if dpi != DPI:  # the inches of the same pixels (a hair over: Agg rounds down)
        figsize = (round(figsize[0] * DPI) / dpi + 1e-9, round(figsize[1] * DPI) / dpi + 1e-9)
    width, height = figsize
    with classroom():
        fig = Figure(figsize=(width, height), dpi=dpi, layout=layout)
    FigureCanvasAgg(fig)
    return fig


def to_png(fig: Figure, dpi: float | None = None) -> bytes:
    """Render ``fig`` to PNG bytes with Agg at a fixed dpi, the figure's own by default
    (no pyplot involved).

    >>> to_png(new_figure((2, 1)))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    canvas = agg_canvas(fig)
    buf = io.BytesIO()
    dpi = fig.dpi if dpi is None else dpi
    with classroom():
        if dpi == fig.dpi:  # the fast path: no savefig bookkeeping (~15 ms a render)
            canvas.draw()  # type: ignore[no-untyped-call]
            return canvas_png(fig)
        else:
            fig.savefig(
                buf,
                format="png",
                dpi=dpi,
                metadata={"Software": None},
                pil_kwargs={"compress_level": PNG_COMPRESS_LEVEL},
            )
    return buf.getvalue()


#: CSS that shows every explorer's image at its drawn size: a page whose explorer box
#: stretches its children (Voila's flex column) upscaled the 840 px PNGs to the page
#: width, soft and pushing the controls off screen; still scaled down to a narrower column.
DRAWN_SIZE_CSS = (
    ".retrylab-image { align-self: flex-start; width: auto !important; "
    "max-width: 100%; height: auto !important; }"
)


def images_at_drawn_size() -> None:
    """Put :data:`DRAWN_SIZE_CSS` on the page (a notebook cell's output; e.g. Voila's)."""
    from IPython.display import HTML, display

    display(HTML(f"<style>{DRAWN_SIZE_CSS}</style>"))  # type: ignore[no-untyped-call]


def show(fig: Figure) -> None:
    """Display ``fig`` in a notebook as a PNG (no pyplot, nothing left open).

    Use it for static figures: the cell output is the image (and the fixed
    text ``<IPython.core.display.Image object>``, which nbval compares).
    """
    from IPython.display import Image, display

    display(Image(data=to_png(fig), format="png"))  # type: ignore[no-untyped-call]
