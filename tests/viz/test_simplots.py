"""Fleet and contention figures and explorers: drawn headless, numbers checked, wiring proved."""

from __future__ import annotations

import numpy as np
import pytest

from retrylab.core.budget import GrpcRetryThrottle
from retrylab.sim.breakers import BreakerSettings
from retrylab.sim.contention import contention_sweep
from retrylab.sim.fleet import outage_fleet, storm_fleet
from retrylab.sim.fleetview import describe_fleet, step_series
from retrylab.viz.contention import (
    ContentionExplorer,
    contention_curves,
    contention_explorer,
    layered_load,
)
from retrylab.viz.fleet import (
    FleetExplorer,
    StormExplorer,
    compare_fleets,
    fleet_explorer,
    fleet_timeline,
)
from retrylab.viz.kit import to_png

PNG = b"\x89PNG\r\n\x1a\n"


def test_fleet_timeline_draws_the_waves_and_the_capacity() -> None:
    r = outage_fleet("none").run()
    fig = fleet_timeline(r)
    plot = fig.retrylab_plot
    assert to_png(fig).startswith(PNG)
    x, y = plot.offered.get_data()
    assert y.max() == 1000 and len(x) == 3001  # 3000 steps and the end point
    waves = x[:-1][y[:-1] == 1000]
    assert waves.tolist() == [0.0, 0.21, 0.62, 1.43, 3.04]
    assert plot.capacity.get_ydata()[0] == 0 and plot.capacity.get_ydata()[-1] == 50
    assert plot.outage.get_x() == 0 and plot.outage.get_width() == 2.0
    assert plot.peak_text.get_text() == ""  # nothing off the scale
    assert plot.title.get_text().startswith("1000 clients at once; capacity 50")
    assert fig.axes[0].get_ylabel() == "requests per 10 ms step"
    assert fig.axes[1].get_xlabel() == "time (s)"
    assert [t.get_text() for t in fig.legends[0].get_texts()] == [
        "requests sent",
        "of which retries",
        "served",
        "capacity",
        "outage",
        "clients waiting",
        "served so far",
        "gave up so far",
    ]
    # the lower panel tells served from given up: 200 served, 800 gave up in the end
    assert plot.served_total.get_ydata()[-1] == 200
    assert plot.gave_up_total.get_ydata()[-1] == 800


def test_fleet_timeline_cuts_off_the_first_burst_when_jittered() -> None:
    plot = fleet_timeline(outage_fleet("full").run()).retrylab_plot
    top = plot.ax.get_ylim()[1]
    assert top == pytest.approx(77 * 1.25)  # scaled to the retries' peak
    assert plot.peak_text.get_text() == "<- 1000 first tries at 0 s (off the scale)"


def test_long_runs_are_shown_as_100_ms_means() -> None:
    r = storm_fleet().run()
    s = step_series(r)
    assert len(s) == 600 and s["time_ms"].iloc[:3].tolist() == [0, 100, 200]
    # means per step: the total is kept
    assert s["offered"].sum() * 10 == pytest.approx(r.total_requests)
    fig = fleet_timeline(r)
    assert fig.axes[0].get_ylabel() == "requests per 10 ms step\n(means over 100 ms)"
    assert step_series(r, bin_ms=10) is r.steps


def test_compare_fleets_titles_carry_the_numbers() -> None:
    fig = compare_fleets(
        {
            "no budget": storm_fleet(clients=6000).run(),
            "gRPC": storm_fleet(clients=6000, retry_budget=GrpcRetryThrottle()).run(),
        },
        suptitle="storm",
    )
    titles = [ax.get_title() for ax in fig.axes]
    assert titles[0].startswith("no budget: ") and titles[1].startswith("gRPC: ")
    assert "of 6000 served" in titles[0]
    assert to_png(fig).startswith(PNG)
    with pytest.raises(ValueError, match="results=\\{\\} is out of range"):
        compare_fleets({})


def test_describe_fleet_names_budget_and_breaker() -> None:
    text = describe_fleet(
        storm_fleet(retry_budget=GrpcRetryThrottle(), breaker=BreakerSettings(3, 5000))
    )
    assert text.splitlines() == [
        "60000 clients over 60 s; capacity 20 per 10 ms step; outage 10-20 s",
        "10 attempts, no jitter, base 100 ms x 2, cap 1000 ms; gRPC retry throttling; "
        "breaker 3 failures/5000 ms",
    ]


