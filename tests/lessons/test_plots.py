"""The lessons' figures: smoke-run headless and check the numbers they draw."""

from __future__ import annotations

import matplotlib.pyplot as plt
import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from matplotlib.figure import Figure

from retrylab import Backoff, CircuitBreaker, State, replay
from retrylab.lessons.outputs import BREAKER_EVENTS, backoff_table, breaker_trace
from retrylab.viz.backoff import (
    jitter_range,
    lesson_backoffs,
    retry_after_bars,
    schedule_data,
    wait_bars,
    wait_histogram,
    wait_schedule,
    waits_table,
    write_bars,
)
from retrylab.viz.breaker import (
    arrow_labels,
    breaker_diagram,
    breaker_timeline,
    timeline_segments,
)
from retrylab.viz.herd import herd_data, herd_histogram
from retrylab.viz.kit import PALETTE, STATE_COLOURS, to_png


def _png_ok(fig: Figure) -> None:
    png = to_png(fig)
    assert png[:8] == b"\x89PNG\r\n\x1a\n" and len(png) > 5000


def test_no_figure_reaches_pyplot() -> None:
    before = plt.get_fignums()
    figs = [wait_schedule(), wait_bars(), herd_histogram(), breaker_diagram(), breaker_timeline()]
    for fig in figs:
        _png_ok(fig)
        assert fig.axes and all(ax.get_title() or fig.get_suptitle() for ax in fig.axes[:1])
    assert plt.get_fignums() == before


def test_waits_table_reproduces_the_lessons_table() -> None:
    mine = waits_table()
    lesson = backoff_table()
    assert mine["fixed"].tolist() == lesson["fixed"].tolist() == [200] * 6
    assert mine["exponential"].tolist() == lesson["exponential"].tolist()
    assert mine["capped"].tolist() == [200, 400, 800, 1600, 3200, 5000]
    assert mine["full jitter"].tolist() == lesson["full jitter"].tolist()
    assert mine["decorrelated"].tolist() == [384, 1034, 2121, 1933, 3986, 5000]
    assert mine["linear"].tolist() == [200, 400, 600, 800, 1000, 1200]


def test_waits_table_own_generators_differ_from_shared() -> None:
    own = waits_table(shared=False)
    assert own["full jitter"].tolist() == [70, 184, 592, 1402, 3120, 3309]
    assert own["decorrelated"].iloc[0] == 340  # first draw 0.35 -> 200 + 0.35 * 400
    with pytest.raises(ValueError, match="retries=0 is out of range"):
        waits_table(retries=0)
    with pytest.raises(ValueError, match="retries=70 is out of range: a wait without a cap"):
        waits_table(retries=70)


def test_wait_schedule_draws_every_strategy_and_the_cap() -> None:
    fig = wait_schedule()
    plot = fig.retrylab_plot
    assert list(plot.lines) == list(lesson_backoffs())
    assert plot.lines["decorrelated"].get_ydata().tolist() == [384, 1034, 2121, 1933, 3986, 5000]
    assert plot.lines["exponential"].get_ydata().tolist()[-1] == 6400
    assert plot.cap_line.get_ydata()[0] == 5000 and plot.cap_line.get_visible()
    ax = fig.axes[0]
    # retries numbered as in the formulas (notebook 00): n = 0 is the first, ceiling = base
    assert ax.get_xlabel() == "retry n (counted from 0)" and "(ms)" in ax.get_ylabel()
    assert ax.get_xticks()[0] == 0
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert "cap 5000 ms" in labels and "full jitter" in labels


def test_wait_schedule_without_a_cap_hides_the_line() -> None:
    fig = wait_schedule({"x2": Backoff(100, 2, None)}, retries=4)
    assert fig.retrylab_plot.lines["x2"].get_ydata().tolist() == [100, 200, 400, 800]
    assert not fig.retrylab_plot.cap_line.get_visible()


def test_jitter_range_of_each_jitter() -> None:
    c = Backoff(1000, 2, 6000)  # ceiling of retry 2 (n = 2) is 4000
    ranges = {
        j: jitter_range(Backoff(1000, 2, 6000, jitter=j), 2, 1500)
        for j in ("none", "full", "equal", "proportional", "decorrelated")
    }
    assert c.ceiling(2) == 4000
    assert ranges == {
        "none": (4000, 4000),
        "full": (0, 4000),
        "equal": (2000, 4000),
        "proportional": (2000, 6000),  # 1.5 x 4000 = 6000, the cap
        "decorrelated": (1000, 4500),
    }  # base to 3 x the previous 1500
    assert jitter_range(Backoff(1000, 2, 5000, jitter="proportional"), 2) == (2000, 5000)
    assert jitter_range(Backoff(1000, 2, 5000, jitter="decorrelated"), 0) == (1000, 3000)


