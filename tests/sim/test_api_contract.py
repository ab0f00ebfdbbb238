"""The public API contract of ../shared/DESIGN.md, called exactly as written there."""

from __future__ import annotations

import numpy as np

from retrylab import (
    Backoff,
    CircuitBreaker,
    Mulberry32,
    Outcome,
    RetryPolicy,
    State,
    contention,
    should_retry,
    wakeups,
)


def test_generator() -> None:
    rng = Mulberry32(20260114)
    x = rng()
    assert 0 <= x < 1
    arr = rng.random(5)
    assert isinstance(arr, np.ndarray) and arr.shape == (5,)


def test_backoff() -> None:
    b = Backoff(base=200, factor=2, cap=5000, jitter="full")
    assert b.ceiling(0) == 200 and b.ceiling(5) == 5000
    waits = b.waits(Mulberry32(20260114))
    assert [next(waits) for _ in range(2)] == [70, 184]
    for jitter in ("none", "full", "equal", "decorrelated", "proportional"):
        Backoff(200, 2, 5000, jitter=jitter)  # type: ignore[arg-type]


def test_outcomes_and_decision() -> None:
    outcomes = [
        Outcome.success(data=None),
        Outcome.http(503, retry_after=None),
        Outcome.network(),
        Outcome.body(),
        Outcome.cancelled(),
    ]
    assert [o.kind for o in outcomes] == ["success", "http", "network", "body", "cancelled"]
    assert should_retry(Outcome.http(503), "GET", idempotency_key=False)


def test_policy() -> None:
    answers = iter([Outcome.http(429, retry_after=2), Outcome.success()])
    slept: list[int] = []
    policy = RetryPolicy(max_attempts=4, backoff=Backoff(200, 2, 5000, jitter="full"))
    result = policy.run(
        lambda: next(answers), method="GET", rng=Mulberry32(20260114), sleep=slept.append
    )
    assert (result.attempts, result.waits, result.outcome.kind) == (2, (2000,), "success")
    assert slept == [2000]


def test_breaker() -> None:
    cb = CircuitBreaker(threshold=3, cooldown=5000)
    assert cb.allow(0) is True
    assert cb.record(False, 0) == "closed"
    assert isinstance(cb.state, State) and cb.state == "closed"


def test_wakeups_and_contention() -> None:
    w = wakeups(Backoff(200, 2, 5000, jitter="full"), 24, 3, Mulberry32(20260114))
    assert w.dtype.kind == "i" and len(w) == 24 and w.max() <= 800
    r = contention(10, "full", runs=10, seed=0)
    assert r.calls > 10 and r.time_ms > 0
