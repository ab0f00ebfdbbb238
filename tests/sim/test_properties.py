"""Invariants of the core, checked on many generated cases (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab import (
    Backoff,
    CircuitBreaker,
    Mulberry32,
    Outcome,
    RetryPolicy,
    State,
    should_retry,
)

jitters = st.sampled_from(["none", "full", "equal", "decorrelated", "proportional"])
growths = st.sampled_from(["exponential", "linear", "constant"])


@st.composite
def backoffs(draw: st.DrawFn) -> Backoff:
    base = draw(st.integers(1, 10_000))
    cap = draw(st.integers(base, 100_000))
    factor = draw(st.sampled_from([1, 1.5, 2, 3, 10]))
    return Backoff(base, factor, cap, jitter=draw(jitters), growth=draw(growths))


@given(backoffs(), st.integers(0, 2**32 - 1))
@settings(max_examples=200, deadline=None)
def test_waits_within_zero_and_cap(b: Backoff, seed: int) -> None:
    it = b.waits(Mulberry32(seed))
    waits = [next(it) for _ in range(30)]
    assert b.cap is not None
    assert all(0 <= w <= b.cap for w in waits)
    if b.jitter == "decorrelated":
        assert all(b.base <= w for w in waits)
    if b.jitter == "none":
        assert waits == [b.ceiling(n) for n in range(30)]


@given(backoffs(), st.integers(0, 2**32 - 1), st.integers(1, 12), st.integers(0, 300))
@settings(max_examples=100, deadline=None)
def test_vector_wakeups_equal_scalar_schedule(
    b: Backoff, seed: int, attempt: int, clients: int
) -> None:
    from retrylab import wakeups

    if b.jitter == "decorrelated":
        return  # drawn round by round; checked in test_herd
    w = wakeups(b, clients, attempt, Mulberry32(seed))
    rng = Mulberry32(seed)
    expected = [
        b.next_wait(attempt - 1, rng() if b.jitter != "none" else 0.0) for _ in range(clients)
    ]
    assert w.tolist() == expected


@given(st.integers(0, 2**32 - 1), st.integers(0, 5000))
@settings(max_examples=100, deadline=None)
def test_scalar_and_vector_draws_agree(seed: int, n: int) -> None:
    a, b = Mulberry32(seed), Mulberry32(seed)
    assert np.array_equal(a.random(n), np.array([b() for _ in range(n)], dtype=float))
    assert a() == b()


methods = st.sampled_from(["POST", "PATCH", "post", "PUT", "DELETE", "CONNECT"])
outcomes = st.sampled_from(
    [
        Outcome.network(),
        Outcome.http(503),
        Outcome.http(429),
        Outcome.http(404),
        Outcome.body(),
        Outcome.cancelled(),
    ]
)


@given(methods, st.lists(outcomes, min_size=1, max_size=8), st.integers(1, 8))
def test_post_without_key_never_retried_after_network_error(
    method: str, script: list[Outcome], max_attempts: int
) -> None:
    assert not should_retry(Outcome.network(), method)
    answers = iter([*script, *[Outcome.http(503)] * 10])
    r = RetryPolicy(max_attempts=max_attempts).run(
        lambda: next(answers), method, Mulberry32(1), sleep=None
    )
    for a in r.history[:-1]:
        assert a.outcome.kind != "network"
    assert 1 <= r.attempts <= max_attempts
    assert len(r.waits) == r.attempts - 1


events = st.lists(
    st.tuples(st.sampled_from(["allow", "ok", "fail"]), st.integers(0, 3000)), max_size=80
)


@given(st.integers(1, 5), st.integers(0, 5000), st.integers(1, 3), events)
@settings(max_examples=300)
def test_breaker_never_lets_a_call_through_while_open(
    threshold: int, cooldown: int, trials: int, ops: list[tuple[str, int]]
) -> None:
    cb = CircuitBreaker(threshold, cooldown, half_open_max_calls=trials)
    now = 0
    admitted_in_half_open = 0
    for op, dt in ops:
        now += dt
        if op == "allow":
            was_open = cb.state is State.OPEN
            cooled = was_open and cb.retry_in(now) == 0
            moves = len(cb.transitions)
            allowed = cb.allow(now)
            if was_open and not cooled:
                assert not allowed
            if len(cb.transitions) != moves:  # a lost trial's lease ended: a new round
                admitted_in_half_open = 0
            if cb.state is State.HALF_OPEN and allowed:
                admitted_in_half_open += 1
                assert admitted_in_half_open <= trials
            if cb.state is not State.HALF_OPEN:
                admitted_in_half_open = 0
        else:
            before = cb.state
            cb.record(op == "ok", now)
            if before is State.HALF_OPEN and op == "fail":
                assert cb.state is State.OPEN
            if cb.state is not State.HALF_OPEN:
                admitted_in_half_open = 0
        assert cb.retry_in(now) <= cooldown + cb.trial_timeout
