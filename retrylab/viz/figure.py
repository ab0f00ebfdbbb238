"""The figure and widget kit: a colour-blind-safe palette, PNG rendering, and the Explorer base.

Use it for every figure and every slider explorer in retrylab, so they all look
and behave alike: Okabe-Ito colours, projector-sized text, one Figure per
explorer re-rendered to PNG bytes into an ``ipywidgets.Image`` (no flicker, no
figure leaking into a cell's outputs, no pyplot global state).

How to write an explorer: subclass :class:`Explorer` and supply

- ``make_controls()`` (classmethod): the named controls, built with
  :func:`int_slider`, :func:`float_slider` or :func:`choice_slider` so each
  slider's ``description`` is the parameter name;
- ``compute(**values)`` (classmethod, pure): the numbers for those values;
  raise ``ValueError`` for a bad combination (the message is shown to the
  student and the image keeps its last good render);
- ``readout_text(result)`` (classmethod): the plain text printed beside the
  figure;
- ``setup(fig)`` (once) and ``draw(result)`` (every change): make the axes and
  artists on the explorer's one Figure, then update them in place.

A class attribute ``figsize = None`` gives a text-only explorer (no image).

>>> class Square(Explorer):
...     title = "n squared"
...     figsize = (3.0, 2.0)
...     @classmethod
...     def make_controls(cls):
...         return {"n": int_slider("n", 3, 0, 10)}
...     @classmethod
...     def compute(cls, n):
...         return check_int("n", n, low=1) ** 2
...     @classmethod
...     def readout_text(cls, result):
...         return f"n squared = {result}"
...     def setup(self, fig):
...         ax = fig.add_subplot()
...         self.bar = ax.bar([0], [0], color=PALETTE["blue"])[0]
...         ax.set_ylim(0, 100)
...     def draw(self, result):
...         self.bar.set_height(result)
>>> ex = Square()
>>> ex.readout, ex.message, ex.redraws
('n squared = 9', '', 1)
>>> first = ex.png
>>> ex.set(n=4)
>>> ex.readout, ex.redraws, ex.png != first
('n squared = 16', 2, True)
>>> ex.set(n=0)                       # bad value: message, image and readout kept
>>> ex.message
'n=0 is out of range: n must be an integer >= 1'
>>> ex.readout, ex.redraws
('n squared = 16', 2)
>>> ex.set(n=5); ex.message            # fixing it clears the message
''
>>> Square.readout_for(n=7)
'n squared = 49'
"""

from __future__ import annotations

import base64
import html
import io
import traceback
from collections.abc import Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any, ClassVar, cast

import ipywidgets as widgets
import matplotlib
from cycler import cycler
from matplotlib.axes import Axes
from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure

from ..core._check import check_int

__all__ = [
    "DPI",
    "PALETTE",
    "STATE_COLOURS",
    "Explorer",
    "ExplorerError",
    "align_descriptions",
    "choice_slider",
    "classroom",
    "float_slider",
    "int_slider",
    "new_figure",
    "show",
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

#: The breaker's states: closed is healthy green, open the alarm vermillion,
#: half-open the in-between orange (keys are the ``State`` values).
STATE_COLOURS: dict[str, str] = {
    "closed": PALETTE["green"],
    "open": PALETTE["vermillion"],
    "half_open": PALETTE["orange"],
}

#: The order in which series take colours (black is kept for reference lines).
CYCLE: tuple[str, ...] = ("blue", "orange", "green", "vermillion", "purple", "sky",
                          "yellow", "grey")

#: Fixed resolution of every PNG, so image bytes are reproducible run to run.
DPI = 100

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
}


@contextmanager
def classroom() -> Iterator[None]:
    """Within this block, new artists get the classroom style (:data:`CLASSROOM_RC`).

    Use it around building a figure; :func:`new_figure` and :class:`Explorer`
    already do.
    """
    with matplotlib.rc_context(cast(Any, CLASSROOM_RC)):
        yield


def style(ax: Axes, title: str | None = None, xlabel: str | None = None,
          ylabel: str | None = None) -> Axes:
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


def new_figure(figsize: tuple[float, float] = (8.0, 4.5)) -> Figure:
    """A Figure on its own Agg canvas, never registered with pyplot.

    Use it instead of ``plt.figure()``: nothing is kept in a global list, so
    nothing leaks into a notebook's outputs or memory.

    >>> new_figure((4, 3)).get_size_inches().tolist()
    [4.0, 3.0]
    """
    with classroom():
        fig = Figure(figsize=figsize, dpi=DPI, layout="constrained")
    FigureCanvasAgg(fig)
    return fig


