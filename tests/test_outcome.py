from __future__ import annotations

import pytest

from retrylab import IDEMPOTENT_METHODS, Outcome, decide, parse_retry_after, should_retry


@pytest.mark.parametrize(("outcome", "method", "key", "expected"), [
    (Outcome.http(503), "GET", False, True),
    (Outcome.http(503), "POST", False, True),       # the lesson: 5xx always
    (Outcome.http(500), "POST", False, True),
    (Outcome.http(429), "POST", False, True),
    (Outcome.http(422), "POST", False, False),
    (Outcome.http(404), "GET", False, False),
    (Outcome.http(400), "GET", True, False),
    (Outcome.http(401), "GET", False, False),
    (Outcome.network(), "GET", False, True),
    (Outcome.network(), "head", False, True),
    (Outcome.network(), "OPTIONS", False, True),
    (Outcome.network(), "POST", False, False),
    (Outcome.network(), "POST", True, True),
    (Outcome.network(), "PUT", False, False),       # the lesson's safe set
    (Outcome.network(), "PATCH", True, True),
    (Outcome.body(), "GET", True, False),
    (Outcome.cancelled(), "GET", True, False),
    (Outcome.success(), "GET", False, False),
])
def test_lesson_rule(outcome: Outcome, method: str, key: bool, expected: bool) -> None:
    assert should_retry(outcome, method, key) is expected


def test_rfc_idempotent_methods_option() -> None:
    assert should_retry(Outcome.network(), "PUT", safe_methods=IDEMPOTENT_METHODS)
    assert not should_retry(Outcome.network(), "POST", safe_methods=IDEMPOTENT_METHODS)


def test_reasons_are_sentences() -> None:
    assert "same answer" in decide(Outcome.http(404), "GET").reason
    assert "idempotency key" in decide(Outcome.network(), "POST", True).reason


def test_retry_after_parsing() -> None:
    assert parse_retry_after("2") == 2.0
    assert parse_retry_after(" 120 ") == 120.0
    assert parse_retry_after("Wed, 14 Jan 2026 10:00:05 GMT", now=1768384800.0) == 5.0
    assert parse_retry_after("Wed, 14 Jan 2026 09:00:00 GMT", now=1768384800.0) == 0.0
    for bad in ["-1", "soon", "", "1.5", "99999999999"]:
        with pytest.raises(ValueError, match=r"retry_after=.* Retry-After must be"):
            parse_retry_after(bad)
    with pytest.raises(ValueError, match="now=None"):
        parse_retry_after("Wed, 14 Jan 2026 10:00:05 GMT")


@pytest.mark.parametrize(("make", "message"), [
    (lambda: Outcome.http(99), r"status=99 is out of range: status must be an integer from 100"),
    (lambda: Outcome.http(700), r"status=700"),
    (lambda: Outcome.http(429, retry_after=-1), r"retry_after=-1 is out of range"),
    (lambda: Outcome("weird"), r"kind='weird' is out of range"),  # type: ignore[arg-type]
    (lambda: should_retry(Outcome.network(), "GE T"), r"method='GE T' is out of range"),
])
def test_bad_input(make: object, message: str) -> None:
    with pytest.raises(ValueError, match=message):
        make()  # type: ignore[operator]
