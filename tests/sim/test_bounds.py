"""Inputs inside the validated ranges that could not finish are refused before any work.

Each refusal is proved to come first: the generator or the simulation that
would do the work is replaced by one that fails if it is ever touched.
"""

from __future__ import annotations

import pytest

from retrylab import Backoff, Mulberry32
from retrylab.sim import fleet as fleet_module
from retrylab.sim import layered as layered_module
from retrylab.sim.fleet import MAX_ATTEMPTS, MAX_STEPS, Fleet
from retrylab.sim.herd import MAX_DRAWS, wakeups
from retrylab.sim.layered import MAX_BOTTOM_CALLS, layered_calls


class _Untouchable(Mulberry32):
    def random(self, n: int):  # type: ignore[no-untyped-def]
        raise AssertionError("the work started before the bound was checked")


def test_layered_calls_8_layers_of_10_is_refused_before_simulating(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def no_rng(seed: int) -> Mulberry32:
        raise AssertionError("the simulation started before the bound was checked")

    monkeypatch.setattr(layered_module, "Mulberry32", no_rng)
    with pytest.raises(
        ValueError,
        match=r"attempts=10 is out of range: .* about "
        r"100,000,000 calls to the bottom service, and a "
        r"simulation is limited to 250,000",
    ):
        layered_calls(8, 10)
    assert MAX_BOTTOM_CALLS == 250_000


def test_layered_calls_within_the_bound_still_run() -> None:
    assert layered_calls(3, 3, requests=10)["calls"].tolist() == [30, 90, 270]
    # a flaky bottom implies far fewer calls, so 8 layers of 10 is fine at p = 0.1
    assert layered_calls(8, 10, failure_rate=0.1)["calls"].iloc[-1] >= 1


def test_decorrelated_wakeups_at_a_million_clients_and_attempt_10000_are_refused() -> None:
    b = Backoff(200, 2, 5000, jitter="decorrelated")
    with pytest.raises(
        ValueError,
        match=r"clients=1000000 is out of range: 1,000,000 "
        r"clients x attempt 10000 is 10,000,000,000 draws, "
        r"and wakeups is limited to 20,000,000",
    ):
        wakeups(b, 1_000_000, 10_000, _Untouchable(1))
    assert MAX_DRAWS == 20_000_000
    assert wakeups(b, 1000, 10, Mulberry32(1)).size == 1000


def test_a_fleet_of_ten_million_clients_for_a_day_at_1_ms_is_refused_on_construction(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class NoSimulation:
        def __init__(self, fleet: Fleet) -> None:
            raise AssertionError("the simulation started before the bound was checked")

    monkeypatch.setattr(fleet_module, "_Simulation", NoSimulation)
    with pytest.raises(
        ValueError,
        match=r"duration_ms=86400000 is out of range: at "
        r"step_ms=1 it is 86,400,000 steps, and a run is "
        r"limited to 1,000,000 steps",
    ):
        Fleet(clients=10_000_000, duration_ms=86_400_000, step_ms=1)
    with pytest.raises(
        ValueError,
        match=r"clients=10000000 is out of range: 10,000,000 "
        r"clients x 8 attempts is 80,000,000 attempts, and "
        r"a run is limited to 20,000,000",
    ):
        Fleet(clients=10_000_000)
    assert (MAX_STEPS, MAX_ATTEMPTS) == (1_000_000, 20_000_000)
    Fleet(clients=1_000_000, duration_ms=86_400_000, step_ms=100)  # within both bounds
