"""A keyed retry that meets the lab's 409 "key in flight" waits and retries (issue 21, item 1),
and a Retry-After sent twice is read, not ignored (item 9)."""

from __future__ import annotations

import time

import pytest

from retrylab import Mulberry32, Outcome, RetryPolicy, decide, production_rule
from retrylab.core.outcome import parse_retry_after
from retrylab.lab.client import sender
from retrylab.lab.server import LabServer


@pytest.mark.parametrize("rule", [production_rule, decide])
def test_a_keyed_409_with_retry_after_is_retried(rule: object) -> None:
    in_flight = Outcome.http(409, retry_after=1)
    assert rule(in_flight, "POST", True).retry  # type: ignore[operator]
    assert "Idempotency-Key draft" in rule(in_flight, "POST", True).reason  # type: ignore[operator]
    # an ordinary conflict stays a conflict: no Retry-After, or no key
    assert not rule(Outcome.http(409), "POST", True).retry  # type: ignore[operator]
    assert not rule(in_flight, "POST", False).retry  # type: ignore[operator]


def test_the_issue_repro_stores_once_and_reports_success() -> None:
    """Before: history network, http/409 and a failure reported for a stored write."""
    with LabServer("store") as lab:
        lab.script("POST", "/measurements", faults=["slow"], slow=1.0)
        send = sender(
            lab.url + "/measurements",
            "POST",
            {"value": -4.2},
            {"Idempotency-Key": "k-in-flight"},
            timeout=0.2,
        )
        result = RetryPolicy(rule=production_rule).run(
            send,
            "POST",
            Mulberry32(20260114),
            sleep=lambda ms: time.sleep(ms / 1000),
            idempotency_key=True,
        )
        labels = [a.outcome.label() for a in result.history]
        assert labels[:2] == ["network", "http/409"]
        assert result.ok and labels[-1] == "success", labels
        assert result.waits[1] >= 1000  # the 409's Retry-After: 1 was obeyed
        assert lab.record_count == 1


def test_a_duplicated_retry_after_is_one_value() -> None:
    # before: "3600, 3600" was called malformed and ignored (a retry after 125 ms)
    assert parse_retry_after("3600, 3600") == 3600.0
    assert parse_retry_after("2, 5") == 5.0
    assert (
        parse_retry_after(
            "Wed, 14 Jan 2026 10:00:05 GMT, Wed, 14 Jan 2026 10:00:05 GMT", now=1768384800.0
        )
        == 5.0
    )
    with pytest.raises(ValueError, match=r"retry_after='3600, soon'|retry_after='soon'"):
        parse_retry_after("3600, soon")


def test_a_duplicated_retry_after_stops_a_policy_that_will_not_wait_that_long() -> None:
    from retrylab.lab.client import response_outcome

    outcome = response_outcome(503, "3600, 3600", b"{}")
    assert outcome.retry_after == 3600.0 and not outcome.detail
    r = RetryPolicy(max_retry_after=60_000).run(lambda: outcome, "GET", Mulberry32(1), sleep=None)
    assert (r.attempts, r.reason.value) == (1, "retry_after_too_long")


def test_a_retry_after_of_5000_digits_is_clamped_not_refused() -> None:
    assert parse_retry_after("9" * 5000) == 31536000.0
