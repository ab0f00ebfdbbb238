"""The four explorers: set values as a person would; the readout, image and message follow."""

from __future__ import annotations

import pytest

from retrylab.core.breaker import State
from retrylab.viz.explorers import (
    BackoffExplorer,
    BreakerExplorer,
    DecisionExplorer,
    HerdExplorer,
    backoff_explorer,
    breaker_explorer,
    decision_explorer,
    herd_explorer,
    outcome_for,
)


def test_backoff_explorer_defaults_and_slider_changes() -> None:
    ex = backoff_explorer()
    assert ex.readout == (
        "waits 70, 184, 592, 1402, 3120, 3309 ms; total 8677 ms (full jitter, seed 20260114)"
    )
    assert [w.description for w in ex.controls.values()] == [
        "base (ms)",
        "factor",
        "cap (ms)",
        "jitter",
        "growth",
        "retries",
    ]
    assert type(ex.controls["jitter"]).__name__ == "Dropdown"  # five options
    assert type(ex.controls["growth"]).__name__ == "Dropdown"  # three
    assert [v for _label, v in ex.controls["growth"].options] == [
        "constant",
        "linear",
        "exponential",
    ]
    png = ex.png
    ex.set(jitter="none", retries=4)
    assert ex.readout == "waits 200, 400, 800, 1600 ms; total 3000 ms (no jitter, seed 20260114)"
    assert ex.readout == BackoffExplorer.readout_for(jitter="none", retries=4)
    assert ex.png != png and ex.redraws == 3
    visible = [b.get_height() for b in ex.plot.bars if b.get_visible()]
    assert visible == [200, 400, 800, 1600]


def test_backoff_explorer_cap_below_base_draws_the_capped_waits_and_says_so() -> None:
    ex = backoff_explorer()
    ex.set(base=400)
    png = ex.png
    ex.set(cap=300)  # a state to show, not an error
    assert ex.message == "" and ex.error == ""
    assert ex.note.startswith("base (ms) 400 is above cap (ms) 300: every wait is capped at 300")
    assert ex.readout == BackoffExplorer.readout_for(base=300, cap=300)
    assert ex.readout == BackoffExplorer.readout_for(base=400, cap=300)
    assert ex.readout.startswith("waits ") and ex.png != png
    assert ex.png == backoff_explorer(base=300, cap=300).png
    ex.set(cap=4000)
    assert ex.message == "" and "above" not in ex.note
    assert ex.readout == BackoffExplorer.readout_for(base=400, cap=4000)


def test_backoff_explorer_growth_gives_the_mobile_lessons_strategies() -> None:
    ex = backoff_explorer(base=1000, cap=20000)
    first = ex.png
    assert ex.readout == BackoffExplorer.readout_for(base=1000, cap=20000)
    ex.set(growth="constant", jitter="none")
    assert ex.readout.startswith("waits 1000, 1000, 1000") and ex.png != first
    ex.set(cap=500)
    assert ex.message == "" and "every wait is capped at 500" in ex.note
    assert ex.readout.startswith("waits 500, 500")
    ex.set(cap=5000)
    assert ex.message == ""
    ex.set(growth="linear", jitter="proportional", retries=3)
    assert ex.readout == BackoffExplorer.readout_for(
        base=1000, growth="linear", jitter="proportional", retries=3, cap=5000
    )
    assert ex.readout == (
        "waits 850, 1918, 3718 ms; total 6486 ms (proportional jitter, seed 20260114)"
    )
    bands = [(b.get_y(), b.get_y() + b.get_height()) for b in ex.plot.bands if b.get_visible()]
    assert bands == [(500, 1500), (1000, 3000), (1500, 4500)]
    assert ex.plot.ceilings.get_label() == "ceiling: min(cap, base + step × n)"
    ex.set(growth="exponential", retries=4)
    assert ex.readout.startswith("waits 850, 1918, 4958, 5000 ms")  # 11012 capped


