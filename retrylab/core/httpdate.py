"""HTTP-dates (RFC 9110 section 5.6.7) to POSIX seconds, without a clock or a calendar library.

A recipient must accept all three forms a server may send:

- IMF-fixdate, the one servers should send: ``Sun, 06 Nov 1994 08:49:37 GMT``;
- the obsolete RFC 850 form, two-digit year: ``Sunday, 06-Nov-94 08:49:37 GMT``;
- ANSI C's asctime() form, no zone: ``Sun Nov  6 08:49:37 1994``.

All three are UTC, and the grammar is case-sensitive. An RFC 850 year is read as
the RFC says: a two-digit year that "appears to be more than 50 years in the
future" is the most recent year in the past with those digits, so the reading
needs today's date: ``now`` is passed in (the core has no clock).

Days are counted with the proleptic Gregorian calendar (the days-from-civil
algorithm, H. Hinnant, "chrono-Compatible Low-Level Date Algorithms").
"""

from __future__ import annotations

import re

__all__ = ["parse_http_date"]

_DAYS = ("Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun")
_LONG_DAYS = ("Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday")
_MONTHS = ("Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec")
_D = "[0-9]"  # ASCII digits only: str.isdigit and \d also take '٣' and '²'
_TIME = rf"(?P<h>{_D}{{2}}):(?P<m>{_D}{{2}}):(?P<s>{_D}{{2}})"
_MON = "(?P<mon>" + "|".join(_MONTHS) + ")"
_IMF = re.compile(
    rf"(?:{'|'.join(_DAYS)}), (?P<d>{_D}{{2}}) {_MON} (?P<y>{_D}{{4}}) "
    rf"{_TIME} GMT"
)
_RFC850 = re.compile(
    rf"(?:{'|'.join(_LONG_DAYS)}), (?P<d>{_D}{{2}})-{_MON}-(?P<y>{_D}{{2}}) "
    rf"{_TIME} GMT"
)
_ASCTIME = re.compile(
    rf"(?:{'|'.join(_DAYS)}) {_MON} (?P<d>{_D}{{2}}| {_D}) {_TIME} "
    rf"(?P<y>{_D}{{4}})"
)


def days_from_civil(year: int, month: int, day: int) -> int:
    """Days since 1970-01-01 of a proleptic Gregorian date.

    >>> days_from_civil(1970, 1, 1), days_from_civil(2026, 1, 14)
    (0, 20467)
    """
    y = year - (month <= 2)
    era = y // 400
    yoe = y - era * 400
    doy = (153 * (month + (-3 if month > 2 else 9)) + 2) // 5 + day - 1
    doe = yoe * 365 + yoe // 4 - yoe // 100 + doy
    return era * 146097 + doe - 719468


def year_of(posix_seconds: float) -> int:
    """The UTC year of a POSIX time (the inverse of :func:`days_from_civil`, year only).

    >>> year_of(0), year_of(1768384800.0)
    (1970, 2026)
    """
    z = int(posix_seconds // 86_400) + 719468
    era = z // 146097
    doe = z - era * 146097
    yoe = (doe - doe // 1460 + doe // 36524 - doe // 146096) // 365
    doy = doe - (365 * yoe + yoe // 4 - yoe // 100)
    mp = (5 * doy + 2) // 153
    month = mp + (3 if mp < 10 else -9)
    return yoe + era * 400 + (month <= 2)


def _days_in_month(year: int, month: int) -> int:
    if month == 2:
        leap = year % 4 == 0 and (year % 100 != 0 or year % 400 == 0)
        return 29 if leap else 28
    return 30 if month in (4, 6, 9, 11) else 31


def parse_http_date(text: str, now: float | None = None) -> int | None:
    """POSIX seconds of an HTTP-date in any of its three forms; None if ``text`` is not one.

    ``now`` (POSIX seconds) is needed only for the RFC 850 form's two-digit
    year; without it that form raises ValueError. A date that matches the
    grammar but does not exist (30 Feb, 25:00) is not an HTTP-date.

    >>> parse_http_date("Sun, 06 Nov 1994 08:49:37 GMT")
    784111777
    >>> parse_http_date("Sun Nov  6 08:49:37 1994")
    784111777
    >>> parse_http_date("Sunday, 06-Nov-94 08:49:37 GMT", now=1768384800.0)
    784111777
    >>> parse_http_date("sun, 06 nov 1994 08:49:37 gmt") is None     # case-sensitive
    True
    """
    match = _IMF.fullmatch(text) or _ASCTIME.fullmatch(text)
    if match is not None:
        year = int(match["y"])
    else:
        match = _RFC850.fullmatch(text)
        if match is None:
            return None
        if now is None:
            raise ValueError(
                f"now=None is out of range: the RFC 850 date {text!r} has a "
                "two-digit year, so today's date (POSIX seconds) is needed"
            )
        this_year = year_of(now)
        year = this_year // 100 * 100 + int(match["y"])
        if year > this_year + 50:
            year -= 100
    month = _MONTHS.index(match["mon"]) + 1
    day, hour, minute, second = (int(match[k]) for k in ("d", "h", "m", "s"))
    if not (
        1 <= day <= _days_in_month(year, month) and hour <= 23 and minute <= 59 and second <= 60
    ):
        return None
    return days_from_civil(year, month, day) * 86_400 + hour * 3600 + minute * 60 + second
