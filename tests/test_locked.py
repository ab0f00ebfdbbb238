"""The thread-safe objects copy and pickle: a lock must not make them unsendable.

The prefetch worker of the explorers sends its results back by pickle, and a
fleet result holds its budget: before, ``pickle.dumps`` of a result with a
gRPC throttle raised ``cannot pickle '_thread.lock' object`` and every budget
setting was computed in the kernel instead (229 ms a key press in the storm).
"""

from __future__ import annotations

import copy
import pickle
import threading
from collections import deque
from typing import Any

import pytest

from retrylab.core.breaker import BreakerRegistry, CircuitBreaker
from retrylab.core.budget import GrpcRetryThrottle, SreRetryBudget
from retrylab.core.ratebreaker import RateBreaker
from retrylab.core.throttle import AdaptiveRateLimiter, RateClocker, SreThrottle, TokenBucket


def _used(obj: Any) -> Any:
    """``obj`` after some calls, so the copy has state to keep."""
    if isinstance(obj, GrpcRetryThrottle):
        for _ in range(3):
            obj.on_outcome(False)
    elif isinstance(obj, SreRetryBudget):
        obj.on_request(True)
        obj.on_request(False)
    elif isinstance(obj, CircuitBreaker):
        for _ in range(3):
            obj.record(False, 100)
    elif isinstance(obj, RateBreaker):
        for i in range(5):
            obj.record(False, 10 * i)
    elif isinstance(obj, SreThrottle):
        obj.request(5)
        obj.accepted(6)
    elif isinstance(obj, TokenBucket):
        obj.acquire(10)
    elif isinstance(obj, RateClocker):
        obj.record(250)
    elif isinstance(obj, AdaptiveRateLimiter):
        obj.on_response(True, 100)
    elif isinstance(obj, BreakerRegistry):
        obj.get("POST /measurements").record(False, 0)
        obj.get("GET /stations").record(True, 0)
    return obj


OBJECTS = [
    GrpcRetryThrottle(10, 0.1), SreRetryBudget(), CircuitBreaker(3, 5000), RateBreaker(),
    SreThrottle(), TokenBucket(5.0), RateClocker(), AdaptiveRateLimiter(),
    BreakerRegistry(threshold=1),
]


def _state(obj: Any) -> Any:
    """Everything in ``obj`` but its locks, as plain values (nested objects too)."""
    if hasattr(obj, "__dict__") and not isinstance(obj, type):
        return (type(obj).__name__,
                {k: _state(v) for k, v in vars(obj).items() if k != "_lock"})
    if isinstance(obj, dict):
        return {k: _state(v) for k, v in obj.items()}
    if isinstance(obj, list | tuple | deque):
        return [_state(v) for v in obj]
    return obj


@pytest.mark.parametrize("obj", OBJECTS, ids=lambda o: type(o).__name__)
@pytest.mark.parametrize("how", ["pickle", "deepcopy", "copy"])
def test_a_locked_object_copies_with_its_state_and_a_lock_of_its_own(obj: Any,
                                                                      how: str) -> None:
    original = _used(copy.deepcopy(obj))
    clone = {"pickle": lambda o: pickle.loads(pickle.dumps(o)), "deepcopy": copy.deepcopy,
             "copy": copy.copy}[how](original)
    assert type(clone) is type(original)
    assert _state(clone) == _state(original)
    assert clone._lock is not original._lock
    assert type(clone._lock) is type(original._lock)
    with original._lock:  # the original held: the copy's lock is free
        assert clone._lock.acquire(blocking=False)
        clone._lock.release()


def test_the_breaker_copy_keeps_a_reentrant_lock() -> None:
    clone = pickle.loads(pickle.dumps(CircuitBreaker(3, 5000)))
    assert type(clone._lock) is type(threading.RLock())
    assert clone.allow(0)   # allow() takes the lock inside call paths that hold it


def test_a_copy_taken_while_another_thread_changes_the_object_is_whole() -> None:
    throttle = GrpcRetryThrottle(1000, 0.5)
    stop = threading.Event()

    def churn() -> None:
        while not stop.is_set():
            throttle.on_outcome(False)
            throttle.on_outcome(True)

    worker = threading.Thread(target=churn)
    worker.start()
    try:
        for _ in range(200):
            clone = pickle.loads(pickle.dumps(throttle))
            assert 0 <= clone.tokens <= 1000 and clone._milli % 500 == 0
    finally:
        stop.set()
        worker.join()
