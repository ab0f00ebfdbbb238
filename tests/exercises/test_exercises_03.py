"""The checkers of notebook 03: right, wrong (with the specific hint) and unanswered."""

from __future__ import annotations

from retrylab import Backoff, RetryPolicy, StopReason
from retrylab.exercises.ex03 import (
    _loop_waits,
    check_give_up_reason,
    check_refresh_policy,
    check_waits,
)


def test_waits() -> None:
    assert _loop_waits() == [2000, 2600, 70, 900]
    assert check_waits([2000, 2600, 70, 900]).correct
    assert check_waits((2000.0, 2600, 70, 900)).correct
    fb = check_waits([184, 2600, 70, 900])
    assert "that is the backoff alone" in fb.message
    fb = check_waits([184, 2600, 71, 900])
    assert fb.message.startswith("pair 1 (backoff 184 ms, Retry-After 2 s) waits 2000 ms, not 184")
    fb = check_waits([2000, 2600, 0, 900])
    assert fb.message.startswith("pair 3 (backoff 70 ms, no Retry-After) waits 70 ms")
    assert "give one for each of the 4" in check_waits([2000]).message
    assert "four whole numbers" in check_waits(["soon"] * 4).message
    assert not check_waits(...).answered


def test_give_up_reason() -> None:
    """Exercise 3 asks about Retry-After: 2 (the page shows 30 s stopping at once)."""
    assert check_give_up_reason("time_budget").correct
    assert check_give_up_reason(StopReason.TIME_BUDGET).correct
    assert (
        "would be right for Retry-After: 30" in check_give_up_reason("retry_after_too_long").message
    )
    assert "stops before the third attempt" in check_give_up_reason("max_attempts").message
    assert "answers 503 every time" in check_give_up_reason("success").message
    assert check_give_up_reason("Time budget").correct
    assert "give one of 'success'" in check_give_up_reason("tired").message
    assert not check_give_up_reason(None).answered


def test_refresh_policy() -> None:
    assert check_refresh_policy(RetryPolicy(3, Backoff(100, 2, 5000, jitter="full"))).correct
    assert check_refresh_policy(RetryPolicy(3, Backoff(200, 2, 250, jitter="full"))).correct
    assert check_refresh_policy(RetryPolicy(backoff=Backoff(50, 2, 100))).correct
    fb = check_refresh_policy(RetryPolicy())
    assert fb.message.startswith(
        "with the highest possible draws, the default backoff "
        "(base 200 ms, factor 2) waits [200, 400, 800] ms"
    )
    fb = check_refresh_policy(RetryPolicy(3, Backoff(250, 2, 5000, jitter="full")))
    assert fb.message.startswith(
        "with the highest possible draws, when the station stays "
        "down the loop waits [250, 500] ms: 750 ms in all"
    )
    # a time budget alone cuts the good case short when the draws are high
    fb = check_refresh_policy(RetryPolicy(time_budget=500))
    assert fb.message.startswith("with the highest possible draws, against two 503s")
    fb = check_refresh_policy(RetryPolicy(max_attempts=2))
    assert fb.message.startswith(
        "with the highest possible draws, against two 503s and then "
        "the data the loop stopped with max_attempts after 2 "
        "attempt(s)"
    )
    fb = check_refresh_policy(RetryPolicy(max_attempts=1000, backoff=Backoff(1, 1, 1)))
    assert "more than 100 requests" in fb.message
    assert "give a RetryPolicy" in check_refresh_policy(3).message
    assert not check_refresh_policy(...).answered


def test_refresh_policy_model_answer_holds_for_any_seed() -> None:
    from retrylab import Backoff, Mulberry32, Outcome
    from retrylab.exercises.ex03 import PATIENCE_MS, check_refresh_policy

    model = RetryPolicy(3, Backoff(100, 2, 5000, jitter="full"))
    assert check_refresh_policy(model).correct
    for seed in range(2000):
        down = model.run(lambda: Outcome.http(503), "GET", Mulberry32(seed), sleep=None)
        assert sum(down.waits) <= PATIENCE_MS
        flaky = iter([Outcome.http(503), Outcome.http(503), Outcome.success([1])])
        assert model.run(lambda flaky=flaky: next(flaky), "GET", Mulberry32(seed), sleep=None).ok
    # the old model answer met the limit only for the lesson's seed: now refused
    fb = check_refresh_policy(RetryPolicy(max_attempts=3))
    assert not fb.correct and "highest possible draws" in fb.message
    over = sum(
        sum(
            RetryPolicy(max_attempts=3)
            .run(lambda: Outcome.http(503), "GET", Mulberry32(s), sleep=None)
            .waits
        )
        > PATIENCE_MS
        for s in range(2000)
    )
    assert over == 127
