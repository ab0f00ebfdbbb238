"""Checkers for notebook 04 (the circuit breaker): counts, blocked events, the open error."""

from __future__ import annotations

from typing import Any

from ..core.breaker import CircuitBreaker, replay
from ..core.constants import BREAKER_EVENTS
from ..i18n import N_
from . import (
    Feedback,
    as_numbers,
    as_pair,
    as_whole,
    as_wholes,
    checker,
    shown,
    unanswered,
)
from .table import Exercise, Mistake, judge


def _sent_blocked(threshold: int, cooldown: int) -> tuple[int, int]:
    rows = replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown))
    sent = sum(r.allowed for r in rows)
    return sent, len(rows) - sent


def _never_reopens(threshold: int) -> tuple[int, int]:
    """Sent and blocked if the breaker never half-opened once open."""
    rows = replay(BREAKER_EVENTS, CircuitBreaker(threshold, 86_400_000))
    sent = sum(r.allowed for r in rows)
    return sent, len(rows) - sent


def _sent_blocked_pair(answer: Any) -> tuple[Any, Any]:
    pair = as_pair(answer) if isinstance(answer, (tuple, list)) else None
    return pair if pair is not None else (None, None)


def _read_sent_blocked(answer: Any) -> tuple[int, int] | None:
    sent, blocked = (as_whole(x) for x in _sent_blocked_pair(answer))
    return None if sent is None or blocked is None else (sent, blocked)


def _one(pair: tuple[int, int]) -> tuple[tuple[int, int]]:
    """A pair as the one value a mistake gives (a bare tuple would be alternatives)."""
    return (pair,)


THRESHOLD_TWO = Exercise(
    asks=N_("two whole numbers: requests sent and requests blocked"),
    inputs=lambda: {
        "events": len(BREAKER_EVENTS),
        "failures": sum(not ok for _t, ok in BREAKER_EVENTS),
    },
    want=lambda i: _sent_blocked(2, 5000),
    read=_read_sent_blocked,
    blank=lambda answer: (
        unanswered(answer) or any(unanswered(x) for x in _sent_blocked_pair(answer))
    ),
    quoted=lambda answer: dict(
        zip(("sent", "blocked"), map(shown, _sent_blocked_pair(answer)), strict=True)
    ),
    given=lambda got: {"sent": got[0], "blocked": got[1]},
    unreadable=N_(
        "sent={sent}, blocked={blocked}: give two whole numbers of requests, such as 1, 2."
    ),
    right=N_(
        "{sent} sent, {blocked} blocked: the breaker opens at 200 ms, so 600 ms is blocked too."
    ),
    otherwise=N_(
        "sent={sent}, blocked={blocked}: replay BREAKER_EVENTS through "
        "CircuitBreaker(threshold=2, cooldown=5000) and count."
    ),
    mistakes=(
        Mistake(
            N_(
                "sent={sent}, blocked={blocked} is what a threshold of 1 gives "
                "(or sent and blocked swapped); with 2 the breaker needs two "
                "failures in a row to open."
            ),
            gives=lambda i: _one(_sent_blocked(1, 5000)),
        ),
        Mistake(
            N_(
                "sent={sent}, blocked={blocked} opens two failures late: with a "
                "threshold of 2, the second failure in a row opens the breaker."
            ),
            gives=lambda i: _one(_sent_blocked(4, 5000)),
        ),
        Mistake(
            N_(
                "sent={sent}, blocked={blocked}: as if the breaker stayed open "
                "for good; after the cooldown it lets one trial through."
            ),
            gives=lambda i: _one(_never_reopens(2)),
        ),
        Mistake(
            N_(
                "sent={sent}, blocked=0: a breaker that never opens; two failures "
                "in a row open this one."
            ),
            gives=lambda i: _one((i["events"], 0)),
        ),
        Mistake(
            N_(
                "sent=0, blocked={blocked}: the breaker starts closed and sends "
                "until failures open it."
            ),
            gives=lambda i: _one((0, i["events"])),
        ),
        Mistake(
            N_(
                "blocked={blocked} counts the failures; a blocked request is one "
                "the breaker refuses without sending it."
            ),
            when=lambda got, i: got[1] == i["failures"],
            example=lambda i: ((i["events"], i["failures"]),),
        ),
        Mistake(
            N_(
                "sent={sent}, blocked={blocked} is the lesson's threshold of 3; "
                "with 2 the breaker opens one failure earlier."
            ),
            gives=lambda i: _one(_sent_blocked(3, 5000)),
        ),
        Mistake(
            N_(
                "sent={sent} and blocked={blocked} should add up to {events}: every "
                "event is either sent or blocked."
            ),
            when=lambda got, i: got[0] + got[1] != i["events"],
            example=lambda i: (
                (i["want"][0], i["want"][0]),
                (i["want"][1], i["want"][1]),
                (i["want"][0] + 1, i["want"][1]),
            ),
        ),
    ),
)


