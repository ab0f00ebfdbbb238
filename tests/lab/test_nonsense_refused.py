"""Nonsense given to the core and the newer modules is refused by name (issue 21, item 10).

One kind of error for one kind of mistake: a wrong type is a TypeError (the
ArgumentTypeError, which is a ValueError too, for older callers), a value
out of its range a ValueError; each message names the argument.
"""

from __future__ import annotations

import copy
import math

import pytest

from retrylab import (
    CircuitBreaker,
    HedgingPolicy,
    Outcome,
    RateBreaker,
    RetryPolicy,
    State,
    TokenBucket,
    decide,
    production_rule,
    sre_reject_probability,
)

NAN = float("nan")


def test_a_wrong_type_is_a_type_error_that_older_callers_still_catch() -> None:
    from retrylab import ArgumentTypeError

    assert issubclass(ArgumentTypeError, TypeError) and issubclass(ArgumentTypeError, ValueError)
    with pytest.raises(TypeError, match=r"max_attempts='4' is out of range: .*not a str"):
        RetryPolicy(max_attempts="4")  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"max_attempts=0 is out of range"):
        RetryPolicy(max_attempts=0)


def test_ratebreaker_record_refuses_a_string_result() -> None:
    # before: "failed" is a non-empty string, so it counted as a success
    b = RateBreaker(window_size=2, minimum_calls=2)
    with pytest.raises(TypeError, match=r"success='failed' is not a bool"):
        b.record("failed", 0)  # type: ignore[arg-type]


@pytest.mark.parametrize("call", ["allow", "record", "retry_in", "failure_rate", "release"])
def test_ratebreaker_refuses_a_nan_clock(call: str) -> None:
    b = RateBreaker()
    args = (True, NAN) if call == "record" else (NAN,)
    with pytest.raises(ValueError, match=r"now=nan is out of range"):
        getattr(b, call)(*args)
    with pytest.raises(TypeError, match=r"now='5' is out of range"):
        getattr(b, call)(*((True, "5") if call == "record" else ("5",)))


def test_ratebreaker_retry_in_is_positive_while_it_refuses() -> None:
    # before: half-open with every trial out, allow() refused and retry_in() said 0
    b = RateBreaker(window_size=2, minimum_calls=2, half_open_calls=1, wait_in_open=100)
    b.record(False, 0)
    b.record(False, 1)
    assert b.state is State.OPEN
    for t in (1, 50, 101):
        assert not b.allow(t) and b.retry_in(t) > 0
    assert b.allow(102) and b.state is State.HALF_OPEN
    assert not b.allow(103) and b.retry_in(103) > 0
    b2 = RateBreaker(
        window_size=2,
        minimum_calls=2,
        half_open_calls=1,
        wait_in_open=100,
        max_wait_in_half_open=500,
    )
    b2.record(False, 0)
    b2.record(False, 1)
    assert b2.allow(102) and not b2.allow(103)
    assert b2.retry_in(103) == 102 + 500 + 100 + 1 - 103


def test_ratebreaker_can_release_a_lost_trial() -> None:
    b = RateBreaker(window_size=2, minimum_calls=2, half_open_calls=1, wait_in_open=100)
    b.record(False, 0)
    b.record(False, 1)
    assert b.allow(102) and not b.allow(103)  # the one trial is out, and lost
    b.release(104)
    assert b.allow(105) and b.state is State.HALF_OPEN
    b.release(106)
    b.release(107)  # nothing more in flight: no extra permit
    assert b.allow(108) and not b.allow(109)


def test_hedging_policy_refuses_one_string_of_codes() -> None:
    # before: "UNAVAILABLE" became the codes "U", "N", "A", ...
    with pytest.raises(
        TypeError,
        match=r"non_fatal_status_codes='UNAVAILABLE' is out of "
        r"range",
    ):
        HedgingPolicy(non_fatal_status_codes="UNAVAILABLE")  # type: ignore[arg-type]
    with pytest.raises(TypeError, match=r"non_fatal_status_codes"):
        HedgingPolicy(non_fatal_status_codes=(1, 2))  # type: ignore[arg-type]
    assert HedgingPolicy(non_fatal_status_codes=["UNAVAILABLE"]).non_fatal_status_codes == (
        "UNAVAILABLE",
    )


