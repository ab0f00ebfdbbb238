"""Retry-After as RFC 9110 sections 10.2.3 and 5.6.7 define it."""

from __future__ import annotations

import pytest

from retrylab import Mulberry32, Outcome, RetryPolicy, parse_retry_after
from retrylab.core.httpdate import days_from_civil, parse_http_date, year_of
from retrylab.core.policy import StopReason

NOW = 1768384800.0  # Wed, 14 Jan 2026 10:00:00 GMT


@pytest.mark.parametrize(
    "text",
    [
        "Wed, 14 Jan 2026 10:00:05 GMT",  # IMF-fixdate
        "Wednesday, 14-Jan-26 10:00:05 GMT",  # obsolete RFC 850
        "Wed Jan 14 10:00:05 2026",  # asctime
    ],
)
def test_all_three_date_forms_are_accepted(text: str) -> None:
    assert parse_retry_after(text, now=NOW) == 5.0


def test_asctime_with_a_one_digit_day() -> None:
    assert parse_retry_after("Sun Feb  1 10:00:00 2026", now=NOW) == 18 * 86_400.0


def test_rfc850_two_digit_year_is_read_relative_to_now() -> None:
    # "more than 50 years in the future" -> the most recent past year with those digits
    assert parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now=NOW) == 784111777
    assert parse_http_date("Friday, 14-Jan-76 00:00:00 GMT", now=NOW) == (
        days_from_civil(2076, 1, 14) * 86_400
    )
    assert parse_http_date("Tuesday, 14-Jan-77 00:00:00 GMT", now=NOW) == (
        days_from_civil(1977, 1, 14) * 86_400
    )
    with pytest.raises(ValueError, match="now=None"):
        parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT")


def test_calendar_arithmetic_round_trips() -> None:
    for y in (1969, 1970, 2000, 2024, 2100, 2400):
        for m, d in ((1, 1), (2, 28), (12, 31)):
            assert year_of(days_from_civil(y, m, d) * 86_400) == y
    assert days_from_civil(2000, 3, 1) - days_from_civil(2000, 2, 28) == 2  # 2000 is leap
    assert days_from_civil(2100, 3, 1) - days_from_civil(2100, 2, 28) == 1  # 2100 is not


@pytest.mark.parametrize(
    "text",
    [
        "\u0663",
        "\u00b2",
        "1\u0663",
        "\uff15",  # '٣', '²', fullwidth
        "Wed, 14 Jan 2026 10:00:0\u0665 GMT",
        "Mon, 30 Feb 2026 10:00:00 GMT",  # no such day
        "Wed, 14 Jan 2026 24:00:00 GMT",
        "wed, 14 jan 2026 10:00:05 gmt",  # case-sensitive
        "Wed, 14 Jan 2026 10:00:05 +0000",  # not an HTTP-date
        "5\n",
        "+5",
        "5.0",
        "0x10",
    ],
)
def test_non_http_values_are_refused(text: str) -> None:
    with pytest.raises(
        ValueError,
        match=r"retry_after=.* is out of range: Retry-After "
        r"must be whole seconds \(ASCII digits",
    ):
        parse_retry_after(text, now=NOW)


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("31536000", 31536000.0),
        ("31536001", 31536000.0),
        ("99999999999999999999", 31536000.0),
        ("Wed, 14 Jan 2099 10:00:00 GMT", 31536000.0),
    ],
)
def test_more_than_a_year_is_clamped_to_a_year(text: str, expected: float) -> None:
    assert parse_retry_after(text, now=NOW) == expected


def test_max_retry_after_sees_the_clamped_value() -> None:
    # 31536000 and 31536001 must end the same way: the policy refuses to wait a year
    policy = RetryPolicy(max_retry_after=3000)
    ends = []
    for text in ("31536000", "31536001"):
        answer = Outcome.http(503, retry_after=parse_retry_after(text))
        r = policy.run(lambda a=answer: a, "GET", Mulberry32(20260114), sleep=None)  # type: ignore[misc]
        ends.append((r.reason, r.attempts, r.waits))
    assert ends[0] == ends[1] == (StopReason.RETRY_AFTER_TOO_LONG, 1, ())