@checker
def check_threshold_two(sent: Any, blocked: Any) -> Feedback:
    """The lesson's nine events with threshold 2 (cooldown 5000 ms): sent and blocked.

    >>> print(check_threshold_two(6, 3).message[:38])
    sent=6, blocked=3 is the lesson's thre
    """
    return judge(THRESHOLD_TWO, (sent, blocked))


def _blocked(threshold: int, cooldown: int) -> list[int]:
    return [
        r.now for r in replay(BREAKER_EVENTS, CircuitBreaker(threshold, cooldown)) if not r.allowed
    ]


def _blocked_inputs() -> dict[str, Any]:
    rows = replay(BREAKER_EVENTS, CircuitBreaker(3, 2000))
    return {
        "sent": [r.now for r in rows if r.allowed],
        "rows": [i + 1 for i, r in enumerate(rows) if not r.allowed],
        "failed": [t for t, ok in BREAKER_EVENTS if not ok],
        "times_all": [r.now for r in rows],
    }


def _read_times(answer: Any) -> list[int] | None:
    whole = as_wholes(answer)
    return None if whole is None else sorted(whole)


def _missing(got: list[int], i: Any) -> list[int]:
    return sorted(set(i["want"]) - set(got))


def _extra(got: list[int], i: Any) -> list[int]:
    return sorted(set(got) - set(i["want"]))


BLOCKED_TIMES = Exercise(
    asks=N_("a list of event times in ms, e.g. [900]"),
    inputs=_blocked_inputs,
    want=lambda i: _blocked(3, 2000),
    read=_read_times,
    named=("times",),
    unreadable=N_("times={times}: give a list of event times in ms."),
    right=N_(
        "only 900 and 1500 ms: at 8000 ms exactly 2000 ms have passed since the "
        "breaker reopened at 6000, and a cooldown that is over lets the trial "
        "through."
    ),
    otherwise=N_(
        "times={times}: replay BREAKER_EVENTS through CircuitBreaker(3, 2000) "
        "and list the rows with allowed False."
    ),
    raw=(
        Mistake(
            N_(
                "times={times}: those are seconds; give the event times in ms, as "
                "BREAKER_EVENTS does."
            ),
            when=lambda answer, i: (
                as_wholes(answer) is None
                and (seconds := as_numbers(answer)) is not None
                and sorted(round(x * 1000) for x in seconds) == i["want"]
            ),
            example=lambda i: [t / 1000 for t in i["want"]],
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "times={times}: those are the events sent; the question asks for the "
                "ones the breaker blocks."
            ),
            gives=lambda i: i["sent"],
        ),
        Mistake(
            N_("times={times}: those are row numbers; give the events' times in ms."),
            gives=lambda i: i["rows"],
        ),
        Mistake(
            N_(
                "times={times}: those are the failures; a blocked event is one the "
                "breaker refuses without sending it."
            ),
            gives=lambda i: i["failed"],
        ),
        Mistake(
            N_(
                "times={times} is a threshold of 2 (exercise 2's); this breaker opens "
                "at the third failure in a row."
            ),
            gives=lambda i: _blocked(2, 2000),
        ),
        Mistake(
            N_(
                "times=[]: the breaker opens after three failures in a row, and a "
                "cooldown of 2000 ms has not passed right after that."
            ),
            gives=lambda i: [],
        ),
        Mistake(
            N_(
                "times=[900, 1500, 8000] is the lesson's answer for 5000 ms. With "
                "2000 ms, how long after the reopening at 6000 ms does 8000 come?"
            ),
            gives=lambda i: _blocked(3, 5000),
        ),
        Mistake(
            N_(
                "times={times}: {time} ms is blocked too: the breaker opened less than "
                "2000 ms before it."
            ),
            when=lambda got, i: bool(_missing(got, i)) and not _extra(got, i),
            extra=lambda got, i: {"time": _missing(got, i)[0]},
            example=lambda i: (i["want"][:-1], i["want"][1:]),
        ),
        Mistake(
            N_(
                "times={times}: {time} ms is sent: by then the breaker is closed, or "
                "its 2000 ms cooldown is over and it lets a trial through."
            ),
            when=lambda got, i: (
                bool(_extra(got, i))
                and not _missing(got, i)
                and _extra(got, i)[0] in i["times_all"]
            ),
            extra=lambda got, i: {"time": _extra(got, i)[0]},
            example=lambda i: sorted([*i["want"], i["sent"][-1]]),
        ),
    ),
)


@checker
def check_blocked_times(times: Any) -> Feedback:
    """Which of the lesson's events are blocked when the cooldown is 2000 ms?

    >>> print(check_blocked_times([]).message[:40])
    times=[]: the breaker opens after three
    """
    return judge(BLOCKED_TIMES, times)