def test_contention_curves_one_line_per_strategy() -> None:
    df = contention_sweep([50, 100], runs=100)
    fig = contention_curves(df)
    plot = fig.retrylab_plot
    calls = {s: lc.get_ydata().tolist() for s, (lc, _) in plot.lines.items()}
    assert round(calls["full"][1]) == 795 and round(calls["exponential"][1]) == 1855
    times = {s: lt.get_ydata()[1] for s, (_, lt) in plot.lines.items()}
    assert max(times, key=lambda s: times[s]) == "exponential"
    assert plot.ax_time.get_yscale() == "log"
    assert [t.get_text() for t in plot.ax_calls.get_legend().get_texts()][:2] == [
        "exponential, no jitter",
        "full jitter",
    ]
    assert plot.marker_text.get_text() == "100 clients "
    assert to_png(fig).startswith(PNG)
    partial = contention_curves(contention_sweep([10, 20], ["full"], runs=3), mark=None)
    assert not partial.retrylab_plot.lines["none"][0].get_visible()


def test_layered_load_figure() -> None:
    fig = layered_load(3, [1, 1, 3], requests=10)
    assert fig.retrylab_data["per_request"].tolist() == [1.0, 1.0, 3.0]
    assert fig.axes[0].get_title() == (
        "3 layers x 1/1/3 attempts, bottom failing 100%: 3 calls per request"
    )


# -- explorers ---------------------------------------------------------------------------------


def test_fleet_explorer_set_matches_readout_for() -> None:
    ex = fleet_explorer()
    assert isinstance(ex, FleetExplorer)
    assert ex.readout == FleetExplorer.readout_for()
    assert len(ex.readout.splitlines()) == 2  # at most two short lines
    assert ex.readout.splitlines()[0].startswith("served 200 of 1000 clients (800 gave up)")
    first = ex.png
    ex.set(jitter="full")
    assert ex.readout == FleetExplorer.readout_for(jitter="full")
    assert ex.readout.splitlines()[0].startswith("served 998 of 1000 clients")
    assert ex.png != first and ex.redraws == 2
    ex.set(breaker="on", threshold=2)
    assert ex.readout == FleetExplorer.readout_for(jitter="full", breaker="on", threshold=2)
    assert ex.plot.title.get_text().startswith("1000-client herd")  # full scale: one line


def test_fleet_explorer_bad_value_keeps_the_last_render() -> None:
    ex = FleetExplorer(jitter="equal")
    kept, readout = ex.png, ex.readout
    ex.set(cap=100)  # below the base of 200: drawn capped
    assert ex.message == "" and "every wait is capped at 100" in ex.note
    assert ex.readout == FleetExplorer.readout_for(jitter="equal", base=100, cap=100)
    assert ex.png != kept and ex.readout != readout
    ex.set(cap=1000)
    assert ex.message == ""
    assert ex.readout == FleetExplorer.readout_for(jitter="equal", cap=1000)


def test_storm_explorer_budget_ends_the_storm() -> None:
    ex = fleet_explorer("storm", clients=12_000)
    storm = ex.readout
    assert "overloaded steps after it" in storm
    ex.set(budget="grpc")
    assert ex.readout == StormExplorer.readout_for(clients=12_000, budget="grpc")
    lines = ex.readout.splitlines()
    assert len(lines) == 2 and lines[1].startswith("backlog cleared")
    assert ex.plot.title.get_text().endswith("simulated at 1/10 scale in 100 ms steps")
    ex.set(budget="none", reject_cost=0.0)
    assert ex.readout == StormExplorer.readout_for(clients=12_000, reject_cost=0.0)
    assert set(ex.values) - set(FleetExplorer.default_values()) == {"reject_cost"}
    with pytest.raises(ValueError, match="scenario='calm' is out of range"):
        fleet_explorer("calm")


def test_contention_explorer_set_matches_readout_for() -> None:
    ex = contention_explorer()
    assert ex.readout.splitlines() == [
        "full jitter, 100 clients: 797.0 calls (7.97 per client), 5032 ms (mean of 20 runs)",
        "vs exponential without jitter: 0.43× the calls, 0.08× the time",
    ]
    first = ex.png
    ex.set(strategy="decorrelated", clients=50)
    assert ex.readout == ContentionExplorer.readout_for(strategy="decorrelated", clients=50)
    assert ex.png != first
    lengths = [b.get_width() for b in ex.bars_calls]  # one row a strategy
    assert lengths[0] == pytest.approx(
        ex.compute("decorrelated", 50, 5, 2000).results["exponential"].calls
    )
    assert np.argmax(lengths) == 4
    ex.set(base=100)
    kept = ex.png
    ex.set(cap=50)  # cap below base: drawn capped
    assert ex.message == "" and "every wait is capped at 50" in ex.note
    assert ex.png != kept
    ex.set(base=50, cap=5000)
    assert ex.message == ""
    assert ex.readout == ContentionExplorer.readout_for(
        strategy="decorrelated", clients=50, base=50, cap=5000
    )
