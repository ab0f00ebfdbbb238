"""An explorer renders its image once it is on a page (issue 24: 02 and 06 each drive
explorers from code that no one displays, and their renders were a quarter of what a
kernel spent opening 02). Until then a redraw computes, draws and sets the readout; the
image, when it is looked at, is the bytes an explorer on a page from the start draws."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from matplotlib.figure import Figure

from retrylab.viz.breaker import BreakerExplorer
from retrylab.viz.explorer import Explorer, int_slider
from retrylab.viz.fleet import FleetExplorer
from retrylab.viz.herd import HerdExplorer


def _shown(ex: Explorer) -> Explorer:
    ex.on_page()
    return ex


def test_an_explorer_off_a_page_renders_nothing() -> None:
    ex = HerdExplorer()
    ex.set(clients=10_000)
    assert ex.readout == HerdExplorer.readout_for(clients=10_000)
    assert ex.image.value == b""  # nothing encoded, nothing sent
    assert ex.backgrounds == {}
    assert all(draw < 100 for _, draw, _ in ex.redraw_ms)  # drew the artists, no PNG


@pytest.mark.parametrize(
    "cls", [HerdExplorer, FleetExplorer, BreakerExplorer], ids=lambda c: c.__name__
)
def test_looking_later_gives_the_bytes_of_an_explorer_on_a_page_from_the_start(
    cls: type[Explorer],
) -> None:
    name, control = next((n, c) for n, c in cls.make_controls().items() if hasattr(c, "max"))
    later, early = cls(), _shown(cls())
    for ex in (later, early):
        ex.set(**{name: control.max})
    assert later.png == early.png and later.image.value == early.png
    assert set(later.backgrounds) >= set(cls.known_levels)
    later.set(**{name: control.value})  # back: rendered now that it is on a page
    assert later.image.value == _shown(cls()).png


class _Bar(Explorer):
    """A bar of height n; n = 9 is refused while being drawn, after its level was set."""

    figsize = (3.0, 2.0)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {"n": int_slider("n", 3, 0, 10)}

    @classmethod
    def compute(cls, n: int) -> int:
        return n

    @classmethod
    def readout_text(cls, result: int) -> str:
        return f"n = {result}"

    def setup(self, fig: Figure) -> list[Any]:
        self.ax = fig.add_subplot()
        self.bar = self.ax.bar([0], [0])[0]
        return [self.bar]

    def level(self, result: int) -> int:
        return 5 if result <= 5 else 10

    def apply_level(self, level: int) -> None:
        self.ax.set_ylim(0, level)

    def draw(self, result: int) -> None:
        self.bar.set_height(result)
        if result == 9:
            raise ValueError("n=9 is out of range: not drawn")


@pytest.mark.parametrize("on_page_first", [False, True])
def test_a_value_refused_while_drawn_keeps_the_last_good_image(on_page_first: bool) -> None:
    ex = _Bar()
    if on_page_first:
        ex.on_page()
    ex.set(n=4)
    ex.set(n=9)  # the level and the bar moved, then the draw refused
    assert ex.message == "n=9 is out of range: not drawn" and ex.readout == "n = 4"
    assert ex.png == _shown(_Bar(n=4)).png


def test_a_cached_setting_never_rendered_is_rendered_when_met_on_a_page() -> None:
    ex = HerdExplorer()
    ex.set(clients=10_000)
    ex.set(clients=24)  # the default again: both settings cached without an image
    ex.on_page()
    ex.set(clients=10_000)  # a cache hit whose PNG was never made
    assert ex.image.value == _shown(HerdExplorer(clients=10_000)).png
    ex.set(clients=24)
    assert ex.unchanged == ""  # a new image: no "same figure" note


def test_displaying_the_explorer_puts_it_on_a_page() -> None:
    ex = HerdExplorer()
    ex.set(clients=10_000)
    bundle = ex._repr_mimebundle_()  # what IPython's display calls
    assert base64.b64decode(bundle["image/png"]) == ex.image.value != b""
    assert "application/vnd.jupyter.widget-view+json" in bundle
    ex.set(clients=24)
    assert ex.image.value == _shown(HerdExplorer()).png


def test_taking_the_widget_puts_it_on_a_page() -> None:
    ex = HerdExplorer(clients=10_000)
    box = ex.widget  # to place it in a box of one's own
    assert ex.image in box.children and ex.image.value != b""
