"""The explorers simulate at a slider's scale: the picture keeps the full scale's shape.

The storm explorer runs a tenth of the clients in 100 ms steps, a herd above
2000 clients is divided alike, the contention explorer averages 20 runs
instead of 100. Each test runs the notebook's full scale beside the
explorer's and compares the features a student reads off the figure: whether
the storm outlives the outage and how long it lasts, who is served, how many
requests a client costs, the order of the strategies.
"""

from __future__ import annotations

import pytest

from retrylab.core.backoff import Backoff
from retrylab.core.budget import budget_from_name
from retrylab.core.policy import RetryPolicy
from retrylab.sim.contention import STRATEGIES, contention
from retrylab.sim.fleet import outage_fleet, storm_fleet
from retrylab.sim.fleetresult import FleetResult
from retrylab.sim.fleetview import herd_divisor
from retrylab.viz.contention import EXPLORER_RUNS
from retrylab.viz.fleet import FleetExplorer, StormExplorer


def overloaded_ms(r: FleetResult) -> int:
    return r.overloaded_steps_after_outage * r.fleet.step_ms


def per_client(r: FleetResult) -> float:
    return r.total_requests / r.fleet.clients


def served(r: FleetResult) -> float:
    return r.served / r.fleet.clients


STORM_CASES = {
    "no budget": {},
    "gRPC throttling": {"retry_budget": budget_from_name("grpc")},
    "SRE budget": {"retry_budget": budget_from_name("sre")},
    "full jitter": {"policy": RetryPolicy(10, Backoff(100, 2, 1000, jitter="full"))},
    "free rejections": {"reject_cost": 0.0},
    "3 attempts": {"policy": RetryPolicy(3, Backoff(100, 2, 1000))},
}


@pytest.fixture(scope="module")
def storms() -> dict[str, tuple[FleetResult, FleetResult]]:
    out = {}
    for name, changes in STORM_CASES.items():
        full = storm_fleet(**changes)
        small = StormExplorer.scale(full).simulated
        out[name] = (full.run(), small.run())
    return out


def test_the_storm_explorer_simulates_a_tenth_in_100_ms_steps() -> None:
    scale = StormExplorer.scale(storm_fleet())
    s = scale.simulated
    assert (s.clients, s.capacity, s.step_ms) == (6000, 20, 100)
    # the same load against capacity: arrivals per second / capacity per second
    full = scale.full
    assert (s.clients / s.spread_ms) / (s.capacity / s.step_ms) == pytest.approx(
        (full.clients / full.spread_ms) / (full.capacity / full.step_ms)
    )
    assert (s.outage, s.duration_ms, s.policy) == (full.outage, full.duration_ms, full.policy)


def test_the_storm_outlives_the_outage_at_both_scales(storms: dict) -> None:
    full, small = storms["no budget"]
    # overloaded (nearly) to the end of the run, 40 s after the outage, at both scales
    assert overloaded_ms(full) > 35_000 and overloaded_ms(small) > 35_000
    assert served(small) == pytest.approx(served(full), abs=0.1)


@pytest.mark.parametrize("name", ["gRPC throttling", "SRE budget", "3 attempts"])
def test_what_ends_the_storm_ends_it_at_both_scales(storms: dict, name: str) -> None:
    full, small = storms[name]
    assert overloaded_ms(full) < 1000 and overloaded_ms(small) < 1000
    assert served(small) == pytest.approx(served(full), abs=0.02)
    assert per_client(small) == pytest.approx(per_client(full), rel=0.05)


@pytest.mark.parametrize("name", ["full jitter", "free rejections"])
def test_the_storm_lasts_as_long_at_both_scales(storms: dict, name: str) -> None:
    full, small = storms[name]
    assert overloaded_ms(small) == pytest.approx(overloaded_ms(full), rel=0.15)
    assert served(small) == pytest.approx(served(full), abs=0.02)


def test_the_order_of_the_storm_remedies_is_kept(storms: dict) -> None:
    """Ranked by time overloaded after the outage, then by share served."""

    def ranking(i: int) -> list[str]:
        return sorted(
            storms,
            key=lambda n: (overloaded_ms(storms[n][i]) // 2000, -round(served(storms[n][i]), 1)),
        )

    assert ranking(1) == ranking(0)


@pytest.mark.parametrize("jitter", ["none", "full", "decorrelated"])
@pytest.mark.parametrize("clients", [5000, 20_000])
def test_a_large_herd_keeps_its_shape_when_divided(jitter: str, clients: int) -> None:
    full = outage_fleet(jitter, clients=clients)
    scale = FleetExplorer.scale(full)
    assert scale.divisor == herd_divisor(clients) > 1
    assert scale.simulated.clients <= 2000
    a, b = full.run(), scale.simulated.run()
    assert served(b) == pytest.approx(served(a), abs=0.02)
    assert per_client(b) == pytest.approx(per_client(a), rel=0.03)
    ra, rb = a.summary()["recovery_ms"], b.summary()["recovery_ms"]
    assert rb == pytest.approx(ra, rel=0.4)
    if jitter == "none":  # the synchronized waves: the same steps, the same shares
        assert rb == ra and served(b) == served(a)


def test_the_lesson_herd_is_simulated_at_full_scale() -> None:
    scale = FleetExplorer.scale(outage_fleet("none"))
    assert scale.divisor == 1 and scale.simulated == scale.full
    assert scale.describe().startswith("simulated at full scale: 1000 clients")


@pytest.mark.parametrize("clients", [20, 100, 190])
def test_the_contention_explorer_keeps_the_order_of_the_strategies(clients: int) -> None:
    full = {s: contention(clients, s, runs=100, seed=0) for s in STRATEGIES}
    small = {s: contention(clients, s, runs=EXPLORER_RUNS, seed=0) for s in STRATEGIES}
    for what in ("calls", "time_ms"):
        assert sorted(STRATEGIES, key=lambda s: getattr(small[s], what)) == sorted(
            STRATEGIES, key=lambda s: getattr(full[s], what)
        ), what
    # and the blog's headline ratio: full jitter's calls against no jitter's
    ratio = small["full"].calls / small["exponential"].calls
    assert ratio == pytest.approx(full["full"].calls / full["exponential"].calls, abs=0.1)


def test_the_contention_order_differs_only_between_ties() -> None:
    """At every client count of the slider: 20 runs rank the strategies as 100 runs do,
    except two strategies within 5% of each other at 100 runs (a tie either way)."""
    for clients in range(10, 200, 10):
        full = {s: contention(clients, s, runs=100, seed=0) for s in STRATEGIES}
        small = {s: contention(clients, s, runs=EXPLORER_RUNS, seed=0) for s in STRATEGIES}
        for what in ("calls", "time_ms"):
            for a in STRATEGIES:
                for b in STRATEGIES:
                    fa, fb = getattr(full[a], what), getattr(full[b], what)
                    if fa < fb * 0.95:
                        assert getattr(small[a], what) < getattr(small[b], what), (
                            clients,
                            what,
                            a,
                            b,
                        )
