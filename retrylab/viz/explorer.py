"""The Explorer base: controls -> compute -> draw (blitted) -> PNG, readout and message.

Every slider explorer in retrylab is one of these, so they all look and behave
alike, and every one is fast by construction: the figure's static part (axes,
ticks, labels, legend, titles) is drawn once, and a redraw only draws the few
artists that change over a saved background (Matplotlib's documented blitting:
``copy_from_bbox``, ``restore_region``, ``draw_artist``), then encodes the
canvas as a palette PNG (:mod:`retrylab.viz.png`), once the explorer is on a
page (displayed, or its ``png`` read: an explorer driven from code only renders
nothing). Text that changes goes in the HTML readout beside the image.

The blit API (what a subclass writes):

- ``make_controls()`` (classmethod): the named controls, built with
  :func:`int_slider`, :func:`float_slider` or :func:`choice`;
- ``compute(**values)`` (classmethod, pure): the numbers for those values;
  raise ``ValueError`` for a bad combination (the message is shown to the
  student and the image keeps its last good render);
- ``readout_text(result)`` (classmethod): the text beside the figure (every
  number that changes: totals, peaks, the state);
- ``setup(fig)`` (once): make the axes and every artist, with their final
  labels and fixed font sizes; mark the ones that change
  ``set_animated(True)``, or return them (the base marks them). Place the axes
  with ``margins`` (a class attribute, ``fig.subplots_adjust`` arguments: the
  layout is then fixed by construction; ``projector_margins`` changes some of them
  with the projector switch on) or leave the figure's constrained
  layout, which is computed once, right after ``setup``;
- ``draw(result)`` (every change): update the animated artists in place;
- optional ``level(result) -> hashable`` and ``apply_level(level)``: a limit
  that must follow the data is quantized to a few levels (e.g. the y range
  rounded up to 1000, 2000, 5000, 10000 ms); ``apply_level`` sets the static
  part for a level (limits, ticks) and the base keeps one saved background per
  level, drawn the first time the level is met.

The static part of a level must not depend on anything but the level, so an
image is the same bytes however its setting was reached. An explorer whose
``setup`` marks no artist animated is drawn in full every time (a text-only
explorer, ``figsize = None``, has no image).

>>> from retrylab.core._check import check_int
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
...         self.ax = fig.add_subplot()
...         self.bar = self.ax.bar([0], [0], color=look("mark", "plain").colour)[0]
...         return [self.bar]                    # the artist that changes
...     def level(self, result):
...         return 25 if result <= 25 else 100   # two y ranges, two backgrounds
...     def apply_level(self, level):
...         self.ax.set_ylim(0, level)
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
>>> ex.set(n=7); sorted(ex.backgrounds)  # 49 is past the first level
[25, 100]
>>> Square(n=7).png == ex.png          # a step or a fresh draw: the same bytes
True
>>> Square.readout_for(n=7)
'n squared = 49'
"""

from __future__ import annotations

import base64
import html
import time
import traceback
from collections import OrderedDict, deque
from collections.abc import Hashable, Iterable, Mapping, Sequence
from typing import Any, ClassVar

import ipywidgets as widgets
from matplotlib.figure import Figure

from ..i18n import N_, _
from .controls import (
    LIMIT_LINE_PX,
    ControlPanel,
    align_descriptions,
    choice,
    explain_message,
    float_slider,
    int_slider,
    reject_unknown,
    value_of,
)
from .kit import (
    DPI,
    DRAWN_SIZE_CSS,
    PALETTE,
    PROJECTOR_CSS,
    STATE_COLOURS,
    classroom,
    look,
    new_figure,
    projecting,
    show,
    style,
    to_png,
)
from .png import agg_canvas, canvas_png, fixed_palette
from .unchanged import same_figure_note

__all__ = [
    "DPI",
    "LIMIT_LINE_PX",
    "PALETTE",
    "STATE_COLOURS",
    "Explorer",
    "ExplorerError",
    "align_descriptions",
    "animated_artists",
    "canvas_png",
    "choice",
    "classroom",
    "float_slider",
    "int_slider",
    "new_figure",
    "quantize",
    "show",
    "style",
    "to_png",
]

