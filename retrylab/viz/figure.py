"""The Explorer base (sliders, readout, image), with the figure kit re-exported.

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
import time
import traceback
from collections import OrderedDict
from collections.abc import Mapping
from typing import Any, ClassVar

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..core._check import check_int
from .controls import (
    CONTROL_MIN_WIDTH,
    align_descriptions,
    choice_slider,
    explain_message,
    float_slider,
    int_slider,
    limit_note,
    options_of,
)
from .kit import (
    DPI,
    PALETTE,
    STATE_COLOURS,
    classroom,
    new_figure,
    show,
    style,
    to_png,
)
from .prefetch import Prefetcher, enabled, forced, key_of
from .render import (
    animated_artists,
    blit,
    canvas_png,
    finish_texts,
)

__all__ = [
    "DPI",
    "PALETTE",
    "STATE_COLOURS",
    "Explorer",
    "ExplorerError",
    "align_descriptions",
    "canvas_png",
    "choice_slider",
    "classroom",
    "float_slider",
    "int_slider",
    "new_figure",
    "show",
    "style",
    "to_png",
]

# -- the explorer ----------------------------------------------------------------


class ExplorerError(RuntimeError):
    """A callback failed with something other than a bad value (a bug, not a slider)."""


class Explorer:
    """Base of every slider explorer: controls -> compute -> draw -> PNG, readout, message.

    The parts, in the order they are stacked in :attr:`widget` (a VBox with CSS
    class ``retrylab-explorer``): the controls, in a grid of columns as many as
    the width allows (class ``retrylab-controls``); the readout
    (``ipywidgets.HTML``, class ``retrylab-readout``); the message
    (``ipywidgets.HTML``, class ``retrylab-message``, empty when all is well,
    the ValueError text on bad input, naming the slider that moved and the
    fix, see :meth:`explain`); the image; and an ``ipywidgets.Output`` (class
    ``retrylab-errors``) that shows the traceback of any other exception. The
    readout and the message sit above the image, so they stay on screen while
    a slider moves.

    Every change of a control's value runs :meth:`redraw` once, whether a
    person dragged the slider or :meth:`set` changed it. All controls of one
    explorer get the same description width (:func:`align_descriptions`), so
    their tracks line up.

    Redraws are cached by the controls' values (the last :attr:`cache_size`
    settings): stepping back to settings seen before reuses their result and
    PNG bytes (``draw`` still runs, so the artists match the image) and skips
    the computation and the Agg render.
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
    #: How many settings' results and PNGs to keep (0: no cache). A result can be
    #: large (a fleet's per-client table): lower it for those.
    cache_size: ClassVar[int] = 32
    #: Blit: draw the figure's static part once, then on every redraw restore it
    #: and draw only the artists ``setup`` marked ``set_animated(True)`` (in axes
    #: order, then z-order). The static part must not depend on the values (no
    #: axis limits or ticks that move); implies ``freeze_layout``.
    blit: ClassVar[bool] = False
    #: Compute the settings one key press away in a background process while the
    #: student looks (see :mod:`retrylab.viz.prefetch`; only in a live kernel).
    prefetch: ClassVar[bool] = False

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

    @classmethod
    def inactive_controls(cls, values: Mapping[str, Any]) -> set[str]:
        """The controls that cannot change anything at these values (default: none).

        They are shown greyed out (``disabled``), so a student does not move a
        slider that does nothing (the breaker's threshold while the breaker is
        off), and nothing is prefetched for them.
        """
        return set()

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
    def explain(cls, message: str, moved: str | None, values: Mapping[str, Any]) -> str:
        """The message shown for a ValueError ``message`` after control ``moved`` changed.

        See :func:`~retrylab.viz.controls.explain_message`; a subclass may say more.
        """
        return explain_message(message, moved, values)

    @classmethod
    def message_for(cls, moved: str | None = None, **values: Any) -> str:
        """The message after ``moved`` changed to these settings (others at their defaults);
        empty when they are fine. Browser tests compare the page with this.
        """
        merged = cls.default_values()
        _reject_unknown(values, merged)
        merged.update(values)
        try:
            cls.readout_text(cls.compute(**merged))
        except ValueError as exc:
            return cls.explain(str(exc), moved, merged)
        return ""

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
        self._moved: str | None = None
        self._moved_from: Any = None
        #: what a setting costs to compute and render here (s, a running mean)
        self._cost_s = 0.0
        self._cache: OrderedDict[tuple[tuple[str, Any], ...], tuple[Any, str, bytes]] = (
            OrderedDict())
        # room for the neighbours of two settings (a step and a step back)
        self._prefetcher = (Prefetcher(type(self), 4 * len(self.make_controls()) + 4)
                            if self.prefetch and enabled() else None)
        self._shown = False
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
                finish_texts(self.figure)  # language and text size, before the layout is frozen
                if self.freeze_layout or self.blit:
                    self.figure.canvas.draw()
                    self.figure.set_layout_engine("none")
            self._background: Any = None
            self._animated = animated_artists(self.figure) if self.blit else []
            self.image = widgets.Image(format="png")
            self.image.add_class("retrylab-image")
        self.readout_widget = widgets.HTML()
        self.readout_widget.add_class("retrylab-readout")
        self.message_widget = widgets.HTML()
        self.message_widget.add_class("retrylab-message")
        #: says when the control just moved is at an end of its range (a key press
        #: there changes nothing, and this says why)
        self.limit_widget = widgets.HTML()
        self.limit_widget.add_class("retrylab-limit")
        self.errors = widgets.Output()
        self.errors.add_class("retrylab-errors")
        for w in self.controls.values():
            w.layout.width = "auto"  # fill a grid cell
        grid = widgets.GridBox(list(self.controls.values()), layout=widgets.Layout(
            grid_template_columns=f"repeat(auto-fill, minmax({CONTROL_MIN_WIDTH}, 1fr))",
            grid_gap="0px 16px", width="100%"))
        grid.add_class("retrylab-controls")
        parts: list[Any] = [grid, self.limit_widget, self.readout_widget, self.message_widget]
        if self.image is not None:
            parts.append(self.image)
        parts.append(self.errors)
        self.widget = widgets.VBox(parts)
        self.widget.add_class("retrylab-explorer")
        self._defaults = {name: w.value for name, w in self.controls.items()}
        self._check_names(values)
        for name, value in values.items():
            self._assign(name, value)
        for w in self.controls.values():
            w.observe(self._on_change, names="value")
        self._grey_out()
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
        values = self.canonical(self.values)
        key = key_of(values)
        cached = self._cache.get(key)
        try:
            if cached is not None:
                self._cache.move_to_end(key)
                result, text, png = cached
                if self.figure is not None:
                    with classroom():
                        self.draw(result)  # the artists match the image; no render
            else:
                taken: tuple[bool, Any] = (False, None)
                if self._prefetcher is not None:
                    # wait for the worker about as long as computing it here would take
                    taken = self._prefetcher.take(key, 1.5 * self._cost_s)
                found, payload = taken
                if found:  # rendered in the worker: only move the artists here
                    result, text, png = payload
                    if self.figure is not None:
                        with classroom():
                            self.draw(result)
                        if png is None:  # a blitting explorer renders here
                            png = self._render()
                else:
                    started = time.perf_counter()
                    result = self.compute(**values)
                    text = self.readout_text(result)
                    png = b""
                    if self.figure is not None:
                        with classroom():
                            self.draw(result)
                        png = self._render()
                    took = time.perf_counter() - started
                    self._cost_s = took if self._cost_s == 0 else (self._cost_s + took) / 2
                if self.cache_size > 0:
                    self._cache[key] = (result, text, png)
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        except ValueError as exc:  # a bad value, or e.g. too many buckets to draw
            self._show_message(self.explain(str(exc), self._moved, values))
            return
        except Exception:
            self._show_error(traceback.format_exc())
            return
        self._readout = text
        self.readout_widget.value = (
            f'<div style="white-space:pre-wrap;font-size:1.1em;line-height:1.35">'
            f"{html.escape(text)}</div>")
        if self.image is not None:
            self._png = png
            self.image.value = png
        self._show_message("")
        self._error = ""
        self.errors.outputs = ()
        self.redraws += 1
        self._prefetch_around()

    def _prefetch_around(self) -> None:
        """Queue the settings one key press away: when on screen, or when forced."""
        if self._prefetcher is None or not (self._shown or forced()):
            return
        here = key_of(self.canonical(self.values))
        active = {n: w for n, w in self.controls.items() if not getattr(w, "disabled", False)}
        wanted: dict[Any, dict[str, Any]] = {}
        for v in Prefetcher.neighbour_settings(self.values, active, self._moved,
                                               self._moved_from):
            c = self.canonical(v)
            wanted.setdefault(key_of(c), c)
        wanted.pop(here, None)
        # the neighbours this explorer already holds are not computed again, so they
        # must stay in its cache until the next key press: keep them the newest (all
        # but the current setting's place, which comes last)
        held = [k for k in wanted if k in self._cache][:max(0, self.cache_size - 1)]
        for k in reversed(held):
            self._cache.move_to_end(k)
        if here in self._cache:
            self._cache.move_to_end(here)
        self._prefetcher.around(list(wanted.values()), set(held))

    def wait_prefetch(self, timeout: float = 120.0) -> None:
        """Wait until the settings one key press away are computed (no-op without prefetch)."""
        if self._prefetcher is not None:
            self._prefetcher.wait(timeout)

    # -- internals ---------------------------------------------------------------

    def _render(self) -> bytes:
        """The figure's PNG: a full render, or the static background plus the animated artists."""
        fig = self.figure
        assert fig is not None
        if not self.blit:
            return to_png(fig)
        with classroom():
            png, self._background = blit(fig, self._background, self._animated)
        return png

    def _on_change(self, change: Mapping[str, Any]) -> None:
        owner = change.get("owner")
        self._moved = next((n for n, w in self.controls.items() if w is owner), None)
        self._moved_from = change.get("old")
        note = limit_note(self._moved, owner) if self._moved is not None else ""
        self.limit_widget.value = (
            "" if not note else f'<span style="color:#555">{html.escape(note)}</span>')
        self._grey_out()
        self.redraw()

    def canonical(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` with each inactive control at its default: the same result, so one
        cache entry serves every value of a slider that can change nothing."""
        inactive = self.inactive_controls(values)
        return {n: self._defaults[n] if n in inactive else v for n, v in values.items()}

    def _grey_out(self) -> None:
        """Disable the controls that can change nothing now; enable the others."""
        inactive = self.inactive_controls(self.values)
        for name, w in self.controls.items():
            if hasattr(w, "disabled") and w.disabled != (name in inactive):
                w.disabled = name in inactive

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
        options = options_of(w)
        if options is not None:
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
        if not self._shown:
            self._shown = True
            self._prefetch_around()
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
