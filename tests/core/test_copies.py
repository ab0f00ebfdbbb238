"""copy.copy, copy.deepcopy and pickle of the core's stateful objects: independent copies,
each with a lock of its own (before: shared window and lock, or a TypeError)."""

from __future__ import annotations

import copy
import pickle
import threading
from collections.abc import Callable
from typing import Any

import pytest

from retrylab import CircuitBreaker, State
from retrylab.core.breaker import BreakerRegistry
from retrylab.core.budget import GrpcRetryThrottle, SreRetryBudget
from retrylab.core.ratebreaker import RateBreaker, RateWindow
from retrylab.core.throttle import AdaptiveRateLimiter, SreThrottle, TokenBucket

COPIES: dict[str, Callable[[Any], Any]] = {
    "copy": copy.copy,
    "deepcopy": copy.deepcopy,
    "pickle": lambda x: pickle.loads(pickle.dumps(x)),
}


@pytest.fixture(params=sorted(COPIES))
def twin(request: pytest.FixtureRequest) -> Callable[[Any], Any]:
    return COPIES[request.param]


def test_a_rate_breaker_copy_has_its_own_window(twin: Callable[[Any], Any]) -> None:
    b = RateBreaker(window_size=4, minimum_calls=4, wait_in_open=100)
    b.record(True, 0)
    c = twin(b)
    for t in range(1, 5):
        c.record(False, t)
    # before (copy): the original's window held the copy's 4 failures too
    assert c.state is State.OPEN and b.state is State.CLOSED
    assert b.failure_rate(5) == -1.0 and c.failure_rate(5) == 100.0
    assert c._lock is not b._lock and isinstance(c._lock, type(b._lock))


def test_a_circuit_breaker_copy_is_independent(twin: Callable[[Any], Any]) -> None:
    cb = CircuitBreaker(threshold=1, cooldown=10)
    cb.record(False, 0)
    c = twin(cb)
    assert c.allow(10) and c.trials_in_flight == 1
    assert cb.trials_in_flight == 0 and cb.state is State.OPEN
    assert len(c.transitions) == 2 and len(cb.transitions) == 1
    with c._lock, c._lock:  # still reentrant: call() holds it while it asks allow
        pass


def test_a_registry_copy_has_copies_of_its_breakers(twin: Callable[[Any], Any]) -> None:
    reg = BreakerRegistry(threshold=1)
    reg.get("GET /a")
    c = twin(reg)
    c.get("GET /a").record(False, 0)
    c.get("GET /b")
    assert reg.states() == {"GET /a": State.CLOSED}
    assert c.states() == {"GET /a": State.OPEN, "GET /b": State.CLOSED}


def test_budgets_and_throttles_copy_independently(twin: Callable[[Any], Any]) -> None:
    grpc = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
    g = twin(grpc)
    for _ in range(6):
        g.on_outcome(False)
    assert grpc.can_retry() and not g.can_retry() and g._lock is not grpc._lock
    sre = SreRetryBudget()
    s = twin(sre)
    s.on_request(first_try=True)
    assert s._lock is not sre._lock and s != sre
    for obj in (SreThrottle(), TokenBucket(1.0, 0), AdaptiveRateLimiter(0)):
        other = twin(obj)
        assert other._lock is not obj._lock and type(other) is type(obj)
    limiter = AdaptiveRateLimiter(0)
    assert twin(limiter).bucket is not limiter.bucket


def test_a_window_copy_does_not_share_its_calls() -> None:
    w = RateWindow("count", size=3, minimum=1)
    w.add(True, False, now=0)
    c = copy.copy(w)
    c.add(False, False, now=0)
    assert w.calls(0) == 1 and c.calls(0) == 2


def test_copies_work_while_other_threads_use_the_original() -> None:
    b = RateBreaker(window_size=50, minimum_calls=50)
    stop = threading.Event()

    def busy() -> None:
        t = 0
        while not stop.is_set():
            t += 1
            b.record(t % 3 == 0, t)

    worker = threading.Thread(target=busy)
    worker.start()
    try:
        for _ in range(50):
            pickle.loads(pickle.dumps(b))
            copy.copy(b)
    finally:
        stop.set()
        worker.join()
