from __future__ import annotations

import asyncio
import logging

import pytest

from retrylab import (
    IDEMPOTENT_METHODS,
    Backoff,
    Decision,
    Mulberry32,
    Outcome,
    RetryMetrics,
    RetryPolicy,
    RetryResult,
    StopReason,
    decide,
    retry_everything_rule,
    retry_statuses,
)


def script(*outcomes: Outcome):  # type: ignore[no-untyped-def]
    it = iter(outcomes)
    return lambda: next(it)


def test_attempt_limit() -> None:
    slept: list[int] = []
    r = RetryPolicy(max_attempts=3, backoff=Backoff(100, 2, 1000)).run(
        script(*[Outcome.http(503)] * 5), sleep=slept.append
    )
    assert (r.attempts, r.waits, r.reason) == (3, (100, 200), StopReason.MAX_ATTEMPTS)
    assert slept == list(r.waits) and "attempt limit 3" in r.message


def test_time_budget_stops_before_overrunning() -> None:
    policy = RetryPolicy(max_attempts=10, backoff=Backoff(1000, 2, 8000), time_budget=5000)
    r = policy.run(script(*[Outcome.http(503)] * 10), sleep=None)
    assert r.waits == (1000, 2000)  # the next 4000 would end at 7000 > 5000
    assert r.reason is StopReason.TIME_BUDGET
    assert "time budget of 5000 ms" in r.message and r.elapsed == 3000


def test_time_budget_with_a_clock() -> None:
    now = [0.0]

    def send() -> Outcome:
        now[0] += 900  # each request takes 900 ms
        return Outcome.http(503)

    def sleep(ms: int) -> None:
        now[0] += ms

    r = RetryPolicy(max_attempts=10, backoff=Backoff(500, 1, 500), time_budget=3000).run(
        send, sleep=sleep, clock=lambda: now[0]
    )
    assert r.reason is StopReason.TIME_BUDGET
    assert r.attempts == 3 and r.waits == (500, 500)


def test_retry_after_is_a_lower_bound_and_the_draw_is_still_taken() -> None:
    rng = Mulberry32(20260114)
    r = RetryPolicy(max_attempts=3).run(
        script(*[Outcome.http(429, retry_after=2)] * 3), rng=rng, sleep=None
    )
    assert r.waits == (2000, 2000)
    twin = Mulberry32(20260114)
    twin(), twin()
    assert rng.state == twin.state
    r = RetryPolicy(max_attempts=2).run(
        script(Outcome.http(503, retry_after=0), Outcome.success()),
        rng=Mulberry32(20260114),
        sleep=None,
    )
    assert r.waits == (70,)


def test_retry_after_too_long_gives_up_at_once() -> None:
    r = RetryPolicy(max_retry_after=3000).run(
        script(Outcome.http(503, retry_after=120)), rng=Mulberry32(1), sleep=None
    )
    assert r.reason is StopReason.RETRY_AFTER_TOO_LONG and r.waits == ()
    assert "120000 ms" in r.message and "tell the user" in r.message


def test_not_retryable_stops_with_the_reason() -> None:
    r = RetryPolicy().run(script(Outcome.network()), "POST", rng=Mulberry32(1), sleep=None)
    assert r.reason is StopReason.NOT_RETRYABLE and "idempotency key" in r.message
    r = RetryPolicy().run(
        script(Outcome.network(), Outcome.success()),
        "POST",
        rng=Mulberry32(1),
        idempotency_key=True,
        sleep=None,
    )
    assert r.ok and r.attempts == 2


def test_presets() -> None:
    u, b = RetryPolicy.user_triggered(), RetryPolicy.background()
    assert u.max_attempts < b.max_attempts
    assert u.time_budget is not None and b.time_budget is not None
    assert u.time_budget < b.time_budget
    assert RetryPolicy.user_triggered(max_attempts=2).max_attempts == 2


def test_policy_is_immutable_value() -> None:
    p = RetryPolicy()
    with pytest.raises(AttributeError):
        p.max_attempts = 9  # type: ignore[misc]
    assert p.with_(max_attempts=9).max_attempts == 9 and p.max_attempts == 4
    assert p == RetryPolicy()