def _retry_in_ms(cooldown: int, now: int = 1500) -> int:
    """The lesson's breaker, opened by its first three events: retry_in at ``now``."""
    cb = CircuitBreaker(3, cooldown)
    replay(BREAKER_EVENTS[:3], cb)
    return cb.retry_in(now)


def _retry_in_inputs() -> dict[str, Any]:
    ms = _retry_in_ms(COOLDOWN)
    shown_ms = _retry_in_ms(SHOWN_COOLDOWN)
    return {
        "ms": ms,
        "cooldown": COOLDOWN,
        "refused": 1500,
        "opened": 1500 - (COOLDOWN - ms),
        "shown": (shown_ms // 1000, -(-shown_ms // 1000), shown_ms),
    }


def _up(ms: int) -> int:
    return -(-ms // 1000)


RETRY_IN = Exercise(
    asks=N_("a whole number of seconds"),
    inputs=_retry_in_inputs,
    want=lambda i: _up(i["ms"]),
    fields=lambda i, want: {"before": want - 1},
    read=as_whole,
    named=("seconds",),
    quote_early=lambda answer, number: shown(answer),
    unreadable=N_("seconds={seconds}: give a whole number of seconds."),
    right=N_(
        "retry_in is {ms} ms (opened at 600, cooldown {cooldown}), so say {want} "
        "s: after {before} s the button would still do nothing."
    ),
    otherwise=N_(
        "seconds={seconds}: read err.retry_in (ms) from the BreakerOpen error "
        "at 1500 ms and round up to whole seconds."
    ),
    early=(
        Mistake(
            N_(
                "seconds={seconds} is the whole cooldown; part of it has passed "
                "since the breaker opened at 600 ms."
            ),
            when=lambda x, i: not x.is_integer() and x * 1000 == i["cooldown"],
            example=lambda i: i["cooldown"] / 1000,
        ),
        Mistake(
            N_(
                "seconds={seconds}: the button needs whole seconds, and after "
                "{down} s the breaker is still open: round up."
            ),
            when=lambda x, i: not x.is_integer() and x * 1000 == i["ms"],
            example=lambda i: i["ms"] / 1000,
            extra=lambda x, i: {"down": int(x)},
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "seconds={seconds} is the clock time at which a trial is allowed "
                "(opened + cooldown); the user waits from the refused call at "
                "1500 ms."
            ),
            gives=lambda i: (i["opened"] + i["cooldown"], (i["opened"] + i["cooldown"]) / 1000),
        ),
        Mistake(
            N_(
                "seconds={seconds} counts the cooldown from the refused call at "
                "1500 ms; it runs from the moment the breaker opened."
            ),
            gives=lambda i: (i["refused"] + i["cooldown"], (i["refused"] + i["cooldown"]) // 1000),
        ),
        Mistake(
            N_("seconds={seconds} is in ms; the message speaks to a person in seconds."),
            gives=lambda i: i["want"] * 1000,
        ),
        Mistake(
            N_(
                "seconds={seconds} is the time that has passed since the breaker "
                "opened; the user waits for what remains of the cooldown."
            ),
            gives=lambda i: (i["refused"] - i["opened"], _up(i["refused"] - i["opened"])),
        ),
        Mistake(
            N_("seconds={seconds} is the wait in ms; the message speaks to a person in seconds."),
            gives=lambda i: i["ms"],
        ),
        Mistake(
            N_(
                "seconds={seconds} is the whole cooldown; part of it has passed "
                "since the breaker opened at 600 ms."
            ),
            gives=lambda i: (i["cooldown"], _up(i["cooldown"])),
        ),
        Mistake(
            N_(
                "seconds={seconds} is the 5000 ms breaker's answer (4100 ms); this "
                "one cools down for 7500 ms."
            ),
            gives=lambda i: i["shown"],
        ),
        Mistake(
            N_(
                "seconds={seconds} rounds {ms} ms down: after {seconds} s the breaker "
                "is still open and the button does nothing. Round up."
            ),
            when=lambda got, i: got == i["ms"] // 1000 and i["ms"] % 1000 != 0,
            example=lambda i: i["ms"] // 1000,
        ),
    ),
)


@checker
def check_retry_in(seconds: Any) -> Feedback:
    """With a cooldown of :data:`COOLDOWN` ms the lesson's breaker refuses a call at
    1500 ms: how many seconds should the user wait? (The notebook shows the 5000 ms
    breaker's answer, 4100 ms.)

    Whole seconds, rounded so that the "try again" button works when they are up.

    >>> check_retry_in(6).correct
    False
    """
    return judge(RETRY_IN, seconds)


#: Exercise 4's cooldown (the lesson's breaker, whose answer the notebook shows, has 5000).
COOLDOWN = 7500
#: The cooldown of the lesson's breaker, whose answer the notebook shows above.
SHOWN_COOLDOWN = 5000
