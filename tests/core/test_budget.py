"""Retry budgets: gRPC's retry throttling and the SRE book's retry budget, scalar and vectorized."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab.core.backoff import Backoff
from retrylab.core.budget import (
    GrpcRetryThrottle,
    GrpcThrottleArray,
    SreBudgetArray,
    SreRetryBudget,
    budget_from_name,
)
from retrylab.core.outcome import Outcome
from retrylab.core.policy import RetryPolicy, StopReason

# -- gRPC retry throttling ----------------------------------------------------------------


def test_grpc_proposal_example_tokens_and_threshold() -> None:
    t = GrpcRetryThrottle(max_tokens=10, token_ratio=0.1)
    assert t.tokens == 10 and t.can_retry()
    seen = []
    for _ in range(6):
        t.on_outcome(False)
        seen.append((t.tokens, t.can_retry()))
    # allowed only while tokens > max_tokens / 2 = 5
    assert seen == [(9, True), (8, True), (7, True), (6, True), (5, False), (4, False)]


def test_grpc_tokens_are_exact_thousandths_and_clipped() -> None:
    t = GrpcRetryThrottle(10, 0.1)
    for _ in range(10):
        t.on_outcome(False)
    assert t.tokens == 0.0  # clipped at 0, not -0 or negative
    t.on_outcome(False)
    assert t.tokens == 0.0
    for _ in range(51):
        t.on_outcome(True)
    assert t.tokens == 5.1  # 51 * 0.1 exactly, no float drift
    assert t.can_retry()
    for _ in range(100):
        t.on_outcome(True)
    assert t.tokens == 10.0  # clipped at max_tokens


def test_grpc_sending_costs_nothing() -> None:
    t = GrpcRetryThrottle(4, 0.5)
    t.on_request(first_try=True)
    t.on_request(first_try=False)
    assert t.tokens == 4


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_tokens": 0}, "max_tokens=0 is out of range: max_tokens must be a number > 0"),
        ({"max_tokens": 1001}, "max_tokens=1001 is out of range"),
        ({"token_ratio": 0}, "token_ratio=0 is out of range: token_ratio must be a number > 0"),
        ({"token_ratio": 1.5}, "token_ratio=1.5 is out of range"),
        ({"token_ratio": 0.0001}, "with at most 3 decimal places"),
    ],
)
def test_grpc_rejects_bad_settings(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        GrpcRetryThrottle(**kwargs)


def test_grpc_throttle_shared_by_retry_policy_runs() -> None:
    """One throttle behind ten requests to a dead service: the first retries, the rest don't."""
    throttle = GrpcRetryThrottle(10, 0.1)
    policy = RetryPolicy(max_attempts=4, backoff=Backoff(200, 2, 5000))
    results = [
        policy.run(lambda: Outcome.http(503), "GET", retry_budget=throttle, sleep=None)
        for _ in range(5)
    ]
    assert [r.attempts for r in results] == [4, 1, 1, 1, 1]
    assert [r.reason for r in results] == [StopReason.MAX_ATTEMPTS] + [StopReason.RETRY_BUDGET] * 4
    assert throttle.tokens == 10 - 4 - 4


# -- the SRE book's budget ------------------------------------------------------------------


def test_sre_both_limits_apply() -> None:
    b = SreRetryBudget()  # 10%, 3 attempts per request
    wide = SreRetryBudget(per_request=100)
    for budget in (b, wide):
        for _ in range(20):
            budget.on_request(first_try=True)
        budget.on_request(first_try=False)
        budget.on_request(first_try=False)  # 2 retries of 22 requests: 9.1%
    assert (b.requests, b.retries) == (22, 2)
    assert b.can_retry() is False  # the request in progress made its 3 attempts
    assert wide.can_retry() is True  # the ratio alone still allows it


def test_sre_ratio_boundary_is_strict_and_exact() -> None:
    b = SreRetryBudget(ratio=0.1, per_request=100)
    for _ in range(29):
        b.on_request(first_try=True)
    b.on_request(first_try=False)
    b.on_request(first_try=False)
    b.on_request(first_try=True)
    # 2 retries of 32 requests: 6.25% -> allowed; a third makes 3 of 33 = 9.1% -> allowed
    assert b.can_retry()
    b.on_request(first_try=False)
    assert (b.requests, b.retries) == (33, 3)
    assert b.can_retry()
    b.on_request(first_try=False)  # 4 of 34 = 11.8%
    assert not b.can_retry()
    for _ in range(6):
        b.on_request(first_try=True)  # 4 of 40 = exactly 10%: not *below*
    assert not b.can_retry()
    b.on_request(first_try=True)  # 4 of 41
    assert b.can_retry()


