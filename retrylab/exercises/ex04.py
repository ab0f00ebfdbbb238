"""Checkers for notebook 04 (the circuit breaker): counts, blocked events, the open error."""

from __future__ import annotations

from typing import Any

from ..core.breaker import CircuitBreaker, replay
from ..core.constants import BREAKER_EVENTS
from ..i18n import N_, _
from . import (
    Feedback,
    as_numbers,
    as_whole,
    as_wholes,
    checker,
    prompt,
    right,
    shown,
    unanswered,
    wrong,
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


@checker
def check_threshold_two(sent: Any, blocked: Any) -> Feedback:
    """The lesson's nine events with threshold 2 (cooldown 5000 ms): sent and blocked."""
    if unanswered(sent) or unanswered(blocked):
        return prompt(_("two whole numbers: requests sent and requests blocked"))
    given = as_whole(sent), as_whole(blocked)
    if given[0] is None or given[1] is None:
        return wrong(
            _(
                "sent={sent}, blocked={blocked}: give two whole numbers of requests, such as 1, 2."
            ).format(sent=shown(sent), blocked=shown(blocked))
        )
    sent, blocked = given
    want_sent, want_blocked = _sent_blocked(2, 5000)
    if (sent, blocked) != (want_sent, want_blocked):
        if (sent, blocked) == _sent_blocked(1, 5000):
            return wrong(
                _(
                    "sent={sent}, blocked={blocked} is what a threshold of 1 gives "
                    "(or sent and blocked swapped); with 2 the breaker needs two "
                    "failures in a row to open."
                ).format(sent=sent, blocked=blocked)
            )
        if (sent, blocked) == _sent_blocked(4, 5000):
            return wrong(
                _(
                    "sent={sent}, blocked={blocked} opens two failures late: with a "
                    "threshold of 2, the second failure in a row opens the breaker."
                ).format(sent=sent, blocked=blocked)
            )
        if (sent, blocked) == _never_reopens(2):
            return wrong(
                _(
                    "sent={sent}, blocked={blocked}: as if the breaker stayed open "
                    "for good; after the cooldown it lets one trial through."
                ).format(sent=sent, blocked=blocked)
            )
        if (sent, blocked) == (len(BREAKER_EVENTS), 0):
            return wrong(
                _(
                    "sent={sent}, blocked=0: a breaker that never opens; two failures "
                    "in a row open this one."
                ).format(sent=sent)
            )
        if (sent, blocked) == (0, len(BREAKER_EVENTS)):
            return wrong(
                _(
                    "sent=0, blocked={blocked}: the breaker starts closed and sends "
                    "until failures open it."
                ).format(blocked=blocked)
            )
        failures = sum(not ok for _t, ok in BREAKER_EVENTS)
        if blocked == failures:
            return wrong(
                _(
                    "blocked={blocked} counts the failures; a blocked request is one "
                    "the breaker refuses without sending it."
                ).format(blocked=blocked)
            )
    if (sent, blocked) == _sent_blocked(3, 5000):
        return wrong(
            _(
                "sent={sent}, blocked={blocked} is the lesson's threshold of 3; "
                "with 2 the breaker opens one failure earlier."
            ).format(sent=sent, blocked=blocked)
        )
    if sent + blocked != len(BREAKER_EVENTS):
        return wrong(
            _(
                "sent={sent} and blocked={blocked} should add up to {events}: every "
                "event is either sent or blocked."
            ).format(sent=repr(sent), blocked=repr(blocked), events=len(BREAKER_EVENTS))
        )
    if (sent, blocked) != (want_sent, want_blocked):
        return wrong(
            _(
                "sent={sent}, blocked={blocked}: replay BREAKER_EVENTS through "
                "CircuitBreaker(threshold=2, cooldown=5000) and count."
            ).format(sent=sent, blocked=blocked)
        )
    return right(
        _(
            "{sent} sent, {blocked} blocked: the breaker opens at 200 ms, so 600 ms is blocked too."
        ).format(sent=want_sent, blocked=want_blocked)
    )


@checker
def check_blocked_times(times: Any) -> Feedback:
    """Which of the lesson's events are blocked when the cooldown is 2000 ms?"""
    if unanswered(times):
        return prompt(_("a list of event times in ms, e.g. [900]"))
    rows = replay(BREAKER_EVENTS, CircuitBreaker(3, 2000))
    want = [r.now for r in rows if not r.allowed]
    whole = as_wholes(times)
    numbers = as_numbers(times)
    if whole is None and numbers is not None and sorted(round(x * 1000) for x in numbers) == want:
        return wrong(
            _(
                "times={times}: those are seconds; give the event times in ms, as "
                "BREAKER_EVENTS does."
            ).format(times=shown(times))
        )
    if whole is None:
        return wrong(
            _("times={times}: give a list of event times in ms.").format(times=shown(times))
        )
    got = sorted(whole)
    allowed = [r.now for r in rows if r.allowed]
    failed = [t for t, ok in BREAKER_EVENTS if not ok]
    if got == allowed:
        return wrong(
            _(
                "times={times}: those are the events sent; the question asks for the "
                "ones the breaker blocks."
            ).format(times=repr(got))
        )
    if got and got == [i + 1 for i, r in enumerate(rows) if not r.allowed]:
        return wrong(
            _("times={times}: those are row numbers; give the events' times in ms.").format(
                times=repr(got)
            )
        )
    if got == failed:
        return wrong(
            _(
                "times={times}: those are the failures; a blocked event is one the "
                "breaker refuses without sending it."
            ).format(times=repr(got))
        )
    two = [r.now for r in replay(BREAKER_EVENTS, CircuitBreaker(2, 2000)) if not r.allowed]
    if got == two and got != want:
        return wrong(
            _(
                "times={times} is a threshold of 2 (exercise 2's); this breaker opens "
                "at the third failure in a row."
            ).format(times=repr(got))
        )
    if not got:
        return wrong(
            _(
                "times=[]: the breaker opens after three failures in a row, and a "
                "cooldown of 2000 ms has not passed right after that."
            )
        )
    if got == [900, 1500, 8000]:
        return wrong(
            _(
                "times=[900, 1500, 8000] is the lesson's answer for 5000 ms. With "
                "2000 ms, how long after the reopening at 6000 ms does 8000 come?"
            )
        )
    missing = sorted(set(want) - set(got))
    extra = sorted(set(got) - set(want))
    opened = {r.now: r for r in rows}
    if missing and not extra:
        return wrong(
            _(
                "times={times}: {time} ms is blocked too: the breaker opened less than "
                "2000 ms before it."
            ).format(times=repr(got), time=missing[0])
        )
    if extra and not missing and extra[0] in opened:
        return wrong(
            _(
                "times={times}: {time} ms is sent: by then the breaker is closed, or "
                "its 2000 ms cooldown is over and it lets a trial through."
            ).format(times=repr(got), time=extra[0])
        )
    if got != want:
        return wrong(
            _(
                "times={times}: replay BREAKER_EVENTS through CircuitBreaker(3, 2000) "
                "and list the rows with allowed False."
            ).format(times=repr(got))
        )
    return right(
        _(
            "only 900 and 1500 ms: at 8000 ms exactly 2000 ms have passed since the "
            "breaker reopened at 6000, and a cooldown that is over lets the trial "
            "through."
        )
    )


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
    quote=lambda answer: shown(answer),
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
        ),
        Mistake(
            N_(
                "seconds={seconds}: the button needs whole seconds, and after "
                "{down} s the breaker is still open: round up."
            ),
            when=lambda x, i: not x.is_integer() and x * 1000 == i["ms"],
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