@settings(max_examples=40, deadline=None)
@given(
    base=st.integers(1, 3000),
    extra=st.integers(0, 20_000),
    retries=st.integers(1, 12),
    seed=st.integers(0, 2**32 - 1),
    jitter=st.sampled_from(["none", "full", "equal", "decorrelated", "proportional"]),
    growth=st.sampled_from(["constant", "linear", "exponential"]),
)
def test_every_wait_lies_in_its_jitter_range(
    base: int, extra: int, retries: int, seed: int, jitter: str, growth: str
) -> None:
    b = Backoff(base, 2, base + extra, jitter=jitter, growth=growth)  # type: ignore[arg-type]
    s = schedule_data(b, retries, seed)
    assert len(s.waits) == len(s.low) == len(s.high) == len(s.ceilings) == retries
    assert all(lo <= w <= hi for lo, w, hi in zip(s.low, s.waits, s.high, strict=True))
    assert all(0 <= lo <= hi <= base + extra for lo, hi in zip(s.low, s.high, strict=True))
    if jitter == "none":
        assert s.waits == s.low == s.high == s.ceilings


def test_schedule_data_is_the_backoffs_own_waits() -> None:
    s = schedule_data(Backoff(200, 2, 5000, jitter="full"))
    assert s.waits == (70, 184, 592, 1402, 3120, 3309)  # waits_table(shared=False)
    assert s.ceilings == (200, 400, 800, 1600, 3200, 5000) and s.seed == 20260114
    with pytest.raises(ValueError, match="retries=0 is out of range"):
        schedule_data(retries=0)


def test_wait_bars_draws_waits_ranges_ceilings_and_cap() -> None:
    fig = wait_bars(Backoff(1000, 2, 5000, jitter="proportional"), retries=4)
    plot = fig.retrylab_plot
    assert [b.get_height() for b in plot.bars] == [850, 1918, 4958, 5000]
    assert [(b.get_y(), b.get_y() + b.get_height()) for b in plot.bands] == [
        (500, 1500),
        (1000, 3000),
        (2000, 5000),
        (2500, 5000),
    ]
    assert [b.get_height() for b in plot.ceilings] == [1000, 2000, 4000, 5000]
    assert [t.get_text() for t in plot.labels] == ["850", "1918", "4958", "5000"]
    assert plot.cap_line.get_visible() and plot.cap_line.get_ydata()[0] == 5000
    ax = fig.axes[0]
    # retries numbered as in the formulas (notebook 00): n = 0 is the first, ceiling = base
    assert ax.get_xlabel() == "retry n (counted from 0)" and "(ms)" in ax.get_ylabel()
    assert ax.get_xticks()[0] == 0
    assert ax.get_title().endswith("total wait over 4 retries: 12726 ms")
    labels = [t.get_text() for t in ax.get_legend().get_texts()]
    assert labels == [
        "actual wait (seed 20260114)",
        "jitter range",
        "ceiling: min(cap, base × factorⁿ)",
        "cap 5000 ms",
    ]


def test_wait_bars_without_a_cap_and_with_other_growths() -> None:
    fig = wait_bars(Backoff(2000, growth="constant", cap=None), retries=3, seed=1)
    plot = fig.retrylab_plot
    assert [b.get_height() for b in plot.bars] == [2000, 2000, 2000]
    assert not plot.cap_line.get_visible()
    labels = [t.get_text() for t in fig.axes[0].get_legend().get_texts()]
    assert labels == ["actual wait (seed 1)", "jitter range", "ceiling: base"]
    with pytest.raises(ValueError, match="retries=5 is out of range: this figure shows"):
        plot.update(schedule_data(retries=5))


def test_herd_histogram_bar_heights_are_the_lessons_counts() -> None:
    fig = herd_histogram()
    plain, jittered = (s.get_data() for s in fig.retrylab_plot.steps)
    assert plain.values.tolist() == [0, 0, 0, 0, 24, 0]
    assert jittered.values.tolist() == [6, 5, 7, 6, 0, 0]
    assert jittered.edges.tolist() == [0, 200, 400, 600, 800, 1000, 1200]
    assert [t.get_text() for t in fig.retrylab_plot.peaks] == ["peak 24", "peak 7"]
    assert "peak 24 → 7 clients per 200 ms (0.29×)" in fig.retrylab_plot.title.get_text()
    assert fig.axes[0].get_xlabel() == "wake-up time after the failure (ms)"


