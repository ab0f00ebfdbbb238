"""The figure kit and the Explorer base: messages, errors, redraw counts, PNG bytes."""

from __future__ import annotations

import base64
from typing import Any

import pytest
from matplotlib.figure import Figure

from retrylab import State
from retrylab.core._check import check_int
from retrylab.viz.explorer import (
    PALETTE,
    STATE_COLOURS,
    Explorer,
    ExplorerError,
    align_descriptions,
    choice,
    int_slider,
    new_figure,
    style,
    to_png,
)


class Bars(Explorer):
    """Two bars: heights a and b; b must not be below a (like cap >= base)."""

    title = "two bars"
    figsize = (3.0, 2.0)

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {
            "a": int_slider("a", 2, 0, 10),
            "b": int_slider("b", 5, 0, 10),
            "mode": choice("mode", ("plain", "boom"), "plain"),
        }

    @classmethod
    def compute(cls, a: int, b: int, mode: str) -> tuple[int, int]:
        check_int("b", b, low=a)  # a range error with its name and bound as data
        if mode == "boom":
            raise KeyError("a bug, not a bad value")
        return a, b

    @classmethod
    def readout_text(cls, result: tuple[int, int]) -> str:
        return f"a={result[0]} b={result[1]} sum={sum(result)}"

    def setup(self, fig: Figure) -> None:
        ax = fig.add_subplot()
        self.bars = ax.bar([0, 1], [0, 0])
        ax.set_ylim(0, 10)

    def draw(self, result: tuple[int, int]) -> None:
        for bar, h in zip(self.bars, result, strict=True):
            bar.set_height(h)


class Words(Explorer):
    """A text-only explorer."""

    figsize = None

    @classmethod
    def make_controls(cls) -> dict[str, Any]:
        return {"n": int_slider("n", 1, 1, 3)}

    @classmethod
    def compute(cls, n: int) -> str:
        return "word " * n

    @classmethod
    def readout_text(cls, result: str) -> str:
        return result.strip()


def test_palette_is_okabe_ito_and_states_have_colours() -> None:
    assert PALETTE["orange"] == "#E69F00" and PALETTE["blue"] == "#0072B2"
    assert len(set(PALETTE.values())) == len(PALETTE)
    assert set(STATE_COLOURS) == {s.value for s in State}
    assert len(set(STATE_COLOURS.values())) == 3


def test_to_png_and_new_figure_leave_pyplot_empty() -> None:
    import matplotlib.pyplot as plt

    before = plt.get_fignums()
    fig = new_figure((2, 1))
    style(fig.add_subplot(), "t", "x (ms)", "y")
    png = to_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n"
    assert png == to_png(fig)  # reproducible bytes
    assert plt.get_fignums() == before


def test_first_render_readout_png_and_classes() -> None:
    ex = Bars()
    assert ex.readout == "a=2 b=5 sum=7" and ex.message == "" and ex.redraws == 1
    assert ex.png[:4] == b"\x89PNG" and ex.image.value == ex.png
    assert "retrylab-explorer" in ex.widget._dom_classes
    assert "retrylab-readout" in ex.readout_widget._dom_classes
    assert "retrylab-message" in ex.message_widget._dom_classes
    assert "retrylab-errors" in ex.errors._dom_classes
    assert "a=2 b=5 sum=7" in ex.readout_widget.value
    assert [w.description for w in ex.controls.values()] == ["a", "b", "mode"]
    assert ex.values == {"a": 2, "b": 5, "mode": "plain"}


def test_set_redraws_once_per_change() -> None:
    ex = Bars()
    first = ex.png
    ex.set(a=3)
    assert ex.redraws == 2 and ex.readout == "a=3 b=5 sum=8" and ex.png != first
    ex.set(a=4, b=9)
    assert ex.redraws == 4 and ex.readout == ex.readout_for(a=4, b=9)
    ex.set(a=4)  # no change, no redraw
    assert ex.redraws == 4


def test_bad_value_shows_message_keeps_image_and_fix_clears_it() -> None:
    ex = Bars()
    ex.set(b=7)
    good_png, good_readout = ex.png, ex.readout
    ex.set(a=9)  # b=7 < a=9: the message names a, the slider that moved
    assert ex.message == ("a=9 makes b=7 too small: b=7 is out of range: b must be an integer >= 9")
    assert "b must be an integer &gt;= 9" in ex.message_widget.value
    assert ex.png == good_png and ex.image.value == good_png
    assert ex.readout == good_readout and ex.redraws == 2
    ex.set(b=10)
    assert ex.message == "" and ex.message_widget.value == ""
    assert ex.readout == "a=9 b=10 sum=19" and ex.png != good_png and ex.redraws == 3


def test_other_errors_go_to_the_output_and_set_raises() -> None:
    ex = Bars()
    png = ex.png
    with pytest.raises(ExplorerError, match="KeyError"):
        ex.set(mode="boom")
    assert "KeyError: 'a bug, not a bad value'" in ex.error
    assert ex.errors.outputs[0]["name"] == "stderr"
    assert "KeyError" in ex.errors.outputs[0]["text"]
    assert ex.png == png and ex.message == ""
    ex.set(mode="plain")
    assert ex.error == "" and ex.errors.outputs == ()