# -- the explorer ----------------------------------------------------------------


def quantize(value: float, levels: Sequence[float]) -> Any:
    """The smallest of ``levels`` (ascending) at or above ``value``; the largest if none is:
    a limit that follows the data, in a few steps (one saved background each).

    >>> quantize(800, (1000, 2000, 5000)), quantize(2000, (1000, 2000, 5000)), quantize(9e9, (1, 2))
    (1000, 2000, 2)
    """
    return next((lv for lv in levels if value <= lv), levels[-1])


#: The level before any: the first redraw always applies its level.
_NO_LEVEL = object()


def animated_artists(fig: Figure) -> list[Any]:
    """The artists marked animated, in drawing order: figure-level first, then each Axes's
    by z-order (the order a full draw would draw them in)."""

    def key(a: Any) -> float:
        return float(a.get_zorder())

    out = sorted((a for a in fig.get_children() if a.get_animated()), key=key)
    for ax in fig.axes:
        out += sorted((a for a in ax.get_children() if a.get_animated()), key=key)
    return out


class ExplorerError(RuntimeError):
    """A callback failed with something other than a bad value (a bug, not a slider)."""


class Explorer:
    """Base of every slider explorer: controls -> compute -> draw -> PNG, readout, message.

    :attr:`widget` stacks, in a VBox of CSS class ``retrylab-explorer``: the
    :class:`~retrylab.viz.controls.ControlPanel` (the controls' grid, class
    ``retrylab-controls``, and the limit line, ``retrylab-limit``); the readout
    (``retrylab-readout``); the message (``retrylab-message``: empty when all is well,
    else the ValueError's text naming the slider that moved, see :meth:`explain`); the
    image; an ``ipywidgets.Output`` (``retrylab-errors``) with the traceback of any
    other exception. The readout and the message sit above the image, so they stay on
    screen while a slider moves.

    Every change of a control's value runs :meth:`redraw` once, whether a person
    dragged the slider or :meth:`set` changed it. Redraws are cached by the values
    (the last :attr:`cache_size` settings): a setting seen before reuses its result
    and PNG bytes (``draw`` still runs, so the artists match the image).
    """

    #: A short title for the text/plain representation (a catalogue text, translated there).
    title: ClassVar[str] = N_("explorer")
    #: Figure size in inches; ``None`` for a text-only explorer.
    figsize: ClassVar[tuple[float, float] | None] = (8.0, 4.5)
    #: Where the axes go (``Figure.subplots_adjust`` arguments): a layout fixed by
    #: construction. ``None``: the constrained layout, computed once after ``setup``.
    margins: ClassVar[Mapping[str, float] | None] = None
    #: The margins that replace :attr:`margins`' with the projector switch on
    #: (:func:`~retrylab.viz.kit.projector`): room for 18 px tick labels and axis labels.
    #: ``None``: :attr:`margins` in both modes.
    projector_margins: ClassVar[Mapping[str, float] | None] = None
    #: How many settings' results and PNGs to keep (0: no cache). A result can be
    #: large (a fleet's per-client table): lower it for those.
    cache_size: ClassVar[int] = 32
    #: Levels whose backgrounds are drawn when the image is first on a page (a few, fixed,
    #: each met often: the breaker's three states), so no key press pays for a full draw.
    known_levels: ClassVar[tuple[Hashable, ...]] = ()
    #: A control drawn at most at another's value, when the explorer has both: a base
    #: above the cap is computed as base = cap (every wait is the cap: what a capped
    #: backoff does), never refused, and the limit line says so
    #: (:meth:`ControlPanel.ceiling_note`).
    ceilings: ClassVar[Mapping[str, str]] = {"base": "cap"}

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
        off), and one cache entry serves all their values.
        """
        return set()

    def setup(self, fig: Figure) -> Iterable[Any] | None:
        """Make the axes and artists once; mark the changing ones animated, or return them."""
        return None

    def draw(self, result: Any) -> None:
        """Update the animated artists on :attr:`figure` for ``result`` (default: nothing)."""

    def level(self, result: Any) -> Hashable:
        """The static part ``result`` needs (quantized limits); default: one for all."""
        return None

    def apply_level(self, level: Any) -> None:
        """Set the static part for ``level`` (limits, ticks); default: nothing."""

    def unchanged_reason(self, moved: str, old: Any, values: Mapping[str, Any], result: Any) -> str:
        """Why moving ``moved`` from ``old`` to ``values[moved]`` drew the same image (a
        whole note from :mod:`retrylab.viz.unchanged`), or "" for the general note."""
        return ""

    # -- the package's own readout, without widgets ------------------------------------

    @classmethod
    def default_values(cls) -> dict[str, Any]:
        """The controls' starting values."""
        return {name: value_of(w) for name, w in cls.make_controls().items()}

    @classmethod
    def explain(cls, error: ValueError, moved: str | None, values: Mapping[str, Any]) -> str:
        """The message shown for ``error`` after control ``moved`` changed.

        See :func:`~retrylab.viz.controls.explain_message`; a subclass may say more.
        """
        return explain_message(error, moved, values)

    @classmethod
    def effective(
        cls,
        values: Mapping[str, Any],
        controls: Mapping[str, Any] | None = None,
        defaults: Mapping[str, Any] | None = None,
    ) -> dict[str, Any]:
        """The values the computation takes for the controls' ``values``: each inactive
        control at its default (one cache entry serves all its values) and each
        :attr:`ceilings` pair drawn as the ceiling allows (a base above the cap as the
        cap; never below the bounded slider's own minimum).

        >>> from retrylab.viz.explorers import BackoffExplorer
        >>> BackoffExplorer.effective({"base": 1800, "cap": 1000})
        {'base': 1000, 'cap': 1000}
        """
        controls = cls.make_controls() if controls is None else controls
        if defaults is None:
            defaults = {name: value_of(w) for name, w in controls.items()}
        out = dict(values)
        for name in cls.inactive_controls(values) & set(out):
            out[name] = defaults[name]
        for low, high in cls.ceilings.items():
            if low in out and high in out and out[low] > out[high]:
                floor = getattr(controls[low], "min", out[high])
                out[low] = max(out[high], floor)
                out[high] = max(out[high], out[low])
        return out

    @classmethod
    def message_for(cls, moved: str | None = None, **values: Any) -> str:
        """The message after ``moved`` changed to these settings (others at their defaults);
        empty when they are fine. Browser tests compare the page with this.
        """
        merged = cls._merged(values)
        try:
            cls.readout_text(cls.compute(**cls.effective(merged)))
        except ValueError as exc:
            return cls.explain(exc, moved, merged)
        return ""

    @classmethod
    def readout_for(cls, **values: Any) -> str:
        """The readout for these settings (others at their defaults), computed directly.

        Browser tests compare the page with this. Unknown names raise ValueError.
        """
        return cls.readout_text(cls.compute(**cls.effective(cls._merged(values))))

    @classmethod
    def _merged(cls, values: Mapping[str, Any]) -> dict[str, Any]:
        """``values`` over the defaults; an unknown name raises ValueError."""
        merged = cls.default_values()
        reject_unknown(values, merged)
        merged.update(values)
        return merged

    # -- building ------------------------------------------------------------

    def __init__(self, **values: Any) -> None:
        #: the controls, their number boxes and the limit line, in one panel
        self.panel = ControlPanel(self.make_controls())
        self.controls: dict[str, Any] = self.panel.controls
        self.number_boxes: dict[str, Any] = self.panel.number_boxes
        self.limit_widget: Any = self.panel.limit_widget
        self.redraws = 0
        #: the last redraws' times in ms, oldest first: (compute, draw + PNG, setting the
        #: widgets' values, which sends them to the page); a cache hit computes and
        #: renders nothing. Benchmarks read it from a live kernel.
        self.redraw_ms: deque[tuple[float, float, float]] = deque(maxlen=256)
        #: why the last move drew the same image ("" when it drew a new one)
        self.unchanged = ""
        self._cache: OrderedDict[tuple[tuple[str, Any], ...], tuple[Any, str, bytes]] = (
            OrderedDict()
        )
        self._readout = ""
        self._message = ""
        self._error = ""
        self._png = b""
        #: set once the image is looked at (:meth:`on_page`); until then a good redraw
        #: leaves its render pending: :meth:`on_page` renders the last good ``_result``
        self._looked = False
        self._result: Any = None
        self._key: tuple[tuple[str, Any], ...] = ()
        self.figure: Figure | None = None
        self.image: Any = None
        #: the saved background of each level met so far
        self.backgrounds: dict[Hashable, Any] = {}
        self._level: Hashable = _NO_LEVEL
        self._animated: list[Any] = []
        if self.figsize is not None:
            self.figure = new_figure(
                self.figsize, layout=None if self.margins is not None else "constrained"
            )
            agg_canvas(self.figure)
            if self.margins is not None:
                self.figure.subplots_adjust(**self.margins)
                if projecting() and self.projector_margins is not None:
                    self.figure.subplots_adjust(**self.projector_margins)
            with classroom():
                returned = self.setup(self.figure)
                for artist in returned or ():
                    artist.set_animated(True)
                self._animated = animated_artists(self.figure)
                if self.margins is None and self.figure.get_layout_engine() is not None:
                    self.figure.canvas.draw()  # the layout, once: then fixed
                    self.figure.set_layout_engine("none")
            self.image = widgets.Image(format="png")
            self.image.add_class("retrylab-image")
        self.readout_widget = widgets.HTML()
        self.readout_widget.add_class("retrylab-readout")
        self.message_widget = widgets.HTML()
        self.message_widget.add_class("retrylab-message")
        self.errors = widgets.Output()
        self.errors.add_class("retrylab-errors")
        parts: list[Any] = [
            self.panel.grid,
            self.limit_widget,
            self.readout_widget,
            self.message_widget,
        ]
        if self.image is not None:
            parts.append(self.image)
        parts.append(self.errors)
        if projecting():  # the projector switch: 18 px controls, images at drawn size
            parts.insert(0, widgets.HTML(f"<style>{PROJECTOR_CSS} {DRAWN_SIZE_CSS}</style>"))
        self._box = widgets.VBox(parts)
        self._box.add_class("retrylab-explorer")
        if projecting():
            self._box.add_class("retrylab-projector")
        self.panel.check(values)
        for name, value in values.items():
            self.panel.put(name, value)
        self.panel.observe(self._on_change)
        self._grey_out()
        self._show_limits()
        self.redraw()
        if self._error:
            raise ExplorerError(f"the first render of {type(self).__name__} failed:\n{self._error}")
        if self._message:
            raise ValueError(self._message)

    # -- reading ---------------------------------------------------------------

    @property
    def values(self) -> dict[str, Any]:
        """The controls' current values by name."""
        return self.panel.values

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
        """The current image bytes (empty for a text-only explorer). Reading them is
        looking at the image (:meth:`on_page`): from then on every redraw renders."""
        self.on_page()
        return self._png

    @property
    def widget(self) -> Any:
        """The explorer's widgets in one VBox (CSS class ``retrylab-explorer``). Taking it,
        to display it or put it in a box of one's own, puts the image on a page
        (:meth:`on_page`); displaying the explorer itself does the same."""
        self.on_page()
        return self._box

    # -- changing --------------------------------------------------------------

    def result_for(self, values: Mapping[str, Any]) -> Any:
        """:meth:`compute`'s result for ``values`` (the computed ones, as
        :meth:`effective` gives them): the cached result when this setting was drawn,
        else computed now. A view beside the explorer (a player) takes its numbers from
        here, so a slider move simulates once, not once for each."""
        cached = self._cache.get(self._cache_key(values))
        return cached[0] if cached is not None else self.compute(**values)

    @staticmethod
    def _cache_key(values: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        """Where a setting's result and PNG are kept in the cache (the computed values, in
        :meth:`effective`'s order)."""
        return tuple(values.items())

    def set(self, **values: Any) -> None:
        """Set controls by name, as a person would; each change redraws once.

        Controls are set in the order given; a value equal to the current one
        changes nothing and redraws nothing. A value the control cannot take
        (outside a slider's range, not among its options) raises ValueError
        before anything is set. If a redraw failed with anything other than a
        ValueError, the traceback is in :attr:`errors` and this raises
        :class:`ExplorerError`, so a notebook cell that calls it fails loudly.
        """
        self.panel.check(values)
        before = self.redraws
        failures: list[str] = []
        for name, value in values.items():
            self._error = ""
            self.panel.put(name, value)
            if self._error:
                failures.append(self._error)
        if failures:
            raise ExplorerError(
                f"{len(failures)} redraw(s) failed after "
                f"{self.redraws - before} good one(s):\n{failures[-1]}"
            )

    def redraw(self) -> None:
        """Compute, draw and render for the current values (the controls' callback)."""
        t0 = time.perf_counter()
        shown = self.values
        values = self.effective(shown, self.controls, self.panel.defaults)
        key = self._cache_key(values)
        cached = self._cache.get(key)
        t1 = t2 = t0
        try:
            if cached is not None:
                self._cache.move_to_end(key)
                result, text, png = cached
                if self.figure is not None:
                    with classroom():  # one rc context a redraw (each costs ~0.6 ms)
                        self._draw(result)  # the artists match the image; no render
                        if not png and self._looked:  # computed before it was on a page
                            png = self._render()
                            self._cache[key] = (result, text, png)
                t1 = t2 = time.perf_counter()
            else:
                result = self.compute(**values)
                text = self.readout_text(result)
                t1 = time.perf_counter()
                png = b""
                if self.figure is not None:
                    with classroom():
                        self._draw(result)
                        if self._looked:  # else the render waits until it is on a page
                            png = self._render()
                t2 = time.perf_counter()
                if self.cache_size > 0:
                    self._cache[key] = (result, text, png)
                    while len(self._cache) > self.cache_size:
                        self._cache.popitem(last=False)
        except ValueError as exc:  # a bad value, or e.g. too many buckets to draw
            self.unchanged = ""
            self._show_message(self.explain(exc, self.panel.moved, shown))
            return
        except Exception:
            self._show_error(traceback.format_exc())
            return
        self.unchanged = self._same_image_note(png, values, result)
        self._result, self._key = result, key
        self._readout = text
        self.readout_widget.value = (
            f'<div style="white-space:pre-wrap;font-size:1.1em;line-height:1.3">'
            f"{html.escape(text)}</div>"
        )
        if self.image is not None and png:
            self._png = png
            self.image.value = png
        self._show_message("")
        self._error = ""
        self.errors.outputs = ()
        self.redraws += 1
        t3 = time.perf_counter()
        self.redraw_ms.append(((t1 - t0) * 1000, (t2 - t1) * 1000, (t3 - t2) * 1000))

    def clear_cache(self) -> None:
        """Forget every cached redraw: the next setting is computed and rendered anew, as a
        setting never drawn before is (benchmarks time that). The saved backgrounds stay:
        they are part of the explorer by construction."""
        self._cache.clear()

    # -- internals ---------------------------------------------------------------

    def on_page(self) -> None:
        """The image is looked at from now on (the explorer displayed, its widget taken or
        its bytes read): draw the known levels' backgrounds and the pending render. Until
        then a redraw computes, draws the artists and sets the readout, but renders nothing."""
        if self._looked:
            return
        self._looked = True
        if self.figure is None:
            return
        self._draw_backgrounds(self.known_levels if self._animated else ())
        if not self.redraws:  # no good setting yet; off a page, every good one is pending
            return
        try:
            with classroom():
                self._draw(self._result)  # the last good setting's (a failed one drew part)
                png = self._render()
        except Exception:
            self._show_error(traceback.format_exc())
            return
        self._png = png
        self.image.value = png
        cached = self._cache.get(self._key)
        if cached is not None:
            self._cache[self._key] = (cached[0], cached[1], png)

    def _draw(self, result: Any) -> None:
        """The static part of ``result``'s level, then its artists updated in place (in
        :func:`classroom`: the caller's)."""
        level = self.level(result) if self._animated else None
        if level != self._level:
            self.apply_level(level)
            self._level = level
        self.draw(result)

    def _draw_backgrounds(self, levels: Iterable[Hashable]) -> None:
        """Draw and save the background of each of ``levels`` (the next redraw applies its
        own level again: :data:`_NO_LEVEL`)."""
        fig = self.figure
        assert fig is not None
        canvas = agg_canvas(fig)
        with classroom():
            for level in levels:
                if level in self.backgrounds:
                    continue
                self.apply_level(level)
                canvas.draw()  # type: ignore[no-untyped-call]  # skips the animated artists
                self.backgrounds[level] = canvas.copy_from_bbox(fig.bbox)  # type: ignore[no-untyped-call]
        self._level = _NO_LEVEL

    def _render(self) -> bytes:
        """The figure's PNG: the level's background restored, the animated artists drawn
        over it (a full draw for an explorer without animated artists); in :func:`classroom`."""
        fig = self.figure
        assert fig is not None
        if not self._animated:
            return to_png(fig)
        canvas = agg_canvas(fig)
        background = self.backgrounds.get(self._level)
        if background is None:
            canvas.draw()  # type: ignore[no-untyped-call]  # skips the animated artists
            background = canvas.copy_from_bbox(fig.bbox)  # type: ignore[no-untyped-call]
            self.backgrounds[self._level] = background
        else:
            canvas.restore_region(background)  # type: ignore[no-untyped-call]
        for artist in self._animated:
            if artist.get_visible():
                fig.draw_artist(artist)
        return canvas_png(fig, fixed_palette(tuple(PALETTE.values())))

    def _on_change(self, change: Mapping[str, Any]) -> None:
        self.panel.took(change)
        self._grey_out()
        self.redraw()
        self._show_limits()

    def _same_image_note(self, png: bytes, values: Mapping[str, Any], result: Any) -> str:
        """The note for a move that drew the bytes already on screen ("" otherwise): the
        page gets no new image, so without it the key press looks lost."""
        moved = self.panel.moved
        if self.image is None or moved is None or not self._png or png != self._png:
            return ""
        control = self.controls[moved]
        return self.unchanged_reason(
            moved, self.panel.old, self.values, result
        ) or same_figure_note(control.description or moved, value_of(control))

    def _show_limits(self) -> None:
        """The limit line (:meth:`ControlPanel.show_note`): a ceiling passed, else why the
        last move drew the same image (:attr:`unchanged`), then the sliders at an end."""
        ceiling = self.panel.ceiling_note(
            self.ceilings, self.effective(self.values, self.controls, self.panel.defaults)
        )
        moved_ceiling = ceiling and self.panel.moved in self._ceiling_names()
        self.panel.show_note(ceiling, "" if moved_ceiling else self.unchanged)

    @property
    def note(self) -> str:
        """The limit line's text, plain ("" when it is empty): a ceiling passed, why a move
        drew the same figure, the sliders at an end of their range."""
        return self.panel.note

    def _ceiling_names(self) -> frozenset[str]:
        return frozenset(name for pair in self.ceilings.items() for name in pair)

    def _grey_out(self) -> None:
        """Disable the controls that can change nothing now; enable the others."""
        self.panel.grey_out(self.inactive_controls(self.values))

    def _show_message(self, text: str) -> None:
        self._message = text
        self.message_widget.value = (
            ""
            if not text
            else f'<span style="color:{look("mark", "alarm").colour};font-weight:bold">'
            f"{html.escape(text)}</span>"
        )

    def _show_error(self, text: str) -> None:
        self._error = text
        self.errors.outputs = ({"output_type": "stream", "name": "stderr", "text": text},)

    # -- display -----------------------------------------------------------------

    def _repr_text(self) -> str:
        return f"{type(self).__name__} ({_(self.title)}): {self._readout}"

    def __repr__(self) -> str:
        return self._repr_text()

    def _repr_mimebundle_(self, **kwargs: Any) -> dict[str, Any]:
        """The live widget, plus a PNG and text so a viewer without a kernel shows a render."""
        bundle: dict[str, Any] = {}
        view = getattr(self.widget, "_repr_mimebundle_", None)  # on a page from now on
        if view is not None:
            bundle.update(view(**kwargs) or {})
        if self._png:
            bundle["image/png"] = base64.b64encode(self._png).decode("ascii")
        bundle["text/plain"] = self._repr_text()
        return bundle