def test_backoff_explorer_decorrelated_caps_every_wait() -> None:
    ex = backoff_explorer(jitter="decorrelated", retries=12, cap=3000)
    waits = [int(w) for w in ex.readout.split(" ms;")[0][len("waits ") :].split(", ")]
    assert len(waits) == 12 and max(waits) <= 3000 and min(waits) >= 200


def test_herd_explorer_lesson_and_ten_thousand_clients() -> None:
    ex = herd_explorer()
    assert ex.readout == "peak 24 → 7 clients per 200 ms (0.29×)"
    assert [w.description for w in ex.controls.values()] == [
        "base (ms)",
        "factor",
        "cap (ms)",
        "jitter",
        "clients",
        "retry",
        "width (ms)",
    ]
    assert all(getattr(w, "continuous_update", True) for w in ex.controls.values())
    png = ex.png
    ex.set(clients=10000)
    assert ex.readout == HerdExplorer.readout_for(clients=10000)
    assert ex.readout.startswith("peak 10000 → ")
    assert ex.png != png
    steps = ex.plot.steps[1].get_data()
    assert int(steps.values.sum()) == 10000


def test_herd_explorer_width_and_jitter() -> None:
    ex = herd_explorer()
    ex.set(width=100)
    assert ex.readout == "peak 24 → 6 clients per 100 ms (0.25×)"
    ex.set(width=200, jitter="none")
    assert ex.readout == "peak 24 → 24 clients per 200 ms (1.00×)"


def test_dragging_base_past_the_cap_keeps_drawing_the_capped_waits() -> None:
    ex = backoff_explorer(cap=1000)
    assert ex.png
    for base in (950, 1000, 1200, 1500):  # a drag past the cap: every step draws
        ex.set(base=base)
        assert ex.message == "" and ex.readout == BackoffExplorer.readout_for(base=base, cap=1000)
    assert ex.note.startswith("base (ms) 1500 is above cap (ms) 1000")
    assert "the same figure" not in ex.note  # the ceiling says why, not the general note
    assert BackoffExplorer.message_for("base", base=1200, cap=1000) == ""
    herd = herd_explorer(cap=1000)
    herd.set(base=1050)
    assert herd.message == "" and "above cap (ms) 1000" in herd.note
    assert herd.readout == HerdExplorer.readout_for(base=1000, cap=1000)


def test_a_step_back_reuses_the_cached_render_and_keeps_the_artists_in_step() -> None:
    ex = backoff_explorer()
    first, title = ex.png, ex.plot.ax.get_title()
    ex.set(base=250)
    moved = ex.png
    ex.set(base=200)  # seen before: from the cache
    assert ex.png == first and ex.plot.ax.get_title() == title and ex.redraws == 3
    fresh = backoff_explorer(base=250)
    assert fresh.png == moved  # a cold render gives the same bytes
    ex.set(base=250)
    assert ex.png == moved and ex.plot.ax.get_title() == fresh.plot.ax.get_title()


def test_herd_explorer_bad_cap_then_fix() -> None:
    ex = herd_explorer()
    png = ex.png
    ex.set(cap=100)
    assert ex.message == "" and "every wait is capped at 100" in ex.note
    assert ex.png != png and ex.readout == HerdExplorer.readout_for(base=100, cap=100)
    ex.set(cap=1000)
    assert ex.message == ""
    assert ex.readout == HerdExplorer.readout_for(cap=1000)


