"""production_rule against each rule it cites: RFC 9110, urllib3, botocore, gRPC A6."""

from __future__ import annotations

import pytest

from retrylab import Outcome, RetryPolicy, production_rule
from retrylab.core.outcome import IDEMPOTENT_METHODS
from retrylab.core.rng import Mulberry32

urllib3 = pytest.importorskip("urllib3")

KEYLESS = ("POST", "PATCH")
ALL = sorted(IDEMPOTENT_METHODS) + list(KEYLESS)


def test_idempotent_methods_are_urllib3s_defaults() -> None:
    # RFC 9110 9.2.2 and urllib3's Retry.DEFAULT_ALLOWED_METHODS are the same six methods.
    assert set(urllib3.util.Retry.DEFAULT_ALLOWED_METHODS) == IDEMPOTENT_METHODS


@pytest.mark.parametrize("status", [408, 429, 500, 502, 503, 504])
@pytest.mark.parametrize("method", sorted(IDEMPOTENT_METHODS))
def test_transient_statuses_are_retried_for_idempotent_methods(status: int, method: str) -> None:
    d = production_rule(Outcome.http(status), method)
    assert d.retry, d.reason


@pytest.mark.parametrize("status", [501, 505])
@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("key", [False, True])
def test_501_and_505_never(status: int, method: str, key: bool) -> None:
    d = production_rule(Outcome.http(status, retry_after=1), method, key)
    assert not d.retry and "RFC 9110 section 15.6" in d.reason


@pytest.mark.parametrize(
    "status", [s for s in range(400, 600) if s not in (408, 429, 500, 502, 503, 504)]
)
def test_other_4xx_and_5xx_are_not_retried(status: int) -> None:
    assert not production_rule(Outcome.http(status), "GET").retry


@pytest.mark.parametrize("status", [500, 502, 503, 504])
@pytest.mark.parametrize("method", KEYLESS)
def test_keyless_writes_are_not_retried_after_a_5xx(status: int, method: str) -> None:
    d = production_rule(Outcome.http(status), method)
    assert not d.retry and "RFC 9110 section 9.2.2" in d.reason
    # ... not even a 503 with Retry-After (urllib3 gates it by allowed_methods too)
    assert not production_rule(Outcome.http(status, retry_after=2), method).retry
    retry = urllib3.util.Retry(status_forcelist=[status])
    assert not retry.is_retry(method, status, has_retry_after=True)
    # ... and with a key they are retried like an idempotent method.
    assert production_rule(Outcome.http(status), method, True).retry


@pytest.mark.parametrize("status", [408, 429])
@pytest.mark.parametrize("method", KEYLESS)
def test_the_server_said_it_did_not_act(status: int, method: str) -> None:
    d = production_rule(Outcome.http(status), method)
    assert d.retry and ("15.5.9" in d.reason or "RFC 6585" in d.reason)


@pytest.mark.parametrize("method", ALL)
def test_never_sent_is_retried_for_any_method(method: str) -> None:
    # urllib3 retries connect errors whatever the method; gRPC A6 "transparent" retries.
    d = production_rule(Outcome.network(sent=False), method)
    assert d.retry and "gRPC A6" in d.reason


@pytest.mark.parametrize("sent", [True, None])
def test_maybe_sent_is_retried_only_when_safe(sent: bool | None) -> None:
    out = Outcome.network(sent=sent)
    assert all(production_rule(out, m).retry for m in IDEMPOTENT_METHODS)
    assert not any(production_rule(out, m).retry for m in KEYLESS)
    assert all(production_rule(out, m, True).retry for m in KEYLESS)


@pytest.mark.parametrize("method", ALL)
@pytest.mark.parametrize("key", [False, True])
def test_body_errors_cancellations_and_successes_never(method: str, key: bool) -> None:
    for out in (Outcome.body(), Outcome.cancelled(), Outcome.success()):
        assert not production_rule(out, method, key).retry


def test_every_reason_is_one_sentence_naming_a_source() -> None:
    outcomes = (
        [Outcome.http(s) for s in range(100, 600)]
        + [Outcome.network(sent=s) for s in (None, False, True)]
        + [Outcome.body(), Outcome.cancelled()]
    )
    sources = ("RFC", "urllib3", "botocore", "gRPC", "IETF")
    for out in outcomes:
        for m in ALL:
            for key in (False, True):
                reason = production_rule(out, m, key).reason
                assert reason.count(". ") == 0 and not reason.endswith(".")
                if out.kind not in ("success",) and (out.kind != "http" or out.status >= 400):  # type: ignore[operator]
                    assert any(s in reason for s in sources), (out, m, reason)


def test_in_a_policy_a_keyless_post_stops_at_the_first_500() -> None:
    answers = iter([Outcome.http(500), Outcome.success()])
    r = RetryPolicy(rule=production_rule).run(
        lambda: next(answers), "POST", Mulberry32(20260114), sleep=None
    )
    assert (r.attempts, r.reason) == (1, "not_retryable")


def test_bad_method_is_refused() -> None:
    with pytest.raises(ValueError, match="method="):
        production_rule(Outcome.http(503), "GET /")


def test_no_consensus_is_claimed_and_429_is_called_a_convention() -> None:
    """botocore retries 5xx for every operation and gRPC leaves it to the service
    config, so the rule is this project's choice, not the libraries' consensus; and
    RFC 6585 does not say a 429 was answered before acting (issue 40)."""
    import retrylab.core.production as module

    words = " ".join((module.__doc__ or "", module.production_rule.__doc__ or "")).lower()
    assert "consensus" not in words and "they agree" not in words
    reason = production_rule(Outcome.http(429), "POST").reason
    assert "convention" in reason and "not a failure while acting" not in reason
