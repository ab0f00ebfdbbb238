"""A key press that draws the same image says why (issue 20): ipywidgets sends nothing for
an unchanged PNG, so without a note on screen the press looks lost. The cases are the
ones the browser benchmark met (bench_browser_keys.py's "no new image" presses)."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from retrylab.i18n import set_language
from retrylab.viz.beyond import MetastableExplorer, ThrottleExplorer
from retrylab.viz.contention import ContentionExplorer
from retrylab.viz.explorer import Explorer
from retrylab.viz.fleet import FleetExplorer
from retrylab.viz.herd import HerdExplorer


@pytest.fixture(params=["en", "tr"])
def language(request: pytest.FixtureRequest) -> Iterator[str]:
    set_language(request.param)
    yield request.param
    set_language("en")


def _press(ex: Explorer, **values: object) -> bool:
    """Set ``values``; True if the image stayed the same bytes."""
    before = ex.png
    ex.set(**values)
    return ex.png == before


def test_a_cap_above_the_ceiling_says_no_wait_reaches_it(language: str) -> None:
    ex = HerdExplorer()  # retry 2: ceiling 800 ms, cap 5000
    assert _press(ex, cap=5100)
    expected = {
        "en": "cap 5100 ms is above every ceiling here, so no wait reaches it",
        "tr": "tavan 5100 ms buradaki her üst sınırın üzerinde",
    }[language]
    assert expected in ex.unchanged
    assert expected in ex.limit_widget.value  # on screen, in the limit line


def test_a_retry_past_the_cap_says_every_wait_is_capped(language: str) -> None:
    ex = HerdExplorer(base=350, factor=2.75, cap=5300, retry=4)  # ceiling 20 s > cap
    assert _press(ex, retry=5)
    assert (
        "every wait here is already at the cap (5300 ms)"
        if language == "en"
        else "zaten tavanda (5300 ms)"
    ) in ex.unchanged


def test_more_attempts_than_the_run_uses(language: str) -> None:
    ex = FleetExplorer(attempts=11)
    assert _press(ex, attempts=12)
    assert (
        "no client in this run makes more than 11 attempts"
        if language == "en"
        else "hiçbir istemci 11 denemeden fazlasını yapmıyor"
    ) in ex.unchanged


def test_a_move_that_draws_a_new_image_has_no_note() -> None:
    ex = HerdExplorer()
    ex.on_page()  # the note is for a page: off one, nothing is drawn to compare
    ex.set(cap=5100)
    assert ex.unchanged
    assert not _press(ex, retry=3)
    assert ex.unchanged == ""
    assert "the same figure" not in ex.limit_widget.value


def test_the_general_note_names_the_control_and_value() -> None:
    ex = HerdExplorer()
    ex.on_page()
    ex.set(cap=5100)
    # a control with no reason of its own gets the general note, naming it
    ex.panel.moved, ex.panel.old = "width", 200  # as if width had moved and drawn the same
    ex.redraw()
    assert ex.unchanged == (
        "the same figure: at these settings width (ms) 200 changes nothing the figure shows"
    )


@pytest.mark.parametrize(
    ("cls", "moved", "old", "values", "expected"),
    [
        (
            ContentionExplorer,
            "cap",
            2020,
            {"cap": 2030},
            "no wait in these runs reaches the cap, so cap 2030 ms changes nothing",
        ),
        (
            ThrottleExplorer,
            "k",
            2.0,
            {"k": 2.5, "throttle": "sre"},
            "the throttle rejects nothing at these settings",
        ),
        (
            MetastableExplorer,
            "retries",
            3,
            {"retries": 4},
            "no request in this run is retried more than 3 times, so allowing 4 changes nothing",
        ),
        (
            FleetExplorer,
            "cap",
            1050,
            {"cap": 1100},
            "the simulation moves in 10 ms steps, and cap (ms) 1100 gives every client",
        ),
    ],
)
def test_each_explorer_reason(
    cls: type[Explorer], moved: str, old: object, values: dict[str, object], expected: str
) -> None:
    ex = cls()
    merged = {**ex.values, **values}
    assert expected in ex.unchanged_reason(
        moved, old, merged, None if cls is not FleetExplorer else ex.compute(**merged)
    )


def test_the_throttles_k_is_greyed_out_unless_the_sre_throttle_uses_it() -> None:
    ex = ThrottleExplorer()
    assert not ex.controls["k"].disabled
    ex.set(throttle="adaptive")  # notebook 09's check cell: K then changes nothing
    assert ex.controls["k"].disabled


def test_a_float_value_is_written_as_its_slider_shows_it() -> None:
    from retrylab.viz.unchanged import same_figure_note

    assert same_figure_note("k", 3.5000000000000004).endswith(
        "k 3.5 changes nothing the figure shows"
    )