def to_png(fig: Figure, dpi: int = DPI) -> bytes:
    """Render ``fig`` to PNG bytes with Agg at a fixed dpi (no pyplot involved).

    >>> to_png(new_figure((2, 1)))[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'
    """
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    buf = io.BytesIO()
    with classroom():
        if dpi == fig.dpi:  # the fast path: no savefig bookkeeping (~15 ms a render)
            canvas.print_png(buf, metadata={"Software": None})  # type: ignore[no-untyped-call]
        else:
            fig.savefig(buf, format="png", dpi=dpi, metadata={"Software": None})
    return buf.getvalue()


def show(fig: Figure) -> None:
    """Display ``fig`` in a notebook as a PNG (no pyplot, nothing left open).

    Use it for static figures: the cell output is the image (and the fixed
    text ``<IPython.core.display.Image object>``, which nbval compares).
    """
    from IPython.display import Image, display

    display(Image(data=to_png(fig), format="png"))  # type: ignore[no-untyped-call]


# -- controls ------------------------------------------------------------------

_STYLE = {"description_width": "initial"}
_LAYOUT = {"width": "420px"}


def int_slider(name: str, value: int, low: int, high: int, step: int = 1, *,
               continuous_update: bool = True) -> Any:
    """An ``IntSlider`` whose description is the parameter name.

    >>> int_slider("clients", 24, 1, 1000).description
    'clients'
    """
    return widgets.IntSlider(value=value, min=low, max=high, step=step, description=name,
                             continuous_update=continuous_update, style=_STYLE,
                             layout=widgets.Layout(**_LAYOUT))


def float_slider(name: str, value: float, low: float, high: float, step: float = 0.1, *,
                 continuous_update: bool = True, readout_format: str = ".1f") -> Any:
    """A ``FloatSlider`` whose description is the parameter name.

    >>> float_slider("factor", 2.0, 1.0, 4.0).value
    2.0
    """
    return widgets.FloatSlider(value=value, min=low, max=high, step=step, description=name,
                               continuous_update=continuous_update, style=_STYLE,
                               readout_format=readout_format,
                               layout=widgets.Layout(**_LAYOUT))


def choice_slider(name: str, options: Sequence[Any], value: Any, *,
                  continuous_update: bool = True) -> Any:
    """A ``SelectionSlider`` for a categorical choice, so a keyboard moves it too.

    ``options`` may be values or ``(label, value)`` pairs.

    >>> choice_slider("jitter", ("none", "full"), "full").value
    'full'
    """
    return widgets.SelectionSlider(options=list(options), value=value, description=name,
                                   continuous_update=continuous_update, style=_STYLE,
                                   layout=widgets.Layout(**_LAYOUT))


def align_descriptions(controls: Iterable[Any]) -> str:
    """Give controls one description width, so their slider tracks start at the same x.

    Use it on the controls of one explorer (:class:`Explorer` does): the
    width is the longest description plus two characters, in CSS ``ch`` (the
    width of a "0", wider than the average lower-case letter), so no label is
    cut. Returns the width set ("" when no control has a description style).

    >>> controls = [int_slider("base", 200, 50, 2000),
    ...             choice_slider("idempotency_key", [("no", False), ("yes", True)], False)]
    >>> align_descriptions(controls), [c.style.description_width for c in controls]
    ('17ch', ['17ch', '17ch'])
    """
    described = [c for c in controls
                 if hasattr(getattr(c, "style", None), "description_width")]
    if not described:
        return ""
    width = f"{max(len(c.description or '') for c in described) + 2}ch"
    for c in described:
        c.style.description_width = width
    return width


# -- the explorer ----------------------------------------------------------------


class ExplorerError(RuntimeError):
    """A callback failed with something other than a bad value (a bug, not a slider)."""


