"""PNG bytes from an Agg canvas, fast: what every figure and explorer redraw ends with.

:func:`canvas_png` encodes what the canvas holds (after a full draw, or after
blitting: a restored background and a few artists drawn over it, see
:func:`blit`), as a 256-colour palette PNG at zlib level 1. Every canvas it hands out reuses the
glyphs of texts drawn before (:mod:`retrylab.viz.glyphs`): text is most of an Agg draw.
"""

from __future__ import annotations

import io
from typing import Any

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from matplotlib.text import Text
from PIL import Image

from .glyphs import remember_text
from .i18n import translate_figure

__all__ = ["MIN_FONT_PX", "PNG_COLOURS", "PNG_COMPRESS_LEVEL", "animated_artists", "blit",
           "canvas_png", "finish_texts"]

#: zlib level of every PNG: 1 favours speed (a slider redraw encodes one PNG).
PNG_COMPRESS_LEVEL = 1
#: Every PNG is a 256-colour palette image (Pillow's fast octree quantizer): for
#: flat-coloured figures it looks the same, encodes about 3x faster than RGBA
#: (9 against 32 ms for the breaker explorer's 1000 x 460 px) and is about a
#: third of the bytes, which the browser then receives and decodes sooner.
PNG_COLOURS = 256


#: The smallest text a figure shows, in pixels of its PNG: readable on a projector at
#: 1280 x 720, where JupyterLab shows the figures at their own size.
MIN_FONT_PX = 14


def finish_texts(fig: Figure) -> None:
    """Just before ``fig`` is drawn: its texts in the notebook's language, none too small.

    >>> fig = Figure((2, 1), dpi=100)
    >>> note = fig.text(0.5, 0.5, "x", fontsize=8)
    >>> finish_texts(fig)
    >>> round(note.get_fontsize() * fig.dpi / 72, 1)
    14.0
    """
    translate_figure(fig)
    floor = MIN_FONT_PX * 72 / fig.dpi
    for text in fig.findobj(Text):
        if float(text.get_fontsize()) < floor:
            text.set_fontsize(floor)


def _agg(fig: Figure) -> FigureCanvasAgg:
    """``fig``'s Agg canvas (made if it has none), remembering its texts' glyphs."""
    canvas = fig.canvas if isinstance(fig.canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)
    remember_text(canvas)
    return canvas


def canvas_png(fig: Figure) -> bytes:
    """The PNG bytes of what ``fig``'s Agg canvas holds now, without drawing it again.

    Use it after blitting (restoring a background and drawing some artists);
    the encoding is :func:`to_png`'s.

    >>> fig = Figure((2, 1), dpi=100)
    >>> canvas = FigureCanvasAgg(fig)
    >>> canvas.draw()
    >>> canvas_png(fig)[:8]
    b'\\x89PNG\\r\\n\\x1a\\n'

    """
    canvas = _agg(fig)
    size = canvas.get_width_height(physical=True)
    rgba = canvas.buffer_rgba()  # type: ignore[no-untyped-call]
    image = Image.frombuffer("RGBA", size, rgba, "raw", "RGBA", 0, 1)
    image = image.convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()


def animated_artists(fig: Figure) -> list[Any]:
    """The artists marked animated, in drawing order: figure-level first, then each Axes's
    by z-order (the order Agg would draw them in)."""
    def key(a: Any) -> float:
        return float(a.get_zorder())

    out = sorted((a for a in fig.get_children() if a.get_animated()), key=key)
    for ax in fig.axes:
        out += sorted((a for a in ax.get_children() if a.get_animated()), key=key)
    return out


def blit(fig: Figure, background: Any, animated: list[Any]) -> tuple[bytes, Any]:
    """Draw ``animated`` over the static ``background`` (drawn and saved if ``None``);
    return the PNG and the background to keep for the next redraw."""
    canvas = _agg(fig)
    finish_texts(fig)
    if background is None:
        canvas.draw()  # type: ignore[no-untyped-call]  # skips the animated artists
        background = canvas.copy_from_bbox(fig.bbox)  # type: ignore[no-untyped-call]
    else:
        canvas.restore_region(background)  # type: ignore[no-untyped-call]
    for artist in animated:
        if artist.get_visible():
            fig.draw_artist(artist)
    return canvas_png(fig), background
