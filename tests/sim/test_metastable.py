"""The metastable-failure model: its equations, its verdicts, and the fleet that plays it."""

from __future__ import annotations

import pytest

from retrylab.core.metastable import MetastableModel
from retrylab.sim.metastable import metastable_fleet


def test_without_retries_the_queue_is_the_spike_overflow() -> None:
    # Q grows by (spike - 1) * mu per second of spike, and drains at (1 - base) * mu
    m = MetastableModel(retries=0, spike=1.5, spike_ms=3000, base=0.8, capacity=1000)
    run = m.run()
    end = (m.spike_start + m.spike_ms) // m.step
    assert run.wait_ms[end] == pytest.approx(1500, abs=1)
    drained = m.spike_start + m.spike_ms + (1500 - 100) / 0.2  # to a tenth of the timeout
    assert run.recovered_at == pytest.approx(drained, abs=2 * m.step)


def test_retries_sustain_the_overload_after_the_spike() -> None:
    run = MetastableModel(retries=3).run()
    assert run.recovered_at is None
    assert run.final_amplification == pytest.approx(4.0)  # every attempt times out
    assert run.final_goodput == pytest.approx(0.0, abs=1e-6)
    assert run.wait_ms[-1] > run.wait_ms[len(run.wait_ms) // 2]  # and the queue grows


def test_the_same_spike_with_no_load_above_capacity_recovers() -> None:
    # 1 retry x base 0.45 stays below capacity even when everything times out
    assert MetastableModel(retries=1, base=0.45).run().recovered_at is not None
    assert MetastableModel(retries=1, base=0.8).run().recovered_at is None


@pytest.mark.parametrize(
    "change", [{"budget": 0.1}, {"timeout": 3000}, {"spike_ms": 1000}, {"retries": 0}]
)
def test_settings_that_recover(change: dict[str, object]) -> None:
    assert MetastableModel(retries=3).with_(**change).run().recovered_at is not None


def test_a_budget_caps_retries_at_its_share_of_first_tries() -> None:
    run = MetastableModel(retries=3, budget=0.1).run()
    assert max(o / u for o, u in zip(run.offered, run.user, strict=True)) <= 1.1 + 1e-9


def test_bad_settings_name_the_argument() -> None:
    with pytest.raises(ValueError, match="timeout"):
        MetastableModel(timeout=0)
    with pytest.raises(ValueError, match="retries"):
        MetastableModel(retries=-1)
    with pytest.raises(ValueError, match="budget"):
        MetastableModel(budget=-0.1)


@pytest.mark.parametrize(
    "change", [{}, {"retries": 0}, {"budget": 0.1}, {"timeout": 3000}, {"retries": 1}]
)
def test_the_fleet_reaches_the_fluid_models_verdict(change: dict[str, object]) -> None:
    m = MetastableModel(step=50, duration=40_000).with_(**change)
    fluid = m.run().recovered_at is None
    fleet = metastable_fleet(m, 20_000).recovered_at is None
    assert fluid == fleet


def test_the_fleet_is_deterministic() -> None:
    m = MetastableModel(step=50, duration=20_000)
    a, b = metastable_fleet(m, 5000), metastable_fleet(m, 5000)
    assert (a.offered == b.offered).all() and a.summary() == b.summary()
