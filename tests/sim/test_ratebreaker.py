"""The failure-rate breaker against resilience4j's documented semantics, scalar and vectorized."""

from __future__ import annotations

import threading

import numpy as np
import pytest

from retrylab.core.breaker import State
from retrylab.core.ratebreaker import RateBreaker, RateWindow
from retrylab.sim.ratebreakers import RateBreakerArray, breaker_outage, compare_breakers


def feed(b: RateBreaker, results: list[bool], start: int = 0) -> list[str]:
    return [b.record(ok, start + t).value for t, ok in enumerate(results)]


def test_no_verdict_below_minimum_calls() -> None:
    b = RateBreaker(window_size=10, minimum_calls=5, failure_rate_threshold=50)
    assert feed(b, [False] * 4) == ["closed"] * 4  # 100% failures, but only 4 calls
    assert b.failure_rate(4) == -1
    assert b.record(False, 5) is State.OPEN  # the 5th call is judged


def test_count_window_minimum_is_capped_by_its_size() -> None:
    # resilience4j: COUNT_BASED uses min(minimumNumberOfCalls, slidingWindowSize)
    b = RateBreaker(window_size=3, minimum_calls=100, failure_rate_threshold=50)
    assert feed(b, [True, False, False]) == ["closed", "closed", "open"]


def test_threshold_is_inclusive_and_window_slides() -> None:
    b = RateBreaker(window_size=4, minimum_calls=4, failure_rate_threshold=50)
    assert feed(b, [True, True, True, False]) == ["closed"] * 4  # 25%
    assert b.record(False, 10) is State.OPEN  # TTFF: exactly 50%


def test_old_calls_leave_the_count_window() -> None:
    b = RateBreaker(window_size=4, minimum_calls=4, failure_rate_threshold=75)
    feed(b, [False, False, True, True])  # 50%
    feed(b, [True, True], start=10)  # the failures left
    assert b.failure_rate(12) == 0.0 and b.state is State.CLOSED


def test_time_window_keeps_the_last_whole_seconds() -> None:
    w = RateWindow("time", size=3, minimum=1)
    w.add(True, False, now=500)  # second 0
    w.add(False, False, now=2999)  # second 2
    assert w.calls(2999) == 2 and w.failure_rate(2999) == 50.0
    assert w.calls(3000) == 1  # second 0 is out of the window [1, 3]
    assert w.failure_rate(6000) == -1  # empty


def test_time_based_breaker_opens_on_rate_over_seconds() -> None:
    b = RateBreaker("time", window_size=2, minimum_calls=4, failure_rate_threshold=50)
    for t in (0, 100, 200):
        b.record(False, t)
    assert b.state is State.CLOSED  # 3 calls < 4
    b.record(True, 1500)  # 4 calls, 3 failed: 75%
    assert b.state is State.OPEN


def test_slow_calls_are_strictly_slower_than_the_threshold() -> None:
    b = RateBreaker(
        window_size=2, minimum_calls=2, slow_call_rate_threshold=100, slow_call_duration=1000
    )
    b.record(True, 0, duration=1000)  # equal: not slow
    b.record(True, 1, duration=1001)
    assert b.slow_rate(1) == 50.0 and b.state is State.CLOSED
    b.record(True, 2, duration=5000)
    assert b.state is State.OPEN and "slow-call rate" in b.transitions[-1].reason


def test_open_waits_strictly_longer_than_wait_in_open() -> None:
    b = RateBreaker(window_size=1, minimum_calls=1, wait_in_open=1000, half_open_calls=1)
    b.record(False, 500)
    assert not b.allow(1500) and b.retry_in(1500) == 1
    assert b.allow(1501) and b.state is State.HALF_OPEN
    assert b.not_permitted == 1


@pytest.mark.parametrize(
    ("trials", "final"), [([True, True, False], "closed"), ([True, False, False], "open")]
)
def test_half_open_judges_its_trials_as_a_window(trials: list[bool], final: str) -> None:
    b = RateBreaker(
        window_size=1, minimum_calls=1, wait_in_open=0, half_open_calls=3, failure_rate_threshold=50
    )
    b.record(False, 0)
    assert [b.allow(1) for _ in range(4)] == [True, True, True, False]
    states = feed(b, trials, start=2)
    assert states[:2] == ["half_open", "half_open"]  # no verdict before all 3 reported
    assert states[2] == final


