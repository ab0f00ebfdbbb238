"""retrylab.lessons.mobile_code: the mobile lesson's Kotlin and Combine code, and its strategies."""

from __future__ import annotations

import asyncio
import ctypes

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from retrylab import Backoff, Outcome, RetryPolicy
from retrylab.lab.virtualtime import run_virtual
from retrylab.lessons.mobile_code import (
    ColdPublisher,
    FuturePublisher,
    HttpError,
    KResult,
    MobileServer,
    NetworkError,
    combine_run,
    execute_with_retry,
    kotlin_run,
    kotlin_shl,
    lesson_is_retriable,
    policy_run,
    retry_with_backoff,
    strategy_backoff,
)

# -- the server ----------------------------------------------------------------------------


def test_server_checks_its_arguments() -> None:
    with pytest.raises(ValueError, match="outcomes=\\[\\] is out of range"):
        MobileServer.scripted([])
    with pytest.raises(ValueError, match="latency_ms=-1 is out of range"):
        MobileServer.scripted([Outcome.success()], latency_ms=-1)


def test_server_records_send_times_and_outage_end() -> None:
    server = MobileServer.down_until(1000, latency_ms=300)

    async def go() -> list[str]:
        return [(await server.send()).label() for _ in range(5)]

    assert run_virtual(go()) == ["http/503"] * 4 + ["success"]
    assert server.sent == [0, 300, 600, 900, 1200]


# -- Kotlin ---------------------------------------------------------------------------------


def test_kotlin_shl_matches_a_32_bit_int() -> None:
    for bits in range(0, 70):
        assert kotlin_shl(1, bits) == ctypes.c_int32(1 << (bits % 32)).value
    assert kotlin_shl(3, 31) == -2147483648


def test_lesson_classification() -> None:
    assert lesson_is_retriable(NetworkError("dns"))
    assert [lesson_is_retriable(HttpError(s)) for s in (500, 502, 503, 504, 429, 401)] == [
        False,
        True,
        True,
        False,
        False,
        False,
    ]
    assert not lesson_is_retriable(asyncio.CancelledError())


def _run_kotlin(
    outcomes: list[Outcome], random_value: float, **kwargs: object
) -> tuple[KResult, int, list[int]]:
    server = MobileServer.scripted(outcomes)
    slept: list[int] = []

    async def record(ms: int) -> None:
        slept.append(ms)

    result = run_virtual(
        execute_with_retry(server.kotlin_block, random=lambda: random_value, delay=record, **kwargs)
    )  # type: ignore[arg-type]
    return result, server.requests, slept


def test_kotlin_waits_are_base_times_two_to_the_n_times_half_to_one_and_a_half() -> None:
    failing = [Outcome.network()] * 4 + [Outcome.success("ok")]
    result, requests, slept = _run_kotlin(failing, 0.5, max_retries=4)
    assert result == KResult.success("ok") and requests == 5
    assert slept == [1000, 2000, 4000, 8000]
    assert _run_kotlin(failing, 0.0, max_retries=4)[2] == [500, 1000, 2000, 4000]
    # toLong() truncates: 1000 * 1.4999 = 1499.9 -> 1499
    assert _run_kotlin(failing, 0.9999, max_retries=4)[2] == [1499, 2999, 5999, 11999]


def test_kotlin_gives_up_after_max_retries_with_the_last_error() -> None:
    result, requests, slept = _run_kotlin([Outcome.http(503)], 0.5, max_retries=2)
    assert requests == 3 and slept == [1000, 2000]
    assert isinstance(result.error, HttpError) and result.error.status == 503


def test_kotlin_does_not_retry_what_is_not_retriable() -> None:
    result, requests, slept = _run_kotlin([Outcome.http(404)], 0.5)
    assert (requests, slept, str(result)) == (1, [], "failure(HttpError(404))")


def test_kotlin_never_retries_a_returned_failure() -> None:
    run = kotlin_run([Outcome.http(503), Outcome.success()], style="result")
    assert (run.requests, run.waits, run.result) == (1, (), "failure(HttpError(503))")
    assert kotlin_run([Outcome.http(503), Outcome.success()]).requests == 2


def test_kotlin_has_no_cap() -> None:
    run = kotlin_run([Outcome.network()], max_retries=10)
    assert run.requests == 11 and run.waits[-1] > 500_000  # ten minutes for the 10th
    assert run.result == "failure(NetworkError('network error'))"


def test_kotlin_rejects_a_negative_max_retries() -> None:
    with pytest.raises(ValueError, match="max_retries=-1 is out of range"):
        _run_kotlin([Outcome.success()], 0.5, max_retries=-1)


@settings(max_examples=30, deadline=None)
@given(st.integers(0, 2**32 - 1))
def test_kotlin_and_proportional_backoff_agree_within_a_millisecond(seed: int) -> None:
    answers = [Outcome.http(503)] * 5 + [Outcome.success()]
    k = kotlin_run(answers, max_retries=5, seed=seed)
    p = policy_run(
        answers, RetryPolicy(6, Backoff(1000, 2, None, jitter="proportional")), seed=seed
    )
    assert k.requests == p.requests == 6
    assert all(0 <= pw - kw <= 1 for kw, pw in zip(k.waits, p.waits, strict=True))


# -- Combine ------------------------------------------------------------------------------


def test_combine_retries_everything_with_doubling_waits() -> None:
    run = combine_run([Outcome.http(404)])
    assert (run.requests, run.waits) == (4, (1000, 2000, 4000))
    assert run.result == "failure(HttpError(404))" and run.elapsed == 7400


def test_combine_stops_on_success() -> None:
    run = combine_run([Outcome.network(), Outcome.success()], retries=5)
    assert (run.requests, run.waits, run.result) == (2, (1000,), "success")


def test_combine_over_a_future_replays_the_failure() -> None:
    run = combine_run([Outcome.http(503), Outcome.success()], publisher="future")
    assert (run.requests, run.waits) == (1, (1000, 2000, 4000))
    assert run.result == "failure(HttpError(503))"


def test_publishers_count_subscriptions() -> None:
    server = MobileServer.scripted([Outcome.http(503)])
    cold, future = ColdPublisher(server.fetch), FuturePublisher(server.fetch)

    async def go() -> None:
        for pub in (cold, future):
            with pytest.raises(HttpError):
                await retry_with_backoff(pub, retries=2, base_delay=0.5)

    run_virtual(go())
    assert (cold.subscriptions, future.subscriptions, server.requests) == (3, 3, 4)


def test_combine_checks_retries() -> None:
    with pytest.raises(ValueError, match="retries=-1 is out of range"):
        run_virtual(
            retry_with_backoff(
                ColdPublisher(MobileServer.scripted([Outcome.success()]).fetch), retries=-1
            )
        )


# -- the strategies --------------------------------------------------------------------


def test_strategy_backoff_names() -> None:
    assert [strategy_backoff("fixed", 2000).ceiling(n) for n in range(3)] == [2000] * 3
    assert [strategy_backoff("incremental", 1000).ceiling(n) for n in range(3)] == [
        1000,
        2000,
        3000,
    ]
    assert [strategy_backoff("exponential", 1000).ceiling(n) for n in range(5)] == [
        1000,
        2000,
        4000,
        8000,
        16000,
    ]
    with pytest.raises(ValueError, match="strategy='random' is out of range"):
        strategy_backoff("random", 1000)
