"""The checkers of notebook 03: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

from retrylab import Backoff, RetryPolicy, StopReason
from retrylab.exercises.ex03 import (
    check_give_up_reason,
    check_refresh_policy,
    check_waits,
    loop_waits,
)


def test_waits() -> None:
    assert loop_waits() == [2000, 2600, 70, 900]
    assert check_waits([2000, 2600, 70, 900]).correct
    assert check_waits((2000.0, 2600, 70, 900)).correct
    fb = check_waits([184, 2600, 70, 900])
    assert fb.message.startswith("pair 1 (backoff 184 ms, Retry-After 2 s) waits 2000 ms, "
                                 "not 184")
    fb = check_waits([2000, 2600, 0, 900])
    assert fb.message.startswith("pair 3 (backoff 70 ms, no Retry-After) waits 70 ms")
    assert "give one for each of the 4" in check_waits([2000]).message
    assert "four whole numbers" in check_waits(["soon"] * 4).message
    assert not check_waits(...).answered


def test_give_up_reason() -> None:
    assert check_give_up_reason("retry_after_too_long").correct
    assert check_give_up_reason(StopReason.RETRY_AFTER_TOO_LONG).correct
    assert "checks Retry-After against max_retry_after first" in \
        check_give_up_reason("time_budget").message
    assert "compare it with 30 s" in check_give_up_reason("max_attempts").message
    assert "give one of 'success'" in check_give_up_reason("tired").message
    assert not check_give_up_reason(None).answered


def test_refresh_policy() -> None:
    assert check_refresh_policy(RetryPolicy(max_attempts=3)).correct
    assert check_refresh_policy(RetryPolicy(time_budget=500)).correct
    assert check_refresh_policy(RetryPolicy(backoff=Backoff(50, 2, 100))).correct
    fb = check_refresh_policy(RetryPolicy())
    assert fb.message.startswith("when the station stays down the loop waits [70, 184, 592] "
                                 "ms: 846 ms in all, more than 500")
    fb = check_refresh_policy(RetryPolicy(max_attempts=2))
    assert fb.message.startswith("against two 503s and then the data the loop stopped with "
                                 "max_attempts after 2 attempt(s)")
    assert "give a RetryPolicy" in check_refresh_policy(3).message
    assert not check_refresh_policy(...).answered
