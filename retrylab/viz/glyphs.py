"""Text drawn once: an explorer redraw reuses the rasterized glyphs of every text that has
not moved.

Use :func:`remember_text` on an Agg canvas before drawing it (``to_png`` and
``blit`` do). About two thirds of an explorer's Agg draw is text (tick labels,
titles, legends: 25-40 texts, 250 glyphs), and FreeType rasterizes each glyph
again at every draw, although with a frozen layout almost every text is the
same string at the same place as last time. Remembered, a redraw of the storm
explorer takes 25 ms instead of 45.

What is remembered is exactly what Agg's ``draw_text`` hands to the canvas:
the coverage bitmap of each glyph and where it goes. It is replayed with the
new call's graphics context (colour, alpha, clip), so the pixels are the same
bytes. The key holds everything the bitmaps depend on: the string, its font
properties and the rcParams that resolve them, the position (to the fraction
of a pixel), the angle, dpi, canvas height, hinting and anti-aliasing. Math
text, and anything ``draw_text`` hands over that is not a 2-D bitmap, is drawn
as before, never remembered. Matplotlib 3.10 (one bitmap per string) and 3.11
(one per glyph) are both tested pixel for pixel. Drawing is as thread-safe as
Matplotlib's own text drawing, which is not: draw a figure from one thread.

>>> from matplotlib.figure import Figure
>>> from matplotlib.backends.backend_agg import FigureCanvasAgg
>>> fig = Figure((2, 1), dpi=100)
>>> _ = fig.text(0.1, 0.5, "retry after 250 ms")
>>> canvas = FigureCanvasAgg(fig)
>>> remember_text(canvas)
>>> canvas.draw(); first = bytes(canvas.buffer_rgba())
>>> canvas.draw(); bytes(canvas.buffer_rgba()) == first
True
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Hashable, Iterator
from contextlib import contextmanager
from types import MethodType
from typing import Any

import numpy as np
from matplotlib import rcParams
from matplotlib.backends.backend_agg import FigureCanvasAgg, RendererAgg

__all__ = ["MAX_TEXTS", "afresh", "remember_text", "remembered"]

#: The most texts remembered (least recently drawn forgotten first): about 2 kB each,
#: so at most about 8 MB; every explorer's first render together holds about 180.
MAX_TEXTS = 4000

_RC_KEYS = ("font.family", "font.serif", "font.sans-serif", "font.monospace", "font.cursive",
            "font.fantasy", "font.style", "font.variant", "font.weight", "font.stretch",
            "text.hinting", "text.hinting_factor", "text.kerning_factor", "text.antialiased",
            "text.language")

Glyphs = tuple[tuple[Any, Any, Any, Any], ...]
_TEXTS: OrderedDict[Hashable, Glyphs] = OrderedDict()
_LOCK = threading.Lock()
_ORIGINAL: Any = RendererAgg.draw_text
_RC: Any = rcParams
#: False inside :func:`afresh`: every text rasterized again, nothing remembered.
_ON = [True]


@contextmanager
def afresh() -> Iterator[None]:
    """Draw every text afresh inside this block, as Matplotlib alone would (tests compare
    the pixels; the whole process is affected, so not for threads that draw)."""
    _ON.append(False)
    try:
        yield
    finally:
        _ON.pop()


def remembered() -> int:
    """How many texts are remembered now."""
    with _LOCK:
        return len(_TEXTS)


class _Recorder:
    """Stands in for the C++ renderer during one ``draw_text``: passes every call on and
    keeps a copy of each glyph bitmap drawn."""

    def __init__(self, inner: Any) -> None:
        self.inner = inner
        self.glyphs: list[tuple[Any, Any, Any, Any]] | None = []

    def draw_text_image(self, image: Any, x: Any, y: Any, angle: Any, gc: Any) -> None:
        if self.glyphs is not None:
            # Matplotlib 3.11 hands over each glyph's bitmap; older ones the font, whose
            # buffer is the whole string's bitmap (copied now: the font is reused)
            bitmap = np.array(image, dtype=np.uint8, copy=True)
            if bitmap.ndim == 2:
                self.glyphs.append((bitmap, x, y, angle))
            else:  # anything else: drawn, never remembered
                self.glyphs = None
        self.inner.draw_text_image(image, x, y, angle, gc)

    def __getattr__(self, name: str) -> Any:
        if name == "inner":  # not set yet (copying an instance): no recursion
            raise AttributeError(name)
        return getattr(self.inner, name)


def _key(renderer: RendererAgg, gc: Any, x: float, y: float, s: str, prop: Any,
         angle: float, mtext: Any) -> Hashable:
    features = language = None
    if mtext is not None:
        get_features = getattr(mtext, "get_fontfeatures", None)
        get_language = getattr(mtext, "get_language", None)
        features = None if get_features is None else get_features()
        language = None if get_language is None else get_language()
        if features is not None:
            features = tuple(features)
    rc = tuple(repr(_RC[k]) for k in _RC_KEYS if k in _RC)
    return (s, prop.copy(), rc, float(x), float(y), float(angle), renderer.dpi,
            renderer.height, bool(gc.get_antialiased()), features, language)


def _draw_text(self: RendererAgg, gc: Any, x: float, y: float, s: str, prop: Any,
               angle: float, ismath: Any = False, mtext: Any = None) -> None:
    if ismath or not _ON[-1]:
        _ORIGINAL(self, gc, x, y, s, prop, angle, ismath, mtext)
        return
    key = _key(self, gc, x, y, s, prop, angle, mtext)
    with _LOCK:
        glyphs = _TEXTS.get(key)
        if glyphs is not None:
            _TEXTS.move_to_end(key)
    if glyphs is not None:
        for image, gx, gy, gangle in glyphs:
            self._renderer.draw_text_image(image, gx, gy, gangle, gc)
        return
    inner = self._renderer
    recorder = _Recorder(inner)
    self._renderer = recorder
    try:
        _ORIGINAL(self, gc, x, y, s, prop, angle, ismath, mtext)
    finally:
        self._renderer = inner
    if recorder.glyphs is not None:
        with _LOCK:
            _TEXTS[key] = tuple(recorder.glyphs)
            while len(_TEXTS) > MAX_TEXTS:
                _TEXTS.popitem(last=False)


def remember_text(canvas: FigureCanvasAgg) -> None:
    """Make ``canvas``'s renderer reuse the glyphs of texts it has drawn before (this
    renderer only: other figures draw as Matplotlib does)."""
    renderer: Any = canvas.get_renderer()  # type: ignore[no-untyped-call]
    if "draw_text" not in vars(renderer):  # not yet: Matplotlib's method is the class's
        renderer.draw_text = MethodType(_draw_text, renderer)
