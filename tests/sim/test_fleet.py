"""The fleet simulator: invariants, the herd's waves, recovery, the retry storm, layered retries."""

from __future__ import annotations

from typing import Any

import numpy as np
import pandas as pd
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab.core.backoff import Backoff
from retrylab.core.breaker import CircuitBreaker, State
from retrylab.core.budget import GrpcRetryThrottle, SreRetryBudget
from retrylab.core.policy import RetryPolicy
from retrylab.sim.breakers import BreakerArray, BreakerSettings
from retrylab.sim.fleet import (
    Fleet,
    _Simulation,
    outage_fleet,
    served_under_load,
    simulate_fleet,
    storm_fleet,
)
from retrylab.sim.fleetresult import FleetResult
from retrylab.sim.layered import expected_layered_load, layered_calls

# -- invariants ------------------------------------------------------------------------------


def check_invariants(r: FleetResult) -> None:
    s, c, f = r.steps, r.clients, r.fleet
    # every request sent in a step is accepted or rejected, and is a first try or a retry
    assert (s["offered"] == s["accepted"] + s["rejected"]).all()
    assert (s["offered"] == s["first_tries"] + s["retries"]).all()
    assert (s["successes"] <= s["accepted"]).all()
    # the server never serves more than its capacity (0 while down)
    assert (
        s["accepted"] <= np.maximum(s["capacity"], 0) + (s["rejected"] == 0) * s["offered"]
    ).all()
    over = s["rejected"] > 0
    assert (s.loc[over, "accepted"] <= s.loc[over, "capacity"]).all()
    # per client: attempt limit, time budget, one outcome each
    assert (c["attempts"] <= f.max_attempts).all()
    assert int(c["attempts"].sum()) == r.total_requests
    assert int(s["successes"].sum()) == r.served == int((c["reason"] == "success").sum())
    assert int(s["gave_up"].sum()) == r.gave_up
    assert int(s["blocked_by_breaker"].sum()) == int(c["blocked"].sum())
    assert not (c["succeeded"] & c["gave_up"]).any()
    pending = c["reason"] == "pending"
    assert c.loc[pending, "finish_ms"].isna().all()
    assert (c.loc[~pending, "finish_ms"] >= c.loc[~pending, "arrival_ms"]).all()
    if f.policy.time_budget is not None:
        # a retry is made only if it ends within the budget; the first try is always sent
        # (as RetryPolicy does) and takes one step
        took = c.loc[~pending, "finish_ms"] - c.loc[~pending, "arrival_ms"]
        assert (took <= max(f.policy.time_budget, f.step_ms)).all()
        retried = ~pending & (c["attempts"] > 1)
        assert (
            c.loc[retried, "finish_ms"] - c.loc[retried, "arrival_ms"] <= f.policy.time_budget
        ).all()
    # first tries: one per client that arrived and was not refused by its breaker at once
    assert int(s["first_tries"].sum()) == int((c["attempts"] > 0).sum())
    assert (s["waiting"] >= 0).all()


def _fleet(
    clients: Any,
    cap: Any,
    jitter: Any,
    attempts: Any,
    budget_ms: Any,
    outage: Any,
    mode: Any,
    cost: Any,
    breaker: Any,
    budget: Any,
    groups: Any,
    spread: Any,
    seed: Any,
) -> Fleet:
    return Fleet(
        clients=clients,
        capacity=cap,
        policy=RetryPolicy(attempts, Backoff(20, 2, 400, jitter=jitter), time_budget=budget_ms),
        duration_ms=3000,
        step_ms=10,
        spread_ms=spread,
        outage=outage,
        outage_mode=mode,
        reject_cost=cost,
        breaker=breaker,
        retry_budget=budget,
        budget_groups=min(groups, clients),
        seed=seed,
    )


fleets = st.builds(
    _fleet,
    clients=st.integers(1, 300),
    cap=st.integers(0, 40),
    jitter=st.sampled_from(["none", "full", "equal", "decorrelated", "proportional"]),
    attempts=st.integers(1, 8),
    budget_ms=st.one_of(st.none(), st.integers(0, 2000)),
    outage=st.one_of(
        st.none(),
        st.tuples(st.integers(0, 1000), st.integers(0, 1500)).map(lambda t: (t[0], t[0] + t[1])),
    ),
    mode=st.sampled_from(["down", "error"]),
    cost=st.sampled_from([0.0, 0.1, 0.5]),
    breaker=st.one_of(
        st.none(), st.builds(BreakerSettings, st.integers(1, 4), st.integers(0, 500))
    ),
    budget=st.sampled_from([None, GrpcRetryThrottle(), SreRetryBudget()]),
    groups=st.integers(1, 5),
    spread=st.sampled_from([0, 500, 2000]),
    seed=st.integers(0, 2**32 - 1),
)


