"""The PNG encoder: what an Agg canvas holds, as a small palette PNG, fast.

Every figure and every explorer redraw ends here: :func:`canvas_png` encodes
the canvas as it is (after a full draw, or after a blit: a restored background
and a few artists drawn over it) as a 256-colour palette PNG at zlib level 1.
For flat-coloured figures a palette looks the same as RGBA, encodes about 3x
faster (9 against 32 ms for a 1000 x 460 px figure) and is about a third of the
bytes, which the browser then receives and decodes sooner.

>>> from matplotlib.figure import Figure
>>> fig = Figure((2, 1), dpi=100)
>>> canvas = FigureCanvasAgg(fig)
>>> canvas.draw()
>>> canvas_png(fig)[:8]
b'\\x89PNG\\r\\n\\x1a\\n'
"""

from __future__ import annotations

import io

from matplotlib.backends.backend_agg import FigureCanvasAgg
from matplotlib.figure import Figure
from PIL import Image

__all__ = ["PNG_COLOURS", "PNG_COMPRESS_LEVEL", "agg_canvas", "canvas_png"]

#: zlib level of every PNG: 1 favours speed (a slider redraw encodes one PNG).
PNG_COMPRESS_LEVEL = 1
#: Every PNG is a palette image of this many colours (Pillow's fast octree quantizer).
PNG_COLOURS = 256


def agg_canvas(fig: Figure) -> FigureCanvasAgg:
    """``fig``'s Agg canvas (one is made if it has none)."""
    canvas = fig.canvas
    return canvas if isinstance(canvas, FigureCanvasAgg) else FigureCanvasAgg(fig)


def canvas_png(fig: Figure) -> bytes:
    """The PNG bytes of what ``fig``'s Agg canvas holds now, without drawing it again."""
    canvas = agg_canvas(fig)
    size = canvas.get_width_height(physical=True)
    rgba = canvas.buffer_rgba()  # type: ignore[no-untyped-call]
    image = Image.frombuffer("RGBA", size, rgba, "raw", "RGBA", 0, 1)
    image = image.convert("RGB").quantize(PNG_COLOURS, method=Image.Quantize.FASTOCTREE)
    buf = io.BytesIO()
    image.save(buf, format="png", compress_level=PNG_COMPRESS_LEVEL)
    return buf.getvalue()
