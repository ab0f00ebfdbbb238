"""Notebook 09's explorers: wiring, readouts computed without widgets, bad values."""

from __future__ import annotations

import pytest

from retrylab.sim.ratebreakers import breaker_outage
from retrylab.viz.beyond import (
    HedgingExplorer,
    MetastableExplorer,
    RateBreakerExplorer,
    ThrottleExplorer,
    breaker_comparison_figure,
    hedging_explorer,
    metastable_explorer,
    rate_breaker_explorer,
    throttle_explorer,
)
from retrylab.viz.kit import to_png

CASES = [
    (rate_breaker_explorer, RateBreakerExplorer, {"threshold": 5}),
    (hedging_explorer, HedgingExplorer, {"hedging_delay": 100}),
    (throttle_explorer, ThrottleExplorer, {"throttle": "adaptive"}),
    (metastable_explorer, MetastableExplorer, {"budget": "10%"}),
]


@pytest.mark.parametrize(("make", "cls", "change"), CASES)
def test_a_change_redraws_and_matches_the_direct_readout(make, cls, change) -> None:  # type: ignore[no-untyped-def]
    ex = make()
    first, text = ex.png, ex.readout
    ex.set(**change)
    assert ex.redraws == 2 and ex.png != first and ex.readout != text
    assert ex.readout == cls.readout_for(**change)
    assert ex.message == "" and ex.error == ""


def test_metastable_explorer_shows_the_recovery() -> None:
    assert "metastable" in MetastableExplorer.readout_for()
    assert "recovers" in MetastableExplorer.readout_for(budget="10%")
    assert "recovers" in MetastableExplorer.readout_for(timeout=3000)


def test_hedging_explorer_reads_between_sweep_points() -> None:
    ex = hedging_explorer(hedging_delay=40)
    assert ex.readout.startswith("delay 40 ms")


def test_unknown_budget_is_refused_with_its_name() -> None:
    with pytest.raises(ValueError, match="budget"):
        MetastableExplorer.compute(1000, 3, "lots", 3000, 0.8)


def test_the_static_comparison_figure_renders() -> None:
    runs = {k: breaker_outage(k, 50) for k in ("consecutive", "rate")}
    assert to_png(breaker_comparison_figure(runs))[:4] == b"\x89PNG"


@pytest.mark.parametrize(("make", "cls", "change"), CASES)
def test_every_slider_end_renders_without_a_message(make, cls, change) -> None:  # type: ignore[no-untyped-def]
    ex = make()
    for name, w in ex.controls.items():
        if hasattr(w, "min"):
            ends = [w.min, w.max]
        else:
            ends = [o[1] if isinstance(o, tuple) else o for o in w.options]
        for value in ends:
            ex.set(**{name: value})
            assert ex.message == "" and ex.error == "", (name, value, ex.message)
        ex.set(**{name: cls.default_values()[name]})