@settings(max_examples=80, deadline=None)
@given(fleet=fleets)
def test_invariants_hold_for_any_fleet(fleet: Fleet) -> None:
    check_invariants(fleet.run())


@settings(max_examples=15, deadline=None)
@given(fleet=fleets)
def test_same_seed_same_output(fleet: Fleet) -> None:
    a, b = fleet.run(), fleet.run()
    pd.testing.assert_frame_equal(a.steps, b.steps)
    pd.testing.assert_frame_equal(a.clients, b.clients)


def _same_result(a: FleetResult, b: FleetResult) -> None:
    pd.testing.assert_frame_equal(a.steps, b.steps)
    pd.testing.assert_frame_equal(a.clients, b.clients)
    assert a.breaker_openings == b.breaker_openings


@settings(max_examples=120, deadline=None)
@given(fleet=fleets)
def test_quiet_steps_taken_at_once_give_the_step_by_step_result(fleet: Fleet) -> None:
    _same_result(_Simulation(fleet, quiet_runs=False).run(), fleet.run())


@pytest.mark.parametrize(
    "changes",
    [
        {},
        {"retry_budget": GrpcRetryThrottle()},
        {"retry_budget": SreRetryBudget(), "budget_groups": 7},
        {"breaker": BreakerSettings(3, 5000)},
        {"reject_cost": 0.0},
        {"outage_mode": "error"},
        {"clients": 20_000, "capacity": 3},
        {"outage": None},
    ],
    ids=repr,
)
def test_the_storm_is_the_same_bit_for_bit_with_quiet_runs(
    changes: dict[str, object], monkeypatch: pytest.MonkeyPatch
) -> None:
    fleet = storm_fleet(**changes)
    quiet: list[int] = []
    original = _Simulation._quiet

    def counting(self: _Simulation, start: int, end: int, lo: int, hi: int) -> None:
        quiet.append(end - start)
        original(self, start, end, lo, hi)

    monkeypatch.setattr(_Simulation, "_quiet", counting)
    _same_result(_Simulation(fleet, quiet_runs=False).run(), fleet.run())
    if changes in ({"retry_budget": GrpcRetryThrottle()}, {"outage": None}):
        assert sum(quiet) > 4000  # the storm ends (or never starts): most steps are quiet


def test_different_seeds_differ_where_randomness_matters() -> None:
    a = outage_fleet("full").run()
    b = outage_fleet("full", seed=1).run()
    assert not a.steps["offered"].equals(b.steps["offered"])
    # without jitter and with capacity to spare nothing random happens at all
    c = outage_fleet("none", capacity=2000).run()
    d = outage_fleet("none", capacity=2000, seed=7).run()
    pd.testing.assert_frame_equal(c.steps, d.steps)


def test_presets_keep_their_invariants() -> None:
    for fleet in (
        outage_fleet("none"),
        outage_fleet("full"),
        storm_fleet(),
        storm_fleet(retry_budget=GrpcRetryThrottle()),
        storm_fleet(breaker=BreakerSettings(3, 5000)),
    ):
        check_invariants(fleet.run())


def test_capacity_is_filled_by_a_seeded_random_choice() -> None:
    r = simulate_fleet(500, RetryPolicy(1, Backoff(100)), capacity=40, outage=None)
    first = r.steps.iloc[0]
    assert (first["offered"], first["accepted"], first["successes"]) == (500, 40, 40)
    served = r.clients.loc[r.clients["succeeded"], "client"].to_numpy()
    assert served.size == 40
    assert served.max() - served.min() > 300  # a random pick, not the first 40 ids
    again = simulate_fleet(500, RetryPolicy(1, Backoff(100)), capacity=40, outage=None)
    assert served.tolist() == again.clients.loc[again.clients["succeeded"], "client"].tolist()


def test_error_outage_serves_requests_that_all_fail() -> None:
    r = outage_fleet("none", outage_mode="error").run()
    during = r.steps[r.steps["time_ms"] < 2000]
    assert int(during["accepted"].sum()) == 4 * 50  # 4 waves, 50 served each
    assert int(during["successes"].sum()) == 0
    assert (during["capacity"] == 50).all()
    down = outage_fleet("none").run().steps
    assert int(down.loc[down["time_ms"] < 2000, "accepted"].sum()) == 0