def test_breaker_explorer_lesson_defaults_and_step_through() -> None:
    assert breaker_explorer().readout == (  # it opens at the first event
        "sent 1, blocked 0; state closed at 0 ms (event 1 of 9)"
    )
    ex = breaker_explorer(step=9)
    assert ex.readout == "sent 6, blocked 3; state closed at 11800 ms (event 9 of 9)"
    png = ex.png
    seen = []
    for step in range(10):
        ex.set(step=step)
        seen.append(ex.readout.split(";")[1].split(" at ")[0].split(" before")[0].strip())
    assert seen == [
        "state closed",
        "state closed",
        "state closed",
        "state open",
        "state open",
        "state open",
        "state open",
        "state open",
        "state closed",
        "state closed",
    ]
    ex.set(step=6)
    assert ex.readout == "sent 4, blocked 2; state open at 6000 ms (event 6 of 9)"
    assert ex.readout == BreakerExplorer.readout_for(step=6)
    assert ex.png != png
    ex.set(step=3)  # the third failure opened it: that arrow stands out
    arrows = ex.plot.arrows
    hot = arrows[(State.CLOSED, State.OPEN)].arrow_patch.get_linewidth()
    assert hot > 2 * arrows[(State.OPEN, State.HALF_OPEN)].arrow_patch.get_linewidth()


def test_breaker_explorer_threshold_and_cooldown() -> None:
    ex = breaker_explorer(step=9)
    ex.set(threshold=4)
    assert ex.readout == "sent 7, blocked 2; state closed at 11800 ms (event 9 of 9)"
    ex.set(threshold=3, cooldown=1000)  # 900 and 1500 still blocked; 8000 is a trial now
    assert ex.readout == "sent 7, blocked 2; state closed at 11800 ms (event 9 of 9)"
    assert [r.allowed for r in ex.compute(**ex.values).rows][3:7] == [False, False, True, True]
    assert ex.readout == BreakerExplorer.readout_for(cooldown=1000, step=9)
    ex.set(step=0)
    assert ex.readout == "sent 0, blocked 0; state closed before the first event"


def test_decision_explorer_text_only() -> None:
    ex = decision_explorer()
    assert ex.png == b"" and ex.figure is None
    assert ex.readout.startswith("POST, network error, no idempotency key -> do not retry")
    ex.set(idempotency_key=True)
    assert ex.readout == (
        "POST, network error, with an idempotency key -> retry: network "
        "error on POST with an idempotency key: the server will not act "
        "twice"
    )
    ex.set(method="GET", error="404")
    assert ex.readout == (
        "GET, HTTP 404, with an idempotency key -> do not retry: 404: a "
        "problem with the request itself; repeating it gives the same answer"
    )
    ex.set(error="503")
    assert ex.readout.startswith("GET, HTTP 503, with an idempotency key -> retry: 503")
    assert ex.readout == DecisionExplorer.readout_for(
        method="GET", error="503", idempotency_key=True
    )
    assert "retrylab-message" in ex.message_widget._dom_classes


@pytest.mark.parametrize(
    ("error", "verdict"),
    [
        ("200", "do not retry"),
        ("422", "do not retry"),
        ("429", "retry"),
        ("500", "retry"),
        ("body", "do not retry"),
        ("cancelled", "do not retry"),
    ],
)
def test_decision_explorer_every_error(error: str, verdict: str) -> None:
    text = DecisionExplorer.readout_for(method="GET", error=error)
    assert text.split(" -> ")[1].split(":")[0] == verdict


def test_outcome_for_rejects_unknown_errors() -> None:
    with pytest.raises(ValueError, match="error='timeout' is out of range"):
        outcome_for("timeout")
    assert outcome_for("200").kind == "success"


@pytest.mark.parametrize(
    "cls, name, value",
    [
        (BackoffExplorer, "jitter", "decorrelated"),
        (HerdExplorer, "retry", 4),
        (BreakerExplorer, "step", 4),
        (BreakerExplorer, "threshold", 1),
    ],
)
def test_an_explorer_moved_renders_what_a_fresh_one_does(
    cls: type, name: str, value: object
) -> None:
    """The image depends on the settings only, not on what was shown before: what the
    redraw cache relies on, and each level's saved background."""
    moved = cls()
    moved.set(**{name: value})
    assert moved.png == cls(**{name: value}).png