def test_a_person_moving_a_slider_runs_the_same_callback() -> None:
    ex = Bars()
    ex.controls["b"].value = 8  # what the browser does
    assert ex.redraws == 2 and ex.readout == "a=2 b=8 sum=10"
    ex.controls["mode"].value = "boom"  # no exception escapes the callback...
    assert "KeyError" in ex.error  # ...but it is shown, not swallowed


def test_set_rejects_unknown_names_and_values_a_control_cannot_take() -> None:
    ex = Bars()
    with pytest.raises(ValueError, match="c=1 is out of range: the controls are a, b, mode"):
        ex.set(c=1)
    with pytest.raises(ValueError, match=r"a=11 is out of range: a must be an integer from 0"):
        ex.set(a=11)
    with pytest.raises(ValueError, match="mode='loud' is out of range"):
        ex.set(mode="loud")
    with pytest.raises(ValueError, match="the controls are"):
        Bars.readout_for(zz=1)
    assert ex.redraws == 1 and ex.values["a"] == 2


def test_readout_for_uses_defaults_for_the_rest() -> None:
    assert Bars.readout_for() == "a=2 b=5 sum=7"
    assert Bars.readout_for(b=6) == "a=2 b=6 sum=8"
    with pytest.raises(ValueError, match="b must be an integer >= 9"):
        Bars.readout_for(a=9)


def test_initial_values_and_a_bad_start_raise() -> None:
    assert Bars(a=1, b=1).readout == "a=1 b=1 sum=2"
    with pytest.raises(ValueError, match="b=1 is out of range"):
        Bars(a=3, b=1)


def test_text_only_explorer() -> None:
    ex = Words()
    assert ex.figure is None and ex.png == b"" and ex.readout == "word"
    ex.set(n=3)
    assert ex.readout == "word word word" and ex.redraws == 2
    bundle = ex._repr_mimebundle_()
    assert "image/png" not in bundle and "word word word" in bundle["text/plain"]


def test_mimebundle_has_widget_png_and_text() -> None:
    ex = Bars()
    bundle = ex._repr_mimebundle_()
    assert "application/vnd.jupyter.widget-view+json" in bundle
    assert base64.b64decode(bundle["image/png"]) == ex.png
    assert bundle["text/plain"] == "Bars (two bars): a=2 b=5 sum=7"


def test_check_messages_match_the_core_format() -> None:
    with pytest.raises(ValueError) as err:
        check_int("a", 11, low=0, high=10)
    ex = Bars()
    with pytest.raises(ValueError) as err2:
        ex.set(a=11)
    assert str(err.value) == str(err2.value)


def test_show_displays_a_png_without_pyplot(capsys: pytest.CaptureFixture[str]) -> None:
    import matplotlib.pyplot as plt

    from retrylab.viz.explorer import show

    before = plt.get_fignums()
    show(new_figure((2, 1)))
    assert capsys.readouterr().out.strip() == "<IPython.core.display.Image object>"
    assert plt.get_fignums() == before


class PickyDraw(Bars):
    """Computes fine but refuses to draw a=7 (like a histogram too wide to draw)."""

    def draw(self, result: tuple[int, int]) -> None:
        if result[0] == 7:
            raise ValueError("a=7 is out of range: too wide to draw")
        super().draw(result)


def test_a_value_error_while_drawing_is_a_message_too() -> None:
    ex = PickyDraw()
    png = ex.png
    ex.set(b=9)
    good = ex.png
    ex.set(a=7)
    assert ex.message == "a=7 is out of range: too wide to draw"
    assert ex.error == "" and ex.png == good != png and ex.readout == "a=2 b=9 sum=11"
    ex.set(a=6)
    assert ex.message == "" and ex.readout == "a=6 b=9 sum=15"


def test_controls_of_one_explorer_share_one_description_width() -> None:
    from retrylab.viz.controls import label_of
    from retrylab.viz.explorers import BackoffExplorer, DecisionExplorer
    from retrylab.viz.fleet import FleetExplorer

    widths = {}
    for cls in (Bars, Words, BackoffExplorer, DecisionExplorer):
        ex = cls()
        assert [w.description for w in ex.controls.values()] == [
            label_of(name) for name in ex.controls
        ]
        found = {
            getattr(w, "description_width", None) or w.style.description_width
            for w in ex.controls.values()
        }
        assert len(found) == 1
        widths[cls.__name__] = found.pop()
    assert widths == {
        "Bars": "6ch",
        "Words": "3ch",
        "BackoffExplorer": "11ch",
        "DecisionExplorer": "17ch",
    }
    fleet = FleetExplorer.make_controls()
    assert align_descriptions(fleet.values()) == "15ch"  # "cooldown (ms)" is the longest


def test_align_descriptions_leaves_each_control_its_own_style() -> None:
    a, b = int_slider("a", 1, 0, 3), int_slider("clients", 1, 0, 3)
    c = int_slider("c", 1, 0, 3)
    d = choice("jitter", ("none", "full"), "full")
    e = choice("growth", ("linear",), "linear")
    assert align_descriptions([a, b, d]) == "9ch"
    assert (a.description_width, b.description_width, c.description_width) == ("9ch", "9ch", "")
    assert d.style.description_width == "9ch" and e.style.description_width == "initial"
    assert align_descriptions([]) == "" and align_descriptions([object()]) == ""
