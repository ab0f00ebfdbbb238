"""A half-open trial holds a lease, every exit of call() gives its slot back, and
the clock and the result are checked: no breaker is stuck half-open or open forever."""

from __future__ import annotations

import asyncio
import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab import BreakerOpen, CircuitBreaker, State


def _half_open(cooldown: int = 1000, **kwargs: int) -> CircuitBreaker:
    cb = CircuitBreaker(threshold=1, cooldown=cooldown, **kwargs)
    cb.record(False, 0)
    return cb


# -- item 6: stuck half-open ----------------------------------------------------------


def test_a_trial_never_recorded_loses_its_lease() -> None:
    cb = _half_open()
    assert cb.allow(1000)  # the trial: its result never comes
    assert not cb.allow(1500) and cb.retry_in(1500) == 1500  # 1000 + 1000 + 1000 - 1500
    # before: allow() was False at any later time while retry_in() said 0
    assert not cb.allow(2000) and cb.state is State.OPEN  # lease over: open again
    assert cb.transitions[-1].reason == "trial not recorded within 1000 ms"
    assert cb.retry_in(2000) == 1000
    assert cb.allow(3000) and cb.state is State.HALF_OPEN  # a new trial


def test_trial_timeout_is_its_own_setting() -> None:
    cb = _half_open(cooldown=1000, trial_timeout=200)
    assert cb.allow(1000) and not cb.allow(1100)
    assert cb.retry_in(1100) == 1100  # lease ends at 1200, then a 1000 ms cooldown
    assert not cb.allow(1200) and cb.allow(2200)
    with pytest.raises(ValueError, match=r"trial_timeout=0 is out of range"):
        CircuitBreaker(trial_timeout=0)
    assert CircuitBreaker(cooldown=0).trial_timeout == 1


@pytest.mark.parametrize(
    "error", [KeyboardInterrupt, SystemExit, asyncio.CancelledError, GeneratorExit]
)
def test_call_gives_the_slot_back_on_any_exit(error: type[BaseException]) -> None:
    cb = _half_open()

    def interrupted() -> str:
        raise error()

    with pytest.raises(error):
        cb.call(interrupted, 1000)
    # before: the slot stayed taken and every later call was refused ("allowed in 0 ms")
    assert cb.state is State.HALF_OPEN and cb.trials_in_flight == 0
    assert cb.call(lambda: "sent", 1001) == "sent" and cb.state is State.CLOSED


def test_a_cancelled_task_between_allow_and_record_does_not_wedge_the_breaker() -> None:
    cb = _half_open()

    async def guarded() -> None:
        if cb.allow(1000):
            await asyncio.sleep(10)  # cancelled here: record() never runs
            cb.record(True, 1000)

    async def main() -> None:
        task = asyncio.create_task(guarded())
        await asyncio.sleep(0)
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert not cb.allow(1999)
    assert cb.allow(3000)  # the lease ended at 2000, cooldown to 3000


def test_breaker_open_never_says_zero_ms() -> None:
    cb = _half_open()
    cb.allow(1000)
    with pytest.raises(BreakerOpen) as info:
        cb.call(lambda: 1, 1200)
    assert info.value.retry_in == 1800 and "in 0 ms" not in str(info.value)
    assert str(info.value).startswith("circuit half-open: no request sent")


ops = st.lists(
    st.tuples(
        st.sampled_from(["allow", "ok", "fail", "release", "call_ok", "call_fail", "call_cancel"]),
        st.integers(-50, 3000),
    ),
    max_size=60,
)


@given(
    st.integers(1, 4),
    st.integers(0, 3000),
    st.integers(1, 3),
    st.none() | st.integers(1, 3000),
    ops,
)
@settings(max_examples=400, deadline=None)
def test_retry_in_is_positive_exactly_when_allow_refuses(
    threshold: int, cooldown: int, trials: int, lease: int | None, steps: list[tuple[str, int]]
) -> None:
    cb = CircuitBreaker(threshold, cooldown, half_open_max_calls=trials, trial_timeout=lease)
    now = 0
    for op, dt in steps:
        now += dt  # the clock may even step back a little
        wait = cb.retry_in(now)
        if op == "allow":
            assert cb.allow(now) == (wait == 0)
        elif op in ("ok", "fail"):
            cb.record(op == "ok", now)
        elif op == "release":
            cb.release(now)
        else:

            def fn(op: str = op) -> bool:
                if op == "call_cancel":
                    raise asyncio.CancelledError
                return op == "call_ok"

            try:
                cb.call(fn, now, is_failure=lambda ok: not ok)
                assert wait == 0
            except BreakerOpen as refused:
                assert wait > 0 and refused.retry_in == wait
                assert "in 0 ms" not in str(refused)
            except asyncio.CancelledError:
                assert wait == 0
        assert cb.trials_in_flight <= trials


# -- item 8: a bad clock or a bad result --------------------------------------------------


@pytest.mark.parametrize("now", [math.nan, math.inf, -math.inf, 1.5, "100", None, True])
def test_a_bad_clock_is_refused_by_name(now: object) -> None:
    cb = CircuitBreaker(threshold=1, cooldown=1000)
    with pytest.raises(
        ValueError,
        match=r"now=.* is out of range: now must be a whole "
        r"number of ms",
    ):
        cb.record(False, now)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"now=.* is out of range"):
        cb.allow(now)  # type: ignore[arg-type]
    with pytest.raises(ValueError, match=r"now=.* is out of range"):
        cb.retry_in(now)  # type: ignore[arg-type]
    # before: record(False, nan) opened it at nan, and it refused every call forever
    assert cb.state is State.CLOSED and cb.allow(5)


def test_integer_clocks_of_any_kind_are_accepted() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=1000)
    cb.record(np.bool_(False), np.int64(0))
    assert not cb.allow(999.0) and cb.allow(np.int32(1000))


@pytest.mark.parametrize("success", ["failed", "ok", 0, 1, None, 0.0, [False]])
def test_a_result_that_is_not_a_bool_is_a_type_error(success: object) -> None:
    cb = _half_open()
    cb.allow(1000)
    with pytest.raises(TypeError, match=r"success=.* is not a bool: pass True for a success"):
        cb.record(success, 1000)  # type: ignore[arg-type]
    # before: record("failed", now) closed the breaker
    assert cb.state is State.HALF_OPEN


# -- a call gives back only its own trial slot ---------------------------------------------


def test_a_cancelled_call_admitted_while_closed_frees_no_trial() -> None:
    cb = CircuitBreaker(threshold=1, cooldown=1000, half_open_max_calls=1)

    def cancelled_after_the_breaker_opened() -> None:
        cb.record(False, 150)  # another call fails: open
        assert cb.allow(1200)  # the cooldown is over: B is the one trial
        raise asyncio.CancelledError  # A, let through at 100 while closed, ends

    with pytest.raises(asyncio.CancelledError):
        cb.call(cancelled_after_the_breaker_opened, 100)
    # before: A's release freed B's slot and a second trial went through
    assert cb.trials_in_flight == 1 and not cb.allow(1201)
    cb.release(100)  # by hand, with A's time: still not B's
    assert cb.trials_in_flight == 1 and not cb.allow(1202)
    cb.release(1200)  # B's own time gives B's slot back
    assert cb.trials_in_flight == 0 and cb.allow(1203)