def test_herd_peak_depends_on_the_bucket_width() -> None:
    assert herd_data().ratio == pytest.approx(7 / 24)
    assert (herd_data(width=400).peak_jittered, herd_data(width=100).peak_jittered) == (13, 6)
    assert herd_data(width=800).ratio == 1.0  # one bucket holds everyone again
    assert herd_data(Backoff(200, 2, 5000, jitter="none")).ratio == 1.0


@settings(max_examples=25, deadline=None)
@given(
    clients=st.integers(1, 300),
    retry=st.integers(0, 5),
    jitter=st.sampled_from(["full", "equal", "decorrelated", "proportional"]),
)
def test_herd_counts_add_up_to_the_clients(clients: int, retry: int, jitter: str) -> None:
    data = herd_data(Backoff(200, 2, 5000, jitter=jitter), clients, retry)  # type: ignore[arg-type]
    assert int(data.plain.sum()) == int(data.jittered.sum()) == clients
    assert data.peak_plain == clients and 0 < data.peak_jittered <= clients


def test_breaker_diagram_labels_carry_the_counts() -> None:
    cb = CircuitBreaker(3, 5000)
    replay(BREAKER_EVENTS, cb)
    fig = breaker_diagram(cb.transition_counts(), cb.state, threshold=3, cooldown=5000)
    labels = {k: t.get_text() for k, t in fig.retrylab_labels.items()}
    assert labels[(State.CLOSED, State.OPEN)] == "3 failures in a row\n(1 time)"
    assert labels[(State.OPEN, State.HALF_OPEN)] == "cooldown of\n5000 ms over\n(2 times)"
    assert labels[(State.HALF_OPEN, State.OPEN)] == "trial failed\n(1 time)"
    assert labels[(State.HALF_OPEN, State.CLOSED)] == "trial succeeded\n(1 time)"
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "success resets\nthe failure count" in texts
    _png_ok(fig)


def test_breaker_diagram_highlights_the_current_state() -> None:
    fig = breaker_diagram(current=State.OPEN)
    nodes = fig.axes[0].retrylab_nodes
    from matplotlib.colors import to_rgb

    boxes = {s: nodes[s].get_bbox_patch() for s in State}
    assert boxes[State.OPEN].get_facecolor()[:3] == pytest.approx(to_rgb(STATE_COLOURS["open"]))
    assert boxes[State.OPEN].get_facecolor()[3] == 1.0
    assert boxes[State.CLOSED].get_facecolor()[3] < 0.5
    assert boxes[State.OPEN].get_linewidth() > 3 * boxes[State.CLOSED].get_linewidth()
    assert arrow_labels()[(State.CLOSED, State.OPEN)] == "threshold failures in a row"


def test_timeline_segments_of_the_lesson() -> None:
    bands = [(a, b, s.value) for a, b, s in timeline_segments(breaker_trace(), 5000)]
    assert bands == [
        (0, 600, "closed"),
        (600, 5600, "open"),
        (5600, 6000, "half_open"),
        (6000, 11000, "open"),
        (11000, 11500, "half_open"),
        (11500, 12800, "closed"),
    ]
    assert timeline_segments([], 5000) == [(0, 1000, State.CLOSED)]


def test_breaker_timeline_markers_and_steps() -> None:
    fig = breaker_timeline()
    ax = fig.axes[0]
    succeeded, failed, blocked = (np.asarray(line.get_xdata()).tolist() for line in ax.lines[:3])
    assert succeeded == [11500, 11800]
    assert failed == [0, 200, 600, 6000]
    assert blocked == [900, 1500, 8000]
    assert ax.get_title().endswith("sent 6, blocked 3")
    assert ax.get_xlabel() == "logical time (ms)"
    part = breaker_timeline(upto=4).axes[0]
    assert np.asarray(part.lines[2].get_xdata()).tolist() == [900]
    assert part.get_title().endswith("sent 3, blocked 1")
    assert part.get_xlim() == ax.get_xlim()  # a steady axis while stepping


def test_breaker_timeline_other_settings() -> None:
    ax = breaker_timeline(threshold=4).axes[0]
    assert ax.get_title() == ("Breaker timeline (threshold 4, cooldown 5000 ms): sent 7, blocked 2")


# -- the retry loop's waits and the lab's writes (notebooks 01 and 03) -----------------


