"""The breaker, the registry and the budgets shared by 16 threads under forced switching.

``sys.setswitchinterval(1e-6)`` makes the interpreter switch threads every
microsecond, so a read-modify-write that is not locked loses updates within a
few hundred operations. Every test is bounded by a fixed amount of work.
"""

from __future__ import annotations

import itertools
import sys
import threading
from collections.abc import Callable, Iterator

import pytest

from retrylab import BreakerRegistry, CircuitBreaker, GrpcRetryThrottle, SreRetryBudget, State

THREADS = 16


@pytest.fixture
def fast_switching() -> Iterator[None]:
    old = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)
    try:
        yield
    finally:
        sys.setswitchinterval(old)


def _run(work: Callable[[int], None]) -> None:
    """Run ``work(i)`` on 16 threads started together; re-raise the first failure."""
    start = threading.Barrier(THREADS)
    errors: list[BaseException] = []

    def body(i: int) -> None:
        try:
            start.wait()
            work(i)
        except BaseException as e:  # reported below
            errors.append(e)

    threads = [threading.Thread(target=body, args=(i,)) for i in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=30)
    assert not any(t.is_alive() for t in threads)
    if errors:
        raise errors[0]


@pytest.mark.usefixtures("fast_switching")
def test_half_open_never_admits_more_trials_than_allowed() -> None:
    most = 0
    for _ in range(40):
        cb = CircuitBreaker(threshold=1, cooldown=100, half_open_max_calls=1)
        cb.record(False, 0)
        admitted: list[bool] = []

        def ask(_: int, cb: CircuitBreaker = cb, admitted: list[bool] = admitted) -> None:
            for _ in range(20):
                if cb.allow(150):
                    admitted.append(True)

        _run(ask)
        most = max(most, len(admitted))
        assert len(admitted) == 1 and cb.trials_in_flight == 1
    assert most == 1


@pytest.mark.usefixtures("fast_switching")
def test_transition_log_stays_a_chain() -> None:
    cb = CircuitBreaker(threshold=2, cooldown=0, half_open_max_calls=2)

    def churn(i: int) -> None:
        for k in range(3000):
            if cb.allow(k):
                cb.record((i + k) % 3 == 0, k)

    _run(churn)
    log = cb.transitions
    assert len(log) > 10
    assert len(log) == log.maxlen or log[0].source is State.CLOSED  # bounded: oldest dropped
    for a, b in itertools.pairwise(log):
        assert a.target is b.source and a.source is not a.target
    assert log[-1].target is cb.state
    assert cb.trials_in_flight <= 2


@pytest.mark.usefixtures("fast_switching")
def test_registry_hands_out_one_breaker_per_endpoint() -> None:
    reg = BreakerRegistry(threshold=1, cooldown=1000)
    seen: list[dict[str, int]] = [{} for _ in range(THREADS)]

    def get_all(i: int) -> None:
        for k in range(200):
            seen[i][f"GET /e{k}"] = id(reg.get(f"GET /e{k}"))

    _run(get_all)
    for key in seen[0]:
        assert len({s[key] for s in seen}) == 1, key
    assert len(reg.states()) == 200


@pytest.mark.usefixtures("fast_switching")
def test_throttle_tokens_are_exact_after_balanced_outcomes() -> None:
    throttle = GrpcRetryThrottle(max_tokens=1000, token_ratio=1)

    def balanced(_: int) -> None:
        for _ in range(400):
            throttle.on_outcome(False)  # each success follows its own failure,
            throttle.on_outcome(True)  # so the count never hits the top clip

    _run(balanced)
    assert throttle.tokens == 1000.0


@pytest.mark.usefixtures("fast_switching")
def test_sre_budget_counts_every_request() -> None:
    budget = SreRetryBudget()

    def send(_: int) -> None:
        for k in range(2000):
            budget.on_request(first_try=k % 2 == 0)
            budget.on_outcome(True)

    _run(send)
    assert (budget.requests, budget.retries, budget.successes) == (
        THREADS * 2000,
        THREADS * 1000,
        THREADS * 2000,
    )