def test_send_must_return_an_outcome() -> None:
    with pytest.raises(TypeError, match="must return an Outcome"):
        RetryPolicy().run(lambda: 503, rng=Mulberry32(1), sleep=None)  # type: ignore[arg-type, return-value]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        (
            {"max_attempts": 0},
            r"max_attempts=0 is out of range: max_attempts must be an integer "
            r"from 1 to 1000",
        ),
        ({"time_budget": -1}, r"time_budget=-1 is out of range"),
        ({"max_retry_after": -5}, r"max_retry_after=-5 is out of range"),
        ({"backoff": 200}, r"backoff=200 is out of range"),
    ],
)
def test_bad_input(kwargs: dict[str, object], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        RetryPolicy(**kwargs)  # type: ignore[arg-type]


def test_metrics_and_logging(caplog: pytest.LogCaptureFixture) -> None:
    m = RetryMetrics()
    rng = Mulberry32(20260114)
    with caplog.at_level(logging.DEBUG, logger="retrylab"):
        RetryPolicy().run(
            script(Outcome.http(503), Outcome.success()), rng=rng, metrics=m, sleep=None
        )
        RetryPolicy().run(script(Outcome.http(404)), rng=rng, metrics=m, sleep=None)
    assert (m.runs, m.attempts, m.retries, m.success_after_retry) == (2, 3, 1, 1)
    assert m.waits == [70]
    assert m.reasons_table().to_dict() == {"not_retryable": 1, "success": 1}
    assert any("retrying in 70 ms" in rec.getMessage() for rec in caplog.records)


def test_async_matches_sync() -> None:
    slept: list[int] = []

    async def sleep(ms: float) -> None:
        slept.append(int(ms))

    answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])

    async def send() -> Outcome:
        return next(answers)

    r = asyncio.run(RetryPolicy().run_async(send, rng=Mulberry32(20260114), sleep=sleep))
    assert (r.attempts, r.waits, slept) == (3, (70, 184), [70, 184])


def test_async_cancellation_stops_at_once() -> None:
    sends = 0

    async def send() -> Outcome:
        nonlocal sends
        sends += 1
        return Outcome.http(503)

    async def main() -> None:
        task = asyncio.create_task(RetryPolicy(backoff=Backoff(10_000, 2, 60_000)).run_async(send))
        await asyncio.sleep(0.01)  # the loop is now in its first 10 s wait
        task.cancel()
        with pytest.raises(asyncio.CancelledError):
            await task

    asyncio.run(main())
    assert sends == 1


# -- a pluggable rule ----------------------------------------------------------------


def test_retry_everything_rule_retries_a_422_to_the_attempt_limit() -> None:
    slept: list[int] = []
    r = RetryPolicy(rule=retry_everything_rule).run(
        script(*[Outcome.http(422)] * 5), "POST", Mulberry32(20260114), slept.append
    )
    assert (r.attempts, r.waits, slept, r.reason) == (
        4,
        (70, 184, 592),
        [70, 184, 592],
        StopReason.MAX_ATTEMPTS,
    )
    assert r.outcome == Outcome.http(422) and [a.outcome.status for a in r.history] == [422] * 4
    lesson = RetryPolicy().run(script(Outcome.http(422)), "POST", Mulberry32(20260114), sleep=None)
    assert (lesson.attempts, lesson.reason) == (1, StopReason.NOT_RETRYABLE)


def test_the_rule_gets_each_failure_with_the_method_and_key_but_never_a_success() -> None:
    seen: list[tuple[str, str, bool]] = []

    def rule(outcome: Outcome, method: str, key: bool) -> Decision:
        seen.append((outcome.label(), method, key))
        return Decision(outcome.kind == "body", "only body errors, for this test")

    r = RetryPolicy(rule=rule).run(
        script(Outcome.body(), Outcome.body(), Outcome.success()),
        "post",
        Mulberry32(1),
        idempotency_key=True,
        sleep=None,
    )
    assert r.ok and r.attempts == 3
    assert seen == [("body", "POST", True), ("body", "POST", True)]
    r = RetryPolicy(rule=rule).run(script(Outcome.http(503)), "GET", Mulberry32(1), sleep=None)
    assert (r.attempts, r.reason, r.message) == (
        1,
        StopReason.NOT_RETRYABLE,
        "only body errors, for this test",
    )


def test_retry_statuses_rule_in_the_loop() -> None:
    policy = RetryPolicy(rule=retry_statuses([502, 503]))
    r = policy.run(
        script(Outcome.http(502), Outcome.http(503), Outcome.http(500)),
        "GET",
        Mulberry32(20260114),
        sleep=None,
    )
    assert (r.attempts, r.waits, r.reason) == (3, (70, 184), StopReason.NOT_RETRYABLE)
    assert r.message == "500: not on the list of statuses to retry (502, 503)"
    r = policy.run(script(Outcome.http(429, retry_after=2)), "GET", Mulberry32(1), sleep=None)
    assert r.attempts == 1  # 429 left off the list: not retried at all