# -- the herd: waves without jitter, faster recovery with it ---------------------------------


def test_no_jitter_comes_back_in_synchronized_waves() -> None:
    none = outage_fleet("none").run()
    full = outage_fleet("full").run()
    waves = none.steps[none.steps["retries"] > 0]
    # all 1000 clients retry in the same step: at 210, 620, 1430 and 3040 ms
    assert waves["time_ms"].tolist()[:4] == [210, 620, 1430, 3040]
    assert waves["retries"].tolist()[:4] == [1000, 1000, 1000, 1000]
    assert none.peak_retries == 1000 and full.peak_retries == 77
    assert none.retry_peak_to_mean > 200 > 20 > full.retry_peak_to_mean
    # retries land in 7 steps without jitter, in hundreds of steps with it
    assert len(waves) == 7
    assert int((full.steps["retries"] > 0).sum()) > 500


def test_jitter_recovers_faster_and_serves_everyone() -> None:
    none = outage_fleet("none").run()
    full = outage_fleet("full").run()
    assert (none.served, none.gave_up) == (200, 800)  # 50 per wave after the outage
    assert (full.served, full.gave_up) == (998, 2)
    assert none.reasons() == {"success": 200, "max_attempts": 800}
    # time until the backlog was cleared after the outage ended (2000 ms)
    assert full.recovery_ms == 4870
    assert none.recovery_ms == 14_280  # the last wave gives up at 16 280 ms
    assert full.last_success_ms is not None and none.last_success_ms is not None
    assert full.last_success_ms < none.last_success_ms
    assert full.overloaded_steps_after_outage == 0 < none.overloaded_steps_after_outage


# -- the retry storm and what ends it ----------------------------------------------------------


@pytest.fixture(scope="module")
def storms() -> dict[str, FleetResult]:
    return {
        "storm": storm_fleet().run(),
        "jitter": storm_fleet(policy=RetryPolicy(10, Backoff(100, 2, 1000, jitter="full"))).run(),
        "budget": storm_fleet(retry_budget=GrpcRetryThrottle()).run(),
        "sre": storm_fleet(retry_budget=SreRetryBudget()).run(),
        "breaker": storm_fleet(breaker=BreakerSettings(3, 5000)).run(),
        "free": storm_fleet(reject_cost=0.0).run(),
    }


def test_storm_keeps_the_server_saturated_after_the_outage(storms: dict[str, FleetResult]) -> None:
    storm = storms["storm"]
    after = storm.steps[storm.steps["time_ms"] >= 20_000]
    assert len(after) == 4000
    # the outage ended at 20 s, yet 95% of the remaining steps are overloaded
    assert storm.overloaded_steps_after_outage == 3821
    assert storm.recovery_ms is None
    # the server serves about half the clients it would serve (10 arrive per step)
    assert int(after["successes"].sum()) == 20_274
    assert storm.total_requests == 396_981 and storm.amplification > 6.5


def test_jitter_alone_does_not_end_a_storm(storms: dict[str, FleetResult]) -> None:
    jitter = storms["jitter"]
    assert jitter.overloaded_steps_after_outage > 3000
    assert jitter.total_requests > 380_000


def test_budget_or_breaker_ends_the_storm(storms: dict[str, FleetResult]) -> None:
    storm = storms["storm"]
    for name in ("budget", "sre", "breaker"):
        r = storms[name]
        assert r.overloaded_steps_after_outage < 50, name
        assert r.recovery_ms is not None and r.recovery_ms < 1000, name
        assert r.total_requests * 3 < storm.total_requests, name
        assert r.served > storm.served + 19_000, name
    assert storms["budget"].reasons()["retry_budget"] == 9944
    assert storms["breaker"].reasons()["breaker_open"] == 9698
    assert int(storms["breaker"].steps["blocked_by_breaker"].sum()) == 9698


def test_free_rejections_make_a_shorter_storm(storms: dict[str, FleetResult]) -> None:
    free = storms["free"]
    assert 0 < free.overloaded_steps_after_outage < 600
    assert free.recovery_ms is not None


def test_served_under_load_formula() -> None:
    assert served_under_load(10, 20, 0.2) == 10
    assert served_under_load(40, 20, 0.0) == 20
    assert served_under_load(40, 20, 0.2) == 15  # 15 + 0.2 * 25 = 20
    assert served_under_load(100, 20, 0.2) == 0  # 0.2 * 100 = 20: all work is refusing
    assert served_under_load(25, 20, 0.5) == 15


