"""The checker of the circuit breaker the student writes.

Part of :mod:`retrylab.exercises.build` (import the checkers from there); see
its docstring for how the checkers judge.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from ...core.breaker import CircuitBreaker
from ...core.rng import Mulberry32
from ...i18n import N_, _, pgettext
from .. import Feedback, checker, prompt, right, unanswered, wrong
from .harness import (
    BREAKER_COOLDOWN,
    BREAKER_EVENTS,
    BREAKER_THRESHOLD,
    Session,
    as_bool,
    not_callable,
    quiet,
    run,
)

# == 5. the circuit breaker ==============================================================

#: One event: (now in ms, did the request succeed, extra allow() calls while it is in flight).
_Event = tuple[int, bool, int]


def _history(log: Sequence[str]) -> str:
    """The last eight calls, as code: ``allow(0) -> True, record(False, 0)``."""
    return ", ".join(log[-8:])


#: The verdict on an unseen sequence: (with a history?, lets the request through?) -> text.
_UNSEEN_VERDICTS = {
    (True, True): N_(
        "the lesson's trace matches, but with threshold={threshold}, "
        "cooldown={cooldown}, after {history}, {call} returned {got}; retrylab's "
        "CircuitBreaker lets the request through (state {state})."
    ),
    (True, False): N_(
        "the lesson's trace matches, but with threshold={threshold}, "
        "cooldown={cooldown}, after {history}, {call} returned {got}; "
        "retrylab's CircuitBreaker refuses it (state {state})."
    ),
    (False, True): N_(
        "the lesson's trace matches, but with threshold={threshold}, "
        "cooldown={cooldown}, {call} returned {got}; retrylab's CircuitBreaker "
        "lets the request through (state {state})."
    ),
    (False, False): N_(
        "the lesson's trace matches, but with threshold={threshold}, "
        "cooldown={cooldown}, {call} returned {got}; retrylab's CircuitBreaker "
        "refuses it (state {state})."
    ),
}


def _drive(
    s: Session,
    cls: Any,
    threshold: int,
    cooldown: int,
    events: Sequence[_Event],
    lesson: bool = False,
) -> Feedback | None:
    """Replay ``events`` on the student's breaker and retrylab's in lockstep."""
    name = getattr(cls, "__name__", "cls")
    student = s.call(f"{name}({threshold}, {cooldown})", cls, threshold, cooldown, answer=False)
    for method in ("allow", "record"):
        if not callable(getattr(student, method, None)):
            return wrong(
                _(
                    "{call} has no {method}() method: the breaker needs "
                    "allow(now) -> bool and record(success, now)."
                ).format(call=f"{name}({threshold}, {cooldown})", method=method)
            )
    ref = CircuitBreaker(threshold, cooldown)
    log: list[str] = []
    for row, (now, success, extra) in enumerate(events, 1):
        admitted = False
        for k in range(1 + extra):
            what = f"allow({now})"
            got = as_bool(s.call(f"{name}(...).{what}", student.allow, now), what)
            want = ref.allow(now)
            if got != want:
                if lesson and want:
                    where = _(
                        "row {row} of the lesson's trace (threshold=3, cooldown=5000): "
                        "allow({now}) returned {got}; the lesson's breaker lets the "
                        "request through (state {state})."
                    )
                elif lesson:
                    where = _(
                        "row {row} of the lesson's trace (threshold=3, cooldown=5000): "
                        "allow({now}) returned {got}; the lesson's breaker refuses it "
                        "(state {state})."
                    )
                else:
                    where = _(_UNSEEN_VERDICTS[bool(log), want])
                call = (
                    _("{call} (a second call while the trial is in flight)").format(call=what)
                    if k
                    else what
                )
                return wrong(
                    where.format(
                        row=row,
                        now=now,
                        got=got,
                        state=_(ref.state.value),
                        threshold=threshold,
                        cooldown=cooldown,
                        history=_history(log),
                        call=call,
                    )
                )
            log.append(f"allow({now}) -> {got}")
            admitted = admitted or (k == 0 and want)
            if not admitted:
                break
        if admitted:
            s.call(f"{name}(...).record({success}, {now})", student.record, success, now)
            ref.record(success, now)
            log.append(f"record({success}, {now})")
    return None


def _observe(
    s: Session, cls: Any, threshold: int, cooldown: int, events: Sequence[_Event]
) -> list[bool] | None:
    """The student's allow() answers on ``events`` (sent when allowed), None on failure."""

    def go() -> list[bool]:
        b = s.call(f"{threshold}, {cooldown}", cls, threshold, cooldown, answer=False)
        seen: list[bool] = []
        for now, success, extra in events:
            admitted = False
            for k in range(1 + extra):
                a = as_bool(s.call(f"allow({now})", b.allow, now), f"allow({now})")
                seen.append(a)
                admitted = admitted or (k == 0 and a)
                if not admitted:
                    break
            if admitted:
                s.call(f"record({success}, {now})", b.record, success, now)
        return seen

    out: list[bool] | None = quiet(s, go)
    return out