class Explorer:
    """Base of every slider explorer: controls -> compute -> draw -> PNG, readout, message.

    The parts, in the order they are stacked in :attr:`widget` (a VBox with CSS
    class ``retrylab-explorer``): the controls; the image; the readout
    (``ipywidgets.HTML``, class ``retrylab-readout``); the message
    (``ipywidgets.HTML``, class ``retrylab-message``, empty when all is well,
    the ValueError text on bad input); and an ``ipywidgets.Output`` (class
    ``retrylab-errors``) that shows the traceback of any other exception.

    Every change of a control's value runs :meth:`redraw` once, whether a
    person dragged the slider or :meth:`set` changed it. All controls of one
    explorer get the same description width (:func:`align_descriptions`), so
    their tracks line up.
    """

    #: A short title for the text/plain representation.
    title: ClassVar[str] = "explorer"
    #: Figure size in inches; ``None`` for a text-only explorer.
    figsize: ClassVar[tuple[float, float] | None] = (8.0, 4.5)
    #: Lay the figure out once, right after :meth:`setup`, and keep that layout:
    #: a redraw then skips the constrained-layout pass (about a quarter of its
    #: time). ``setup`` should then leave the widest labels the figure will
    #: need (e.g. a y range up to the largest value a slider allows).
    freeze_layout: ClassVar[bool] = False

    # -- what a subclass supplies ------------------------------------------------

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        """The named controls with their default values."""
        raise NotImplementedError

    @classmethod
    def compute(cls, *args: Any, **values: Any) -> Any:
        """The pure computation from the controls' values (by name); raise ValueError
        for a bad combination. Subclasses name their parameters."""
        raise NotImplementedError

    @classmethod
    def readout_text(cls, result: Any) -> str:
        """The plain text printed beside the figure for ``result``."""
        raise NotImplementedError

    def setup(self, fig: Figure) -> None:
        """Make the axes and artists once (default: nothing)."""

    def draw(self, result: Any) -> None:
        """Update the artists on :attr:`figure` for ``result`` (default: nothing)."""

    # -- the package's own readout, without widgets ------------------------------------

    @classmethod
    def default_values(cls) -> dict[str, Any]:
        """The controls' starting values."""
        return {name: w.value for name, w in cls.make_controls().items()}

    @classmethod
    def readout_for(cls, **values: Any) -> str:
        """The readout for these settings (others at their defaults), computed directly.

        Browser tests compare the page with this. Unknown names raise ValueError.
        """
        merged = cls.default_values()
        _reject_unknown(values, merged)
        merged.update(values)
        return cls.readout_text(cls.compute(**merged))

    # -- building ------------------------------------------------------------

    def __init__(self, **values: Any) -> None:
        self.controls: dict[str, Any] = self.make_controls()
        align_descriptions(self.controls.values())
        self.redraws = 0
        self._readout = ""
        self._message = ""
        self._error = ""
        self._png = b""
        self.figure: Figure | None = None
        self.image: Any = None
        if self.figsize is not None:
            self.figure = new_figure(self.figsize)
            with classroom():
                self.setup(self.figure)
                if self.freeze_layout:
                    self.figure.canvas.draw()
                    self.figure.set_layout_engine("none")
            self.image = widgets.Image(format="png")
            self.image.add_class("retrylab-image")
        self.readout_widget = widgets.HTML()
        self.readout_widget.add_class("retrylab-readout")
        self.message_widget = widgets.HTML()
        self.message_widget.add_class("retrylab-message")
        self.errors = widgets.Output()
        self.errors.add_class("retrylab-errors")
        parts: list[Any] = [widgets.VBox(list(self.controls.values()))]
        if self.image is not None:
            parts.append(self.image)
        parts += [self.readout_widget, self.message_widget, self.errors]
        self.widget = widgets.VBox(parts)
        self.widget.add_class("retrylab-explorer")
        self._check_names(values)
        for name, value in values.items():
            self._assign(name, value)
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self.redraw()
        if self._error:
            raise ExplorerError(f"the first render of {type(self).__name__} failed:\n"
                                f"{self._error}")
        if self._message:
            raise ValueError(self._message)

    # -- reading ---------------------------------------------------------------

    @property
    def values(self) -> dict[str, Any]:
        """The controls' current values by name."""
        return {name: w.value for name, w in self.controls.items()}

    @property
    def readout(self) -> str:
        """The current readout, plain text (the last good render's)."""
        return self._readout

    @property
    def message(self) -> str:
        """The current message, plain text; empty when the values are fine."""
        return self._message

    @property
    def error(self) -> str:
        """The traceback of the last non-ValueError failure; empty after a good redraw."""
        return self._error

    @property
    def png(self) -> bytes:
        """The current image bytes (empty for a text-only explorer)."""
        return self._png

    # -- changing --------------------------------------------------------------

    def set(self, **values: Any) -> None:
        """Set controls by name, as a person would; each change redraws once.

        Controls are set in the order given; a value equal to the current one
        changes nothing and redraws nothing. A value the control cannot take
        (outside a slider's range, not among its options) raises ValueError
        before anything is set. If a redraw failed with anything other than a
        ValueError, the traceback is in :attr:`errors` and this raises
        :class:`ExplorerError`, so a notebook cell that calls it fails loudly.
        """
        self._check_names(values)
        for name, value in values.items():
            self._check_value(name, value)
        before = self.redraws
        failures: list[str] = []
        for name, value in values.items():
            self._error = ""
            self._assign(name, value)
            if self._error:
                failures.append(self._error)
        if failures:
            raise ExplorerError(f"{len(failures)} redraw(s) failed after "
                                f"{self.redraws - before} good one(s):\n{failures[-1]}")

    def redraw(self) -> None:
        """Compute, draw and render for the current values (the controls' callback)."""
        values = self.values
        try:
            result = self.compute(**values)
        except ValueError as exc:
            self._show_message(str(exc))
            return
        except Exception:
            self._show_error(traceback.format_exc())
            return
        try:
            text = self.readout_text(result)
            png = b""
            if self.figure is not None:
                with classroom():
                    self.draw(result)
                png = to_png(self.figure)
        except ValueError as exc:  # e.g. too many buckets to draw: still a bad value
            self._show_message(str(exc))
            return
        except Exception:
            self._show_error(traceback.format_exc())
            return
        self._readout = text
        self.readout_widget.value = (
            f'<span style="white-space:pre-wrap;font-size:1.1em">{html.escape(text)}</span>')
        if self.image is not None:
            self._png = png
            self.image.value = png
        self._show_message("")
        self._error = ""
        self.errors.outputs = ()
        self.redraws += 1

    # -- internals ---------------------------------------------------------------

    def _on_change(self, change: Mapping[str, Any]) -> None:
        self.redraw()

    def _show_message(self, text: str) -> None:
        self._message = text
        self.message_widget.value = (
            "" if not text else
            f'<span style="color:{PALETTE["vermillion"]};font-weight:bold">'
            f"{html.escape(text)}</span>")

    def _show_error(self, text: str) -> None:
        self._error = text
        self.errors.outputs = ({"output_type": "stream", "name": "stderr", "text": text},)

    def _check_names(self, values: Mapping[str, Any]) -> None:
        _reject_unknown(values, self.controls)

    def _check_value(self, name: str, value: Any) -> None:
        w = self.controls[name]
        if isinstance(w, widgets.SelectionSlider | widgets.Dropdown |
                      widgets.ToggleButtons | widgets.RadioButtons):
            options = [o[1] if isinstance(o, tuple) else o for o in w.options]
            if value not in options:
                raise ValueError(f"{name}={value!r} is out of range: {name} must be one of "
                                 + ", ".join(repr(o) for o in options))
        elif hasattr(w, "min") and hasattr(w, "max"):
            if isinstance(w, widgets.IntSlider | widgets.BoundedIntText):
                check_int(name, value, low=w.min, high=w.max)
            elif (isinstance(value, bool) or not isinstance(value, int | float)
                  or not w.min <= value <= w.max):
                raise ValueError(f"{name}={value!r} is out of range: {name} must be a "
                                 f"number from {w.min:g} to {w.max:g}")

    def _assign(self, name: str, value: Any) -> None:
        self._check_value(name, value)
        self.controls[name].value = value

    # -- display -----------------------------------------------------------------

    def _repr_text(self) -> str:
        return f"{type(self).__name__} ({self.title}): {self._readout}"

    def __repr__(self) -> str:
        return self._repr_text()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The live widget, plus a PNG and text so a viewer without a kernel shows a render."""
        bundle: dict[str, Any] = {}
        view = getattr(self.widget, "_repr_mimebundle_", None)
        if view is not None:
            bundle.update(view(**kwargs) or {})
        if self._png:
            bundle["image/png"] = base64.b64encode(self._png).decode("ascii")
        bundle["text/plain"] = self._repr_text()
        return bundle


def _reject_unknown(values: Mapping[str, Any], controls: Mapping[str, Any]) -> None:
    """Refuse a value for a control the explorer does not have."""
    unknown = sorted(set(values) - set(controls))
    if unknown:
        raise ValueError(f"{unknown[0]}={values[unknown[0]]!r} is out of range: "
                         f"the controls are {', '.join(controls)}")