def test_retry_after_bars_draws_the_max_of_backoff_and_retry_after() -> None:
    before = plt.get_fignums()
    draws = waits_table(shared=False)["full jitter"].tolist()  # 70, 184, 592, ...
    fig = retry_after_bars(draws, 2000)
    _png_ok(fig)
    ax = fig.axes[0]
    assert ax.get_title() == "The loop waits max(backoff, Retry-After)"
    # retries numbered as notebook 00 and the other wait figures do: n = 0 is the first
    assert (ax.get_xlabel(), ax.get_ylabel()) == ("retry n (counted from 0)", "wait (ms)")
    assert [int(p.get_height()) for p in ax.patches] == [70, 184, 592, 1402, 3120, 3309]
    assert [round(p.get_x() + p.get_width() / 2) for p in ax.patches] == [0, 1, 2, 3, 4, 5]
    limit, waited = ax.lines
    assert list(limit.get_ydata()) == [2000, 2000]
    assert limit.get_color() == PALETTE["vermillion"]
    assert waited.get_ydata().tolist() == [2000, 2000, 2000, 2000, 3120, 3309]
    assert [t.get_text() for t in ax.get_legend().get_texts()] == [
        "Retry-After: 2 (2000 ms)",
        "the loop waits",
        "backoff draw",
    ]
    zero = retry_after_bars(np.array([100, 5000]), 0)
    assert zero.axes[0].lines[-1].get_ydata().tolist() == [100, 5000]
    assert plt.get_fignums() == before


def test_wait_histogram_counts_each_bucket() -> None:
    waits = [10] * 30 + [60] * 26 + [310] * 7 + [399]
    fig = wait_histogram(waits, 50, title="Waits of 300 user-triggered refreshes")
    _png_ok(fig)
    ax = fig.axes[0]
    assert ax.get_title() == "Waits of 300 user-triggered refreshes"
    assert ax.get_xlabel() == "wait (ms, 50 ms buckets)"
    assert [(p.get_x() + p.get_width() / 2, p.get_height()) for p in ax.patches] == [
        (25.0, 30),
        (75.0, 26),
        (325.0, 7),
        (375.0, 1),
    ]
    assert ax.get_legend().get_texts()[0].get_text() == "64 waits"
    assert wait_histogram([]).axes[0].get_legend().get_texts()[0].get_text() == "0 waits"


def test_write_bars_shows_duplicates_and_unacknowledged_per_client() -> None:
    from retrylab.lessons.lab_experiments import write_experiment

    reports = [write_experiment(200, 0.2, mode, seed=3) for mode in ("key", "unsafe")]
    counts = pd.concat([r.series() for r in reports], axis=1)
    fig = write_bars(counts, 0.2)
    _png_ok(fig)
    ax = fig.axes[0]
    assert ax.get_title() == "200 writes, 20% of answers lost after storing"
    assert ax.get_ylabel() == "count (of 200 writes)"
    assert [t.get_text() for t in ax.get_xticklabels()] == ["key", "unsafe"]
    heights = [int(p.get_height()) for p in ax.patches]
    assert heights == [
        0,
        reports[1].duplicates,
        reports[0].unacknowledged,
        reports[1].unacknowledged,
    ]
    assert reports[1].duplicates > 20  # about 0.2 + 0.04 + ... per write
    assert [t.get_text() for t in ax.texts] == [str(h) for h in heights]
    assert ax.get_ylim()[1] == pytest.approx(max(heights) * 1.2)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: retry_after_bars([]), r"backoff_waits=\[\] is out of range"),
        (
            lambda: retry_after_bars([70, -1]),
            r"backoff_waits\[1\]=-1 is out of range: backoff_waits\[1\] must be an integer >= 0",
        ),
        (lambda: retry_after_bars([70], -5), r"retry_after_ms=-5 is out of range"),
        (lambda: wait_histogram([10], 0), r"width=0 is out of range"),
        (lambda: wait_histogram(7), r"waits=7 is out of range: waits must be a list"),
        (
            lambda: write_bars(pd.DataFrame({"key": [1]}, index=["writes"]), 0.2),
            r"counts=\['writes'\] is out of range: counts must have rows writes, duplicates",
        ),
        (
            lambda: write_bars(
                pd.DataFrame({"key": [1, 0, 0]}, index=["writes", "duplicates", "unacknowledged"]),
                1.5,
            ),
            r"drop_rate=1.5 is out of range",
        ),
    ],
)
def test_loop_and_lab_figures_reject_bad_input(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]
