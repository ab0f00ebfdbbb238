"""DESIGN.md's wave-2 contract names, called exactly as written there."""

from __future__ import annotations

import httpx
import tenacity
import urllib3

from retrylab import (
    Mulberry32,
    Outcome,
    RetryPolicy,
    RetryTransport,
    production_rule,
    to_tenacity,
    to_urllib3,
)


def test_production_rule_and_sent() -> None:
    assert [Outcome.network(sent=s).sent for s in (None, False, True)] == [None, False, True]
    policy = RetryPolicy(rule=production_rule)
    assert policy.decide(Outcome.network(sent=False), "POST").retry
    assert not policy.decide(Outcome.network(sent=True), "POST").retry


def test_bridge_names() -> None:
    policy = RetryPolicy()
    r = to_tenacity(policy, Mulberry32(20260114), method="GET", idempotency_key=False, sleep=None)
    assert isinstance(r, tenacity.Retrying)
    assert isinstance(to_urllib3(policy), urllib3.util.Retry)
    t = RetryTransport(policy, rng=None)
    assert isinstance(t, httpx.BaseTransport) and isinstance(t, httpx.AsyncBaseTransport)