# -- layered retries ------------------------------------------------------------------------


def test_three_layers_of_three_attempts_is_27x_by_simulation() -> None:
    df = layered_calls(3, 3, requests=100)
    assert df["service"].tolist() == ["gateway", "station API", "database"]
    assert df["calls"].tolist() == [300, 900, 2700]
    assert df["per_request"].tolist() == [3.0, 9.0, 27.0]
    assert expected_layered_load(3, 3) == 27.0


def test_retrying_at_one_layer_only() -> None:
    df = layered_calls(3, [1, 1, 3], requests=50)
    assert df["calls"].tolist() == [50, 50, 150]
    assert layered_calls(4, 2, requests=1)["calls"].tolist() == [2, 4, 8, 16]
    assert layered_calls(1, 5, requests=2)["calls"].tolist() == [10]


def test_layered_simulation_agrees_with_the_expectation() -> None:
    df = layered_calls(3, 3, requests=4000, failure_rate=0.5)
    expected = expected_layered_load(3, 3, failure_rate=0.5)
    assert expected == pytest.approx(2.0, abs=0.01)
    assert df["per_request"].iloc[-1] == pytest.approx(expected, rel=0.03)
    assert layered_calls(3, 3, requests=10, failure_rate=0.0)["calls"].tolist() == [10] * 3


def test_layered_rejects_bad_arguments() -> None:
    with pytest.raises(ValueError, match="attempts=\\[3, 3\\] is out of range"):
        layered_calls(3, [3, 3])
    with pytest.raises(ValueError, match="layers=0 is out of range"):
        expected_layered_load(0, 3)
    with pytest.raises(ValueError, match=r"failure_rate=1\.5 is out of range"):
        layered_calls(2, 2, failure_rate=1.5)


# -- the vectorized breaker equals CircuitBreaker ------------------------------------------------


@settings(max_examples=100, deadline=None)
@given(
    events=st.lists(
        st.tuples(st.integers(0, 3000), st.sampled_from(["allow", "ok", "fail"])), max_size=60
    ),
    threshold=st.integers(1, 4),
    cooldown=st.integers(0, 2000),
    trials=st.integers(1, 3),
)
def test_breaker_array_matches_circuit_breaker(
    events: list[tuple[int, str]], threshold: int, cooldown: int, trials: int
) -> None:
    scalar = CircuitBreaker(threshold, cooldown, trials)
    array = BreakerArray(2, threshold, cooldown, trials)  # client 1 stays untouched
    now = 0
    for gap, kind in events:
        now += gap
        if kind == "allow":
            assert array.allow([0], now).tolist() == [scalar.allow(now)]
        else:
            scalar.record(kind == "ok", now)
            array.record([0], [kind == "ok"], now)
        assert array.names()[0] == scalar.state.value
        assert array.names()[1] == State.CLOSED.value
    opened = (
        scalar.transition_counts()[(State.CLOSED, State.OPEN)]
        + scalar.transition_counts()[(State.HALF_OPEN, State.OPEN)]
    )
    assert array.opened == opened


def test_breaker_array_handles_many_clients_at_once() -> None:
    b = BreakerArray(4, threshold=2, cooldown=100)
    b.record([0, 1, 2], [False, False, True], 0)
    b.record([0, 1], [False, True], 10)
    assert b.names() == ["open", "closed", "closed", "closed"]
    assert b.allow([0, 1, 2, 3], 50).tolist() == [False, True, True, True]
    assert b.allow([0], 110).tolist() == [True] and b.names()[0] == "half_open"
    assert b.reopen_at([0]).tolist() == [110]


# -- arguments -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("changes", "message"),
    [
        ({"clients": 0}, "clients=0 is out of range: clients must be an integer"),
        ({"outage_mode": "flaky"}, "outage_mode='flaky' is out of range"),
        ({"reject_cost": 1.0}, "reject_cost=1.0 is out of range"),
        ({"budget_groups": 2000}, "budget_groups=2000 is out of range"),
        ({"outage": (3000, 1000)}, "outage end=1000 is out of range"),
        ({"breaker": (3, 5000)}, "breaker=\\(3, 5000\\) is out of range"),
        ({"policy": "retry"}, "policy='retry' is out of range"),
    ],
)
def test_bad_settings_name_the_argument(changes: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        Fleet().with_(**changes)