def test_sre_per_request_limit_of_three_attempts() -> None:
    budget = SreRetryBudget()
    ok = RetryPolicy(max_attempts=10, backoff=Backoff(200, 2, 5000))
    for _ in range(100):  # a healthy history: 100 requests, no retries
        ok.run(lambda: Outcome.success(), "GET", retry_budget=budget, sleep=None)
    r = ok.run(lambda: Outcome.http(503), "GET", retry_budget=budget, sleep=None)
    assert r.attempts == 3 and r.reason is StopReason.RETRY_BUDGET
    assert (budget.requests, budget.retries, budget.successes) == (103, 2, 100)


def test_sre_stops_a_storm_at_the_ratio() -> None:
    budget = SreRetryBudget()
    policy = RetryPolicy(max_attempts=3, backoff=Backoff(200, 2, 5000))
    results = [
        policy.run(lambda: Outcome.http(503), "GET", retry_budget=budget, sleep=None)
        for _ in range(100)
    ]
    # Without the budget: 300 requests. With it, request k (1-based) may retry once
    # while retries / (k + retries) < 10%, i.e. 9 * retries < k: at k = 1, 10, ..., 100.
    assert budget.requests == sum(r.attempts for r in results) == 112
    assert budget.retries == 12
    assert [i + 1 for i, r in enumerate(results) if r.attempts == 2][:3] == [1, 10, 19]


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"ratio": 0}, "ratio=0 is out of range: ratio must be a number > 0 and <= 1"),
        ({"ratio": 1.5}, "ratio=1.5 is out of range"),
        (
            {"per_request": 0},
            "per_request=0 is out of range: per_request must be an integer from 1 to 1000",
        ),
    ],
)
def test_sre_rejects_bad_settings(kwargs: dict[str, float], message: str) -> None:
    with pytest.raises(ValueError, match=message):
        SreRetryBudget(**kwargs)


# -- vectorized variants equal the scalar ones event by event -------------------------------


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=120),
    max_tokens=st.sampled_from([1, 3, 10, 100]),
    ratio=st.sampled_from([0.001, 0.1, 0.5, 1.0]),
)
def test_grpc_array_matches_scalar_one_event_at_a_time(
    events: list[tuple[int, bool]], max_tokens: int, ratio: float
) -> None:
    scalars = [GrpcRetryThrottle(max_tokens, ratio) for _ in range(3)]
    array = GrpcThrottleArray(3, max_tokens, ratio)
    for group, success in events:
        scalars[group].on_outcome(success)
        array.on_outcomes([group], [success])
        assert array.tokens.tolist() == [s.tokens for s in scalars]
        assert array.can_retry([0, 1, 2]).tolist() == [s.can_retry() for s in scalars]


@settings(max_examples=60, deadline=None)
@given(
    events=st.lists(st.tuples(st.integers(0, 2), st.booleans()), max_size=120),
    ratio=st.sampled_from([0.05, 0.1, 0.25]),
)
def test_sre_array_matches_scalar_ratio_one_event_at_a_time(
    events: list[tuple[int, bool]], ratio: float
) -> None:
    scalars = [SreRetryBudget(ratio, per_request=1000) for _ in range(3)]
    array = SreBudgetArray(3, ratio, per_request=3)
    for group, first in events:
        scalars[group].on_request(first)
        array.on_requests([group], [first])
        assert array.can_retry([0, 1, 2]).tolist() == [s.can_retry() for s in scalars]
    assert array.requests.tolist() == [s.requests for s in scalars]
    assert array.retries.tolist() == [s.retries for s in scalars]


def test_grpc_array_sums_one_steps_outcomes_before_clipping() -> None:
    a = GrpcThrottleArray(1, 10, 0.1)
    a.on_outcomes(np.zeros(8, dtype=np.int64), [True] * 5 + [False] * 3)
    assert a.tokens.tolist() == [7.5]  # clip(10 + 0.5 - 3), as documented
    s = GrpcRetryThrottle(10, 0.1)
    for ok in [True] * 5 + [False] * 3:
        s.on_outcome(ok)
    assert s.tokens == 7.0  # one at a time: the successes hit the cap


def test_sre_array_exposes_per_request_limit_and_counts_groups() -> None:
    b = SreRetryBudget(0.1, 3).vectorized(4)
    assert b.max_attempts == 3 and b.groups == 4
    b.on_requests([0, 0, 1, 3, 3, 3], [True, False, True, True, True, False])
    assert b.requests.tolist() == [2, 1, 0, 3]
    assert b.retries.tolist() == [1, 0, 0, 1]
    assert b.can_retry([0, 1, 2, 3]).tolist() == [False, True, False, False]


def test_vectorized_templates_and_names() -> None:
    g = GrpcRetryThrottle(20, 0.25).vectorized(5)
    assert g.tokens.tolist() == [20.0] * 5 and g.max_attempts is None
    assert g.describe() == "gRPC retry throttling (max_tokens=20, token_ratio=0.25)"
    assert budget_from_name("sre") == SreRetryBudget()
    with pytest.raises(ValueError, match="budget='tokens' is out of range"):
        budget_from_name("tokens")
    with pytest.raises(ValueError, match="groups=0 is out of range"):
        GrpcThrottleArray(0)