T, F = True, False
#: (threshold, cooldown, events, [(the student's allow() answers that show a mistake, hint)])
_BREAKER_PROBES: tuple[
    tuple[int, int, tuple[_Event, ...], tuple[tuple[list[bool], str], ...]], ...
] = (
    (
        3,
        100,
        ((0, F, 0), (1, F, 0), (2, F, 0), (3, F, 0)),
        (
            (
                [T, T, F, F],
                N_(
                    "With threshold=3 it opened after 2 failures in a row: it opens on "
                    "the threshold-th failure (ardisikHata >= ESIK), not one before."
                ),
            ),
            (
                [T, T, T, T],
                N_(
                    "With threshold=3 it was still closed after 3 failures in a row: the "
                    "threshold-th failure opens it (>=, not >)."
                ),
            ),
        ),
    ),
    (
        1,
        100,
        ((0, F, 0), (100, F, 1)),
        (
            (
                [T, T, T],
                N_(
                    "While half-open your breaker let a second call through before the "
                    "trial's result came back: half-open admits ONE trial, and allow() is "
                    "False until record() reports it (the lesson's izinVer lets every call "
                    "through; with many callers that is a flood, not a trial)."
                ),
            ),
        ),
    ),
    (
        3,
        100,
        ((0, F, 0), (1, F, 0), (2, T, 0), (3, F, 0), (4, F, 0)),
        (
            (
                [T, T, T, T, F],
                N_(
                    "After failure, failure, success, failure your breaker opened: a "
                    "success must reset the count, the threshold counts failures IN A "
                    "ROW (ardisikHata = 0 on success)."
                ),
            ),
        ),
    ),
    (
        1,
        100,
        ((0, F, 0), (100, T, 0), (101, T, 0)),
        (
            (
                [T, F, T],
                N_(
                    "Exactly cooldown ms after opening, allow() must admit the trial: the "
                    "lesson's test is simdi - acilma >= SOGUMA (now - opened_at >= cooldown, "
                    "not >)."
                ),
            ),
            (
                [T, F, F],
                N_(
                    "After the cooldown your breaker never let a trial through: once "
                    "now - opened_at >= cooldown it turns half-open and allow() admits one "
                    "trial."
                ),
            ),
        ),
    ),
    (
        1,
        100,
        ((0, F, 0), (99, T, 0), (100, T, 0)),
        (
            (
                [T, T, T],
                N_(
                    "Your breaker lets a call through one ms before the cooldown is over "
                    "(with cooldown=100, 99 ms after opening): it is over only when "
                    "now - opened_at >= cooldown."
                ),
            ),
        ),
    ),
    (
        3,
        100,
        ((0, F, 0), (1, F, 0), (2, F, 0), (102, F, 0), (103, T, 1)),
        (
            (
                [T, T, T, T, T, T],
                N_(
                    "After the half-open trial failed at 102 ms your breaker let "
                    "calls through at 103 ms: a failed trial opens the breaker "
                    "again at once, with a fresh cooldown counted from the trial "
                    "(the lesson's 6000 ms row: acilma = simdi)."
                ),
            ),
            (
                [T, T, T, T, T, F],
                N_(
                    "After the half-open trial failed at 102 ms your breaker let "
                    "a call through at 103 ms: a failed trial opens the breaker "
                    "again, with a fresh cooldown counted from the trial's time "
                    "(the lesson's 6000 ms row: acilma = simdi), not from the "
                    "first opening."
                ),
            ),
        ),
    ),
    (
        1,
        100,
        ((0, F, 0), (100, T, 0), (101, T, 0), (102, T, 0)),
        (
            (
                [T, T, F, F],
                N_(
                    "After a successful trial the breaker must close and let calls "
                    "through again (the lesson's 11500 ms row)."
                ),
            ),
        ),
    ),
    (
        1,
        100,
        ((0, F, 0), (50, T, 0), (100, T, 0), (150, T, 0)),
        (
            (
                [T, F, F, F],
                N_(
                    "A refused call restarted the cooldown (with cooldown=100, opened "
                    "at 0 and refused at 50, it still refused at 100 and 150): the "
                    "cooldown is "
                    "counted from the opening (acilma); a refused allow() changes "
                    "nothing."
                ),
            ),
        ),
    ),
    (
        2,
        100,
        ((0, F, 0), (1, F, 0), (101, T, 0), (102, F, 0), (103, T, 0)),
        (
            (
                [T, T, T, T, F],
                N_(
                    "After a successful trial closed the breaker, a single failure "
                    "opened it again (threshold=2): closing starts the count of "
                    "failures in a row from 0."
                ),
            ),
        ),
    ),
)