def test_no_rule_is_the_lesson_rule_with_safe_methods() -> None:
    for o in [Outcome.http(503), Outcome.http(404), Outcome.network(), Outcome.body()]:
        for method in ["GET", "PUT", "POST"]:
            assert RetryPolicy().decide(o, method) == decide(o, method)
            assert RetryPolicy(safe_methods=IDEMPOTENT_METHODS).decide(o, method) == decide(
                o, method, safe_methods=IDEMPOTENT_METHODS
            )
    rule_policy = RetryPolicy(rule=retry_everything_rule)
    assert rule_policy.with_(max_attempts=2).rule is retry_everything_rule
    assert rule_policy != RetryPolicy() and rule_policy == RetryPolicy(rule=retry_everything_rule)


def test_a_rule_must_be_callable_and_return_a_decision() -> None:
    with pytest.raises(
        ValueError,
        match=r"rule='everything' is out of range: rule must be "
        r"None or a function",
    ):
        RetryPolicy(rule="everything")  # type: ignore[arg-type]
    policy = RetryPolicy(rule=lambda o, m, k: True)  # type: ignore[arg-type, return-value]
    with pytest.raises(TypeError, match="rule returned True; it must return a Decision"):
        policy.run(script(Outcome.http(503)), rng=Mulberry32(1), sleep=None)


def test_async_loop_honours_the_rule() -> None:
    slept: list[int] = []

    async def sleep(ms: float) -> None:
        slept.append(int(ms))

    answers = iter([Outcome.http(422)] * 5)

    async def send() -> Outcome:
        return next(answers)

    r = asyncio.run(
        RetryPolicy(rule=retry_everything_rule).run_async(
            send, "POST", Mulberry32(20260114), sleep=sleep
        )
    )
    assert (r.attempts, r.waits, slept, r.reason) == (
        4,
        (70, 184, 592),
        [70, 184, 592],
        StopReason.MAX_ATTEMPTS,
    )


def test_a_results_waits_are_a_tuple_and_print_as_the_lesson_through_a_list() -> None:
    answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
    r = RetryPolicy().run(lambda: next(answers), "GET", Mulberry32(20260114), sleep=None)
    assert r.waits == (70, 184) and str(list(r.waits)) == "[70, 184]"
    given = RetryResult(Outcome.http(422), 1, [5], StopReason.NOT_RETRYABLE, "", 0)  # type: ignore[arg-type]
    assert given.waits == (5,)


def test_a_rule_whose_decision_says_retry_as_text_is_refused() -> None:
    from retrylab.core.outcome import Decision

    sent: list[int] = []

    def rule(outcome: Outcome, method: str, key: bool) -> Decision:
        return Decision("False", "never retry a 404")  # type: ignore[arg-type]

    def send() -> Outcome:
        sent.append(1)
        return Outcome.http(404)

    # before: "False" is a non-empty string, so the 404 was sent max_attempts times
    with pytest.raises(
        TypeError,
        match=r"retry='False' is out of range: retry must be True "
        r"or False, not a str",
    ):
        RetryPolicy(rule=rule).run(send, "GET", Mulberry32(1), lambda ms: None)
    assert sent == [1]
    import numpy as np

    assert Decision(np.bool_(True), "numpy's bool is a bool").retry is True


def test_run_without_sleep_refuses_and_says_what_to_pass() -> None:
    sent: list[int] = []

    def down() -> Outcome:
        sent.append(1)
        return Outcome.http(503)

    # before: no sleep meant no waiting at all, 4 attempts back to back
    with pytest.raises(
        TypeError,
        match=r"RetryPolicy.run needs sleep=.*"
        r"sleep=lambda ms: time.sleep\(ms / 1000\) to wait for "
        r"real.*sleep=waits.append",
    ):
        RetryPolicy().run(down, "GET", Mulberry32(1))
    assert sent == []
    with pytest.raises(TypeError, match=r"sleep=1000 is out of range: RetryPolicy.run needs"):
        RetryPolicy().run(down, "GET", Mulberry32(1), 1000)  # type: ignore[arg-type]
    waits: list[int] = []
    r = RetryPolicy().run(down, "GET", Mulberry32(20260114), sleep=waits.append)
    assert waits == list(r.waits) == [70, 184, 592] and len(sent) == 4
    assert RetryPolicy().run(down, "GET", Mulberry32(20260114), sleep=None).waits == r.waits
