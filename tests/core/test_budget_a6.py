"""gRPC A6: only failures that would be retried take tokens from the retry throttle."""

from __future__ import annotations

import pytest

from retrylab import GrpcRetryThrottle, Mulberry32, Outcome, RetryPolicy, SreRetryBudget
from retrylab.core.policy import StopReason


@pytest.mark.parametrize(
    ("name", "answer", "method"),
    [
        ("404", Outcome.http(404), "GET"),
        ("422", Outcome.http(422), "POST"),
        ("body", Outcome.body("not JSON"), "GET"),
        ("cancelled", Outcome.cancelled(), "GET"),
        ("keyless POST", Outcome.network(), "POST"),
    ],
)
def test_failures_that_are_not_retried_cost_no_tokens(
    name: str, answer: Outcome, method: str
) -> None:
    throttle = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
    policy = RetryPolicy()
    for _ in range(5):
        r = policy.run(lambda: answer, method, Mulberry32(1), retry_budget=throttle, sleep=None)
        assert r.attempts == 1 and r.reason is StopReason.NOT_RETRYABLE
    # before: 5 tokens left, so the next 503 was not retried at all
    assert throttle.tokens == 10.0 and throttle.can_retry()
    answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success()])
    r = policy.run(lambda: next(answers), "GET", Mulberry32(1), retry_budget=throttle, sleep=None)
    assert (r.attempts, r.reason) == (3, StopReason.SUCCESS)
    assert throttle.tokens == 8.1  # two retryable failures, one success


def test_retryable_failures_still_drain_the_bucket() -> None:
    throttle = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
    r = RetryPolicy(max_attempts=10).run(
        lambda: Outcome.http(503), "GET", Mulberry32(1), retry_budget=throttle, sleep=None
    )
    # 10 -> 5 after five 503s: at max_tokens / 2 retries stop
    assert (r.attempts, r.reason, throttle.tokens) == (5, StopReason.RETRY_BUDGET, 5.0)


def test_the_sre_budget_is_not_charged_by_failures_it_does_not_retry() -> None:
    # checked for the same mistake: it counts requests and retries sent, not failures
    budget = SreRetryBudget()
    for _ in range(5):
        RetryPolicy().run(
            lambda: Outcome.http(404), "GET", Mulberry32(1), retry_budget=budget, sleep=None
        )
    assert (budget.requests, budget.retries) == (5, 0) and budget.can_retry()