def _breaker_hint(s: Session, cls: Any) -> str:
    for threshold, cooldown, events, signs in _BREAKER_PROBES:
        seen = _observe(s, cls, threshold, cooldown, events)
        for answers, hint in signs:
            if seen == answers:
                return " " + _(hint)
    return ""


def _boundary_events(threshold: int, cooldown: int) -> list[_Event]:
    """Every boundary of the rule once: threshold - 1 failures then a success (still
    closed, count reset), the threshold-th failure (open), a call at cooldown - 1
    (refused) and at cooldown (the trial, with a second call in flight), the trial
    failing (open again, a fresh cooldown), the next trial succeeding (closed), then
    threshold - 1 failures (still closed: the count started again) and the
    threshold-th (open)."""
    events: list[_Event] = []
    t = 0

    def fail(count: int) -> None:
        nonlocal t
        for _k in range(count):
            events.append((t, False, 0))
            t += 1

    fail(threshold - 1)
    events.append((t, True, 0))
    t += 1
    fail(threshold)
    opened = t - 1
    for success in (False, True):
        events.append((opened + cooldown - 1, True, 0))  # refused: one ms early
        events.append((opened + cooldown, success, 1))  # the trial, a second call
        opened += cooldown
    t = opened + 1
    fail(threshold - 1)
    events.append((t, True, 0))
    t += 1
    fail(threshold)
    events.append((t, True, 0))  # refused: open again
    return events


def _breaker_cases() -> list[tuple[int, int, list[_Event]]]:
    """Unseen event sequences: each boundary of the rule for thresholds 1-4 and three
    cooldowns, then 60 random ones whose steps land on cooldown - 1, cooldown and
    cooldown + 1."""
    cases = [
        (threshold, cooldown, _boundary_events(threshold, cooldown))
        for threshold in (1, 2, 3, 4)
        for cooldown in (1, 100, 5000)
    ]
    for seed in range(1, 61):
        rng = Mulberry32(seed * 104729)
        threshold = 1 + int(rng() * 4)
        cooldown = (1, 50, 100, 5000)[int(rng() * 4)]
        now, events = 0, []
        for _event in range(12 + int(rng() * 12)):
            step = (0, 1, cooldown - 1, cooldown, cooldown + 1, int(rng() * 2 * cooldown))
            now += step[int(rng() * len(step))]
            extra = 1 if rng() < 0.2 else 2 if rng() < 0.05 else 0
            events.append((now, rng() < 0.35, extra))
        cases.append((threshold, cooldown, events))
    return cases


