"""retrylab.lessons.mobile_mistakes: jitter spread, lifecycle, outage cost, flaky batch."""

from __future__ import annotations

import logging

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrylab import Backoff, Mulberry32, Outcome, RetryPolicy
from retrylab.lessons.mobile_mistakes import (
    LIFECYCLE_LOOPS,
    app_lifecycle,
    captured_log,
    flaky_batch,
    jitter_spread,
    lifecycle_table,
    outage_cost,
    outage_table,
    radio_on_ms,
)

# -- jitter -----------------------------------------------------------------------------


def test_proportional_keeps_a_one_to_three_spread_full_starts_at_zero() -> None:
    t = jitter_spread(clients=2000, retry=3, base=500)
    c = 4000
    assert (t["ceiling"] == c).all()
    assert t.loc["none", "busiest"] == 2000
    prop, full = t.loc["proportional"], t.loc["full"]
    assert c / 2 <= prop["shortest"] and prop["longest"] <= 1.5 * c
    assert 2.9 < prop["longest / shortest"] <= 3
    assert 0 <= full["shortest"] < 50 and full["longest"] <= c
    assert abs(prop["mean"] - c) < 100 and abs(full["mean"] - c / 2) < 100


# -- the app lifecycle ---------------------------------------------------------------------


def test_cancelled_policy_stops_at_once_and_sends_nothing_more() -> None:
    r = app_lifecycle("policy", background_at=15_000)
    assert (r.after_background, r.ended_at, r.state_at_background) == (0, 15_000, "in flight")
    assert r.caller_saw.startswith("CancelledError")


def test_cancelled_while_waiting_also_stops_at_once() -> None:
    r = app_lifecycle("policy", background_at=10_100, latency_ms=10_000)
    assert r.state_at_background == "waiting"  # the first wait is 350 ms
    assert (r.after_background, r.ended_at, r.requests) == (0, 10_100, 1)


def test_loops_that_nobody_cancels_or_that_swallow_cancellation_keep_sending() -> None:
    table = lifecycle_table()
    assert list(table.index) == list(LIFECYCLE_LOOPS)
    assert table["sent after background"].to_dict() == {
        "policy": 0,
        "policy_detached": 3,
        "kotlin": 0,
        "kotlin_retry_all": 0,
        "asyncio_port": 3,
    }
    assert table.loc["kotlin", "the caller saw"].startswith("failure(CancelledError")
    assert table.loc["kotlin_retry_all", "the caller saw"].startswith("CancelledError")
    assert (table["ended at (s)"] > 60).sum() == 2


def test_kotlin_delay_zero_does_not_notice_the_cancellation() -> None:
    r = app_lifecycle("kotlin_retry_all", base_ms=0)
    assert r.after_background == 3 and r.requests == 5


def test_lifecycle_checks_the_loop_name() -> None:
    with pytest.raises(ValueError, match="loop='global' is out of range"):
        app_lifecycle("global")


# -- an outage's cost ---------------------------------------------------------------------


def test_radio_on_merges_close_requests_and_clips() -> None:
    assert radio_on_ms([], 300, 5000) == 0
    assert radio_on_ms([0], 300, 5000) == 5300
    assert radio_on_ms([0, 2000, 4000], 300, 5000) == 9300
    assert radio_on_ms([0, 10_000], 300, 5000) == 10_600
    assert radio_on_ms([0, 10_000], 300, 5000, until=12_000) == 7300


@given(st.lists(st.integers(0, 100_000), max_size=30), st.integers(0, 2000), st.integers(0, 20_000))
def test_radio_on_bounds(sent: list[int], latency: int, tail: int) -> None:
    on = radio_on_ms(sent, latency, tail)
    assert on <= len(sent) * (latency + tail)
    if sent:
        span = max(sent) - min(sent) + latency + tail
        assert latency + tail <= on <= span


def test_endless_fixed_retries_keep_the_radio_on_for_the_whole_outage() -> None:
    c = outage_cost(RetryPolicy(1000, Backoff(2000, growth="constant")))
    assert (c.requests_during_outage, c.radio_on_s, c.outcome) == (261, 600.0, "success")
    assert c.energy_j == 600.0 and c.battery_pct == pytest.approx(1.08)


def test_limited_policy_costs_a_few_requests() -> None:
    c = outage_cost(RetryPolicy.background())
    assert c.requests == 5 and c.outcome.startswith("gave up") and c.radio_on_s < 20


def test_outage_table_has_the_fleet_load() -> None:
    t = outage_table(
        {
            "fixed": RetryPolicy(1000, Backoff(2000, growth="constant")),
            "three": RetryPolicy.user_triggered(),
        },
        fleet=1000,
        outage_ms=60_000,
    )
    assert t["requests in outage"].tolist() == [27, 3]
    assert t["req/s from 1,000 phones"].tolist() == [450.0, 50.0]


# -- metrics -----------------------------------------------------------------------------


def test_flaky_batch_adds_up() -> None:
    m = flaky_batch(300, seed=7)
    s = m.summary()
    assert s["runs"] == 300 and s["successes"] + s["gave up"] == 300
    assert sum(m.reasons.values()) == 300 and m.reasons["not_retryable"] > 0
    assert 0 < s["success after retry"] <= s["retries"]
    assert len(m.waits) == m.retries


def test_flaky_batch_without_failures_never_retries() -> None:
    m = flaky_batch(50, failure_rate=0, permanent_rate=0)
    assert (m.retries, m.successes) == (0, 50)


def test_captured_log_collects_and_restores() -> None:
    logger = logging.getLogger("retrylab")
    before = (logger.level, logger.propagate, list(logger.handlers))
    answers = iter([Outcome.http(503), Outcome.success()])
    with captured_log() as lines:
        RetryPolicy().run(lambda: next(answers), rng=Mulberry32(1), sleep=None)
    assert lines[0].startswith("DEBUG GET attempt 1: http/503; retrying in")
    assert lines[1] == "INFO GET stopped after 2 attempt(s): success on attempt 2"
    assert (logger.level, logger.propagate, list(logger.handlers)) == before