def test_max_wait_in_half_open_reopens_a_stuck_breaker() -> None:
    b = RateBreaker(
        window_size=1,
        minimum_calls=1,
        wait_in_open=0,
        half_open_calls=2,
        max_wait_in_half_open=3000,
    )
    b.record(False, 0)
    assert b.allow(1) and b.state is State.HALF_OPEN
    assert not b.allow(3001) and b.state is State.OPEN  # the trial never reported
    assert "no verdict" in b.transitions[-1].reason
    never = RateBreaker(window_size=1, minimum_calls=1, wait_in_open=0, half_open_calls=2)
    never.record(False, 0)
    never.allow(1)
    assert never.allow(10**7) and never.state is State.HALF_OPEN


@pytest.mark.parametrize(
    ("kwargs", "name"),
    [
        ({"window_type": "sliding"}, "window_type"),
        ({"window_size": 0}, "window_size"),
        ({"failure_rate_threshold": 0}, "failure_rate_threshold"),
        ({"failure_rate_threshold": 101}, "failure_rate_threshold"),
        ({"half_open_calls": 0}, "half_open_calls"),
        ({"wait_in_open": -1}, "wait_in_open"),
    ],
)
def test_bad_settings_name_the_argument(kwargs: dict[str, object], name: str) -> None:
    with pytest.raises(ValueError, match=name):
        RateBreaker(**kwargs)  # type: ignore[arg-type]


def test_shared_across_threads_it_never_lets_more_trials_through() -> None:
    b = RateBreaker(window_size=1, minimum_calls=1, wait_in_open=0, half_open_calls=5)
    b.record(False, 0)
    allowed: list[bool] = []

    def worker() -> None:
        for _ in range(200):
            allowed.append(b.allow(1))

    threads = [threading.Thread(target=worker) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert sum(allowed) == 5


@pytest.mark.parametrize("kind", ["count", "time"])
def test_the_array_does_what_each_scalar_breaker_does(kind: str) -> None:
    n, steps = 40, 300
    kw = dict(
        window_type=kind,
        window_size=6 if kind == "count" else 3,
        minimum_calls=4,
        failure_rate_threshold=40,
        slow_call_rate_threshold=60,
        slow_call_duration=300,
        half_open_calls=3,
        wait_in_open=700,
        max_wait_in_half_open=900,
    )
    arr = RateBreakerArray(n, **kw)  # type: ignore[arg-type]
    scalars = [RateBreaker(**kw) for _ in range(n)]  # type: ignore[arg-type]
    rng = np.random.default_rng(3)
    for s in range(steps):
        now = s * 100
        p_fail = 0.7 if 100 <= s < 150 else 0.15
        fails = rng.random(n) < p_fail
        durations = rng.integers(0, 600, n)
        reports = rng.random(n) < 0.9  # some calls never report
        ok = arr.allow(np.arange(n), now)
        want = np.array([b.allow(now) for b in scalars])
        assert (ok == want).all(), s
        who = np.flatnonzero(ok & reports)
        arr.record(who, ~fails[who], now, durations[who])
        for c in who:
            scalars[c].record(not fails[c], now, int(durations[c]))
        names = [b.state.value for b in scalars]
        assert [("closed", "open", "half_open")[x] for x in arr.state] == names, s


def test_outage_comparison_shows_the_trade_off() -> None:
    table = compare_breakers(300, base_failure=0.2)
    lesson, rate = table.iloc[0], table.iloc[1]
    # a noisy but healthy service trips the consecutive breaker far more often
    assert rate["refused while healthy / client"] < lesson["refused while healthy / client"] / 2
    # it reacts to an outage after a few failures in a row, the rate needs a window's worth
    assert lesson["sent in outage / client"] < rate["sent in outage / client"]


def test_outage_runs_are_deterministic() -> None:
    a, b = breaker_outage("rate", 50), breaker_outage("rate", 50)
    assert (a.sent == b.sent).all() and a.recovery_ms == b.recovery_ms