@checker
def check_breaker(cls: Any) -> Feedback:
    """Judge a breaker class ``cls(threshold, cooldown)`` with ``allow(now) -> bool``
    and ``record(success, now)``.

    The rule: closed lets calls through; the threshold-th failure in a row
    opens it (a success resets the count); open refuses until
    ``now - opened_at >= cooldown``, then the first allow() admits ONE trial
    (half-open) and refuses others until it is recorded; its success closes,
    its failure re-opens with a fresh cooldown. Judged first on the lesson's
    nine-row trace, then on 60 unseen event sequences, against
    :class:`retrylab.CircuitBreaker`.

    >>> class Breaker:
    ...     def __init__(self, threshold, cooldown):
    ...         self.threshold, self.cooldown = threshold, cooldown
    ...         self.failures, self.opened, self.trial = 0, None, False
    ...     def allow(self, now):
    ...         if self.opened is None:
    ...             return True
    ...         if self.trial or now - self.opened < self.cooldown:
    ...             return False
    ...         self.trial = True
    ...         return True
    ...     def record(self, success, now):
    ...         if self.trial:
    ...             self.trial, self.failures = False, 0
    ...             self.opened = None if success else now
    ...             return
    ...         self.failures = 0 if success else self.failures + 1
    ...         if self.failures >= self.threshold:
    ...             self.opened = now
    >>> check_breaker(Breaker)
    Correct: ... nine rows ...
    >>> class Forgetful(Breaker):
    ...     def record(self, success, now):
    ...         return super().record(False, now)   # a success is counted as a failure
    >>> check_breaker(Forgetful)
    Try again: row 9 of the lesson's trace ...
    >>> from retrylab import CircuitBreaker
    >>> check_breaker(CircuitBreaker)
    Try again: your class ... calls retrylab's CircuitBreaker: ...write it yourself...
    """
    if unanswered(cls):
        return prompt(_("your class {name}").format(name="Breaker(threshold, cooldown)"))
    if not callable(cls):
        return not_callable(
            cls,
            _("a class {signature} with allow(now) and record(success, now)").format(
                signature="Breaker(threshold, cooldown)"
            ),
        )

    def battery(s: Session) -> Feedback:
        events = [(now, ok, 0) for now, ok in BREAKER_EVENTS]
        verdict = _drive(s, cls, BREAKER_THRESHOLD, BREAKER_COOLDOWN, events, lesson=True)
        if verdict is not None:
            return wrong(verdict.message + _breaker_hint(s, cls))
        cases = _breaker_cases()
        for threshold, cooldown, evs in cases:
            verdict = _drive(s, cls, threshold, cooldown, evs)
            if verdict is not None:
                return wrong(verdict.message + _breaker_hint(s, cls))

        return right(
            _(
                "the lesson's nine rows (sent 6, blocked 3) and {cases} unseen event "
                "sequences match: every boundary (threshold - 1 and threshold failures, "
                "cooldown - 1 and cooldown ms, a trial failing and succeeding) and a "
                "second call during the half-open trial included."
            ).format(cases=len(cases))
        )

    return run(
        battery,
        _("your class {signature}").format(signature="Breaker(threshold, cooldown)"),
        pgettext("return value", "True or False"),
        forbidden=(CircuitBreaker,),
        entry_points=(
            (CircuitBreaker, "__init__"),
            (CircuitBreaker, "allow"),
            (CircuitBreaker, "record"),
        ),
        answer=cls,
    )