@pytest.mark.parametrize("fn", [decide, production_rule])
def test_an_idempotency_key_given_as_text_is_refused(fn: object) -> None:
    # before: "False" is a non-empty string, so the write counted as keyed
    with pytest.raises(TypeError, match=r"idempotency_key='False' is out of range"):
        fn(Outcome.network(), "POST", "False")  # type: ignore[operator]


def test_policy_run_refuses_an_idempotency_key_given_as_text() -> None:
    with pytest.raises(TypeError, match=r"idempotency_key='False'"):
        RetryPolicy().run(Outcome.network, "POST", idempotency_key="False", sleep=None)  # type: ignore[arg-type]


def test_token_bucket_refuses_a_negative_amount() -> None:
    # before: acquire(now, -5) raised the level above the capacity
    b = TokenBucket(max_rate=2.0, now=0)
    with pytest.raises(ValueError, match=r"amount=-5 is out of range"):
        b.acquire(0, amount=-5)
    with pytest.raises(ValueError, match=r"now=nan is out of range"):
        b.acquire(NAN)
    assert b.capacity <= b.max_capacity


def test_sre_reject_probability_refuses_negative_counts() -> None:
    # before: (-1, 0) divided by zero
    with pytest.raises(ValueError, match=r"requests=-1 is out of range"):
        sre_reject_probability(-1, 0)
    with pytest.raises(ValueError, match=r"accepts=nan is out of range"):
        sre_reject_probability(1, NAN)
    assert sre_reject_probability(0, 0) == 0.0


def test_production_rule_refuses_a_status_for_an_outcome() -> None:
    # before: an AttributeError ('str' object has no attribute 'kind')
    with pytest.raises(TypeError, match=r"outcome='503' is not an Outcome"):
        production_rule("503", "GET")  # type: ignore[arg-type]


def test_copy_of_a_breaker_has_its_own_trials_and_log() -> None:
    # before: copy.copy shared the trial list, so a trial in the copy filled the original
    cb = CircuitBreaker(threshold=1, cooldown=10)
    cb.record(False, 0)
    twin = copy.copy(cb)
    assert twin.allow(10) and twin.trials_in_flight == 1
    assert cb.trials_in_flight == 0 and cb.state is State.OPEN
    assert len(cb.transitions) == 1 and len(twin.transitions) == 2
    assert twin._lock is not cb._lock


def test_breaker_transitions_are_bounded() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=0)
    maxlen = cb.transitions.maxlen
    assert maxlen is not None
    for t in range(maxlen):  # each failure then cooldown 0: two moves a step
        cb.allow(t)
        cb.record(False, t)
    assert len(cb.transitions) == maxlen
    rb = RateBreaker()
    assert rb.transitions.maxlen == maxlen


def test_check_int_refuses_huge_text_without_printing_it() -> None:
    with pytest.raises(TypeError) as info:
        RetryPolicy(max_attempts="9" * 5000)  # type: ignore[arg-type]
    assert len(str(info.value)) < 300 and "5002 characters" in str(info.value)
    assert math.isfinite(1.0)


def test_an_endless_virtual_sleep_is_refused_not_spun() -> None:
    # before: the virtual clock jumped a day at a time, for ever, at 100% CPU
    from retrylab.lab.virtualtime import run_virtual, sleep_ms

    with pytest.raises(ValueError, match=r"ms=inf is out of range"):
        run_virtual(sleep_ms(float("inf")))  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"ms=-1 is out of range"):
        run_virtual(sleep_ms(-1))

    async def forever() -> None:
        import asyncio

        await asyncio.sleep(float("inf"))

    with pytest.raises(RuntimeError, match="wait forever"):
        run_virtual(forever())


def test_huge_sizes_are_refused_before_any_memory_is_taken() -> None:
    from retrylab import Mulberry32, bucket_counts, contention

    with pytest.raises(ValueError, match=r"n=1000000000000 is out of range.*size limit"):
        Mulberry32(1).random(10**12)
    with pytest.raises(ValueError, match=r"clients \* runs .* is out of range.*size limit"):
        contention(10000, "full", runs=100000)
    with pytest.raises(ValueError, match=r"buckets.*size limit.*larger width"):
        bucket_counts([0, 10**12], width=1)
    assert bucket_counts([0, 10**12], width=10**6).tolist() == [1, 1]
