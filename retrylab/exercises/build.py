"""Checkers for the code the student writes: the waits, the rule, the loop, the breaker.

Each checker takes the student's function (or class) and returns a
:class:`~retrylab.exercises.Feedback`. It judges in two rounds, as a good
hidden-test suite does:

1. the lesson's printed outputs (the six-row table of waits, the four lines of
   the retry loop, the nine rows of the breaker's trace), recomputed here from
   Mulberry32(20260114) and retrylab's own implementation, never copied;
2. cases the student has not seen (many seeds, exact ``.5`` halves, draws near
   0 and 1, scripted servers, random breaker events), judged against retrylab.

The first difference is named in the lesson's words, and when the student's
answers match one of the usual mistakes (Python's ``round``, ``n`` off by one,
no cap, Retry-After taken as the exact wait...) the message says which.

The student's code runs in a daemon thread with a time limit of
:data:`TIME_LIMIT` seconds per call, so an endless loop is reported instead of
hanging the kernel. A Python thread cannot be killed: a function that never
returns keeps running in the background (using CPU) until the kernel restarts;
the checker only stops waiting for it.
"""

from __future__ import annotations

import math
import threading
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from ..core import constants as _lesson  # the lesson's data: read only in the block below
from ..core.backoff import Backoff
from ..core.breaker import CircuitBreaker
from ..core.jsround import js_round
from ..core.outcome import Outcome, should_retry
from ..core.policy import RetryPolicy
from ..core.rng import Mulberry32
from . import Feedback, prompt, right, unanswered, wrong

# -- the lesson's data: the one place this module reads retrylab.lesson -------
SEED: int = _lesson.SEED
BASE: int = _lesson.BASE          # TABAN, ms
FACTOR: int = _lesson.FACTOR      # CARPAN
CAP: int = _lesson.CAP            # TAVAN, ms
BREAKER_EVENTS: tuple[tuple[int, bool], ...] = _lesson.BREAKER_EVENTS
#: label (tr), label (en), method, path, max attempts, for each of the loop's scenarios
RETRY_SCENARIOS: tuple[tuple[str, str, str, str, int], ...] = _lesson.RETRY_SCENARIOS
BREAKER_THRESHOLD, BREAKER_COOLDOWN = 3, 5000   # the lesson's ESIK and SOGUMA
# -----------------------------------------------------------------------------

#: Seconds one call of the student's code may take; tests may lower it.
TIME_LIMIT = 3.0
#: More calls than this of send() or sleep() in one run mean the loop does not stop.
SEND_LIMIT = 50
SLEEP_LIMIT = 50
DRAW_LIMIT = 1000

_FULL = Backoff(BASE, FACTOR, CAP, jitter="full")
_DECO = Backoff(BASE, FACTOR, CAP, jitter="decorrelated")

#: What the server answers in each of the loop lesson's scenarios (the last one repeats).
_LESSON_SCRIPTS: tuple[tuple[Outcome, ...], ...] = (
    (Outcome.http(503), Outcome.http(503), Outcome.success([{"kimlik": "o-114"}])),
    (Outcome.http(422),),
    (Outcome.http(429, retry_after=2),),
    (Outcome.http(404),),
)


# == running the student's code safely ==========================================


class _Stop(Exception):
    """Ends a battery early with a verdict."""

    def __init__(self, feedback: Feedback) -> None:
        super().__init__(feedback.message)
        self.feedback = feedback


class _Guard(BaseException):
    """Raised into the student's loop by our send()/sleep()/rng() past their limit.

    A BaseException, so that a loop catching ``Exception`` around send() does
    not swallow it.
    """


@dataclass
class _Session:
    """One checking run: what the student's code is doing right now."""

    what: str = ""
    since: float = 0.0
    busy: bool = False
    calls: int = 0
    tripped: str = ""
    scaffold: str = "your function"

    def call(self, what: str, fn: Callable[..., Any], *args: Any, answer: bool = True) -> Any:
        """Call the student's code on ``args``; a failure ends the battery with a verdict.

        The first ``answer`` call returning None or ``...`` is an unfilled scaffold.
        """
        self.what, self.since, self.busy = what, time.monotonic(), True
        first = answer and self.calls == 0
        self.calls += answer
        try:
            value = fn(*args)
        except _Guard:
            raise _Stop(wrong(self._tripped_message())) from None
        except NotImplementedError:
            raise _Stop(prompt(self.scaffold)) from None
        except BaseException as e:  # the student's bug, reported, never raised
            if self.tripped:
                raise _Stop(wrong(self._tripped_message())) from None
            raise _Stop(wrong(f"{what} raised {type(e).__name__}: {e}")) from None
        finally:
            self.busy = False
        if self.tripped:
            raise _Stop(wrong(self._tripped_message()))
        if first and (value is None or value is Ellipsis):
            raise _Stop(prompt(self.scaffold))
        return value

    def _tripped_message(self) -> str:
        limits = {"send": SEND_LIMIT, "sleep": SLEEP_LIMIT, "rng": DRAW_LIMIT}
        hints = {"send": "is the attempt limit checked?",
                 "sleep": "does the loop stop after the last attempt?",
                 "rng": "one draw per wait is enough."}
        t = self.tripped
        return (f"{self.what} called {t}() more than {limits[t]} times: {hints[t]}")


def _run(battery: Callable[[_Session], Feedback], scaffold: str) -> Feedback:
    """Run ``battery`` in a daemon thread; report a call that exceeds TIME_LIMIT."""
    session = _Session(scaffold=scaffold)
    box: list[Feedback] = []

    def target() -> None:
        try:
            box.append(battery(session))
        except _Stop as stop:
            box.append(stop.feedback)
        except BaseException as e:  # a bug of the checker itself: still no exception
            box.append(wrong(f"the checker could not judge this answer "
                             f"({type(e).__name__}: {e})"))

    # The thread cannot be killed: if the student's code never returns, it
    # keeps running in the background; we only stop waiting for it.
    thread = threading.Thread(target=target, daemon=True, name="retrylab-build-check")
    thread.start()
    while thread.is_alive():
        thread.join(0.01)
        if thread.is_alive() and session.busy and time.monotonic() - session.since > TIME_LIMIT:
            if session.tripped:
                return wrong(session._tripped_message())
            return wrong(f"your code did not finish within {TIME_LIMIT:g} s for "
                         f"{session.what}: is there a loop that never ends?")
    return box[0] if box else wrong("the checker could not judge this answer")


def _not_callable(answer: Any, expected: str) -> Feedback:
    return wrong(f"expected {expected}; got {answer!r}, {_a(answer)}.")


# == reading answers ===============================================================


def _as_ms(value: Any, what: str) -> int:
    """``value`` as whole milliseconds (ints, whole floats, numpy numbers), or a verdict."""
    if isinstance(value, (bool, np.bool_)):
        raise _Stop(wrong(f"{what} returned {value!r}, a bool: a wait is a whole number "
                          "of milliseconds."))
    if isinstance(value, (int, np.integer)):
        return int(value)
    if isinstance(value, (float, np.floating)):
        if math.isfinite(value) and float(value).is_integer():
            return int(value)
        raise _Stop(wrong(f"{what} returned {float(value)!r}: a wait is whole milliseconds; "
                          "round it with Math.round (retrylab.js_round)."))
    raise _Stop(wrong(f"{what} returned {value!r}, {_a(value)}: return the "
                      "wait as a whole number of milliseconds (an int)."))


def _as_bool(value: Any, what: str) -> bool:
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    raise _Stop(wrong(f"{what} returned {value!r}, {_a(value)}: return True "
                      "or False."))


def _quiet(session: _Session, fn: Callable[[], Any]) -> Any:
    """Run a diagnostic probe; None if the student's code fails on it."""
    try:
        return fn()
    except Exception:  # _Stop, or a missing method: no diagnosis from this probe
        return None


def _a(value: object) -> str:
    """``a list``, ``an int``: the type of ``value`` with its article."""
    name = type(value).__name__
    return ("an " if name[:1] in "aeiou" else "a ") + name


# == 1. full jitter =================================================================


def _ceiling(n: int) -> int:
    return min(CAP, BASE * FACTOR ** n)


def _lesson_draws(count: int = 12) -> list[float]:
    rng = Mulberry32(SEED)
    return [rng() for _ in range(count)]


def _line(lo: int, width: int) -> Callable[[float], float]:
    """``r -> lo + r * width`` computed as the lesson writes it (no ``0 +`` for lo = 0)."""
    if lo == 0:
        return lambda r: r * width
    return lambda r: lo + r * width


def _halves(total: Callable[[float], float], lo: int, width: int, count: int) -> list[float]:
    """Draws r for which ``total(r) = lo + r * width`` is exactly an even number + 0.5.

    There Python's round() (halves to even) and Math.round (halves up) differ.
    """
    out: list[float] = []
    step = max(2, width // (count + 1) // 2 * 2)   # even, so h stays even
    h = lo + 2 - lo % 2
    while len(out) < count and h < lo + width:
        target = h + 0.5
        r = (target - lo) / width
        if 0 <= r < 1 and total(r) == target:
            out.append(r)
        h += step
    return out


def _full_halves() -> list[tuple[int, float]]:
    cases: list[tuple[int, float]] = []
    for n in range(7):
        c = _ceiling(n)
        cases += [(n, r) for r in _halves(_line(0, c), 0, c, 3)]
    return cases


def _full_cases() -> list[tuple[int, float]]:
    """200 unseen (n, r): edges, exact halves, and draws of many seeds."""
    cases: list[tuple[int, float]] = [(n, 0.0) for n in (0, 3, 9)]
    cases += [(n, 1 - 2 ** -53) for n in (0, 4, 5, 12)]
    cases += [(n, 0.5) for n in (0, 1, 5, 7)]
    cases += _full_halves()
    seed = 1
    while len(cases) < 200:
        rng = Mulberry32(seed)
        cases += [(int(rng() * 13), rng()) for _ in range(10)]
        seed += 1
    return cases[:200]


@dataclass(frozen=True)
class _Mistake:
    """A usual mistake: its hint, a model of it, and inputs where it shows."""

    hint: str
    model: Callable[..., int]
    probes: tuple[tuple[Any, ...], ...]


def _diagnose(session: _Session, fn: Callable[..., Any], name: str,
              mistakes: Sequence[_Mistake]) -> str:
    """The hint of the first mistake whose model the student's answers match."""
    for m in mistakes:
        def matches(m: _Mistake = m) -> bool:
            return all(_as_ms(session.call(f"{name}{p}", fn, *p), f"{name}{p}") == m.model(*p)
                       for p in m.probes)
        if _quiet(session, matches):
            return " " + m.hint
    return ""


def _frac(c: int, k: int) -> float:
    """A draw r with r * c = k + 0.75 (so truncation and rounding differ)."""
    return (k + 0.75) / c


_ROUND_HINT = ("Python's round() rounds halves to even (round(2.5) == 2); the lesson's "
               "Math.round rounds them up: use retrylab.js_round(x) (or math.floor(x + 0.5)).")
_TRUNC_HINT = ("int() and math.floor cut the fraction off; Math.round rounds to the nearest "
               "whole ms (halves up): use retrylab.js_round(x).")

_FULL_MISTAKES: tuple[_Mistake, ...] = (
    _Mistake("These are the ceilings, without jitter: full jitter is r * ceiling, "
             "anywhere from 0 up to the ceiling.",
             lambda n, r: _ceiling(n), ((0, 0.25), (1, 0.5), (5, 0.1))),
    _Mistake(_ROUND_HINT, lambda n, r: round(r * _ceiling(n)),
             (*_full_halves()[::4], (0, _frac(200, 70)))),
    _Mistake(_TRUNC_HINT, lambda n, r: math.floor(r * _ceiling(n)),
             ((0, _frac(200, 70)), (2, _frac(800, 300)), (4, _frac(3200, 9)))),
    _Mistake("Your waits are those of the next retry: is n counted from 0? n = 0 is the "
             "first retry, whose ceiling is 200 * 2**0 = 200 ms.",
             lambda n, r: js_round(r * _ceiling(n + 1)),
             ((0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25))),
    _Mistake("Your waits are those of the retry before: the lesson's n is already 0 for "
             "the first retry, so its ceiling is 200 * 2**n, not 200 * 2**(n - 1).",
             lambda n, r: js_round(r * min(CAP, BASE * FACTOR ** (n - 1))),
             ((1, 0.25), (2, 0.25), (3, 0.25))),
    _Mistake("The wait passed 5000 ms: the cap is missing. The ceiling is "
             "min(5000, 200 * 2**n).",
             lambda n, r: js_round(r * BASE * FACTOR ** n), ((6, 0.75), (8, 0.25))),
    _Mistake("Cap the ceiling, not the wait: min(5000, 200 * 2**n) first, then r times "
             "that. Capping the wait piles every late retry on exactly 5000 ms.",
             lambda n, r: min(CAP, js_round(r * BASE * FACTOR ** n)), ((6, 0.75), (8, 0.25))),
    _Mistake("That is equal jitter (half the ceiling plus a random half); the exercise "
             "asks for full jitter, r * ceiling.",
             lambda n, r: js_round(_ceiling(n) / 2 + r * _ceiling(n) / 2),
             ((0, 0.25), (2, 0.5))),
)


def check_full_jitter(fn: Any) -> Feedback:
    """Judge ``fn(n, r)``: the full-jitter wait before retry ``n`` (n = 0 first).

    The lesson's formula: ``Math.round(r * min(5000, 200 * 2**n))``, with
    JavaScript's Math.round (halves up). First the six rows of the lesson's
    table (draws 1, 3, 5... of Mulberry32(20260114)), then 200 unseen cases.

    >>> from retrylab import js_round
    >>> check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2 ** n)))
    Correct: ... 6 rows of the lesson's table ... 200 unseen cases ...
    >>> check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2 ** (n + 1))))
    Try again: ... is n counted from 0? ...
    """
    if unanswered(fn):
        return prompt("your function full_jitter(n, r)")
    if not callable(fn):
        return _not_callable(fn, "a function full_jitter(n, r) -> int")

    def battery(s: _Session) -> Feedback:
        draws = _lesson_draws()
        for n in range(6):
            r = draws[2 * n]
            got = _as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = _FULL.next_wait(n, r)
            if got != want:
                return wrong(f"full_jitter({n}, {r!r}) returned {got}, but row {n + 1} of "
                             f"the lesson's table (retry {n + 1}, n={n}) says {want}."
                             + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES))
        cases = _full_cases()
        for n, r in cases:
            got = _as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = _FULL.next_wait(n, r)
            if got != want:
                return wrong(f"the lesson's table matches, but full_jitter({n}, {r!r}) "
                             f"returned {got}; round(r * min(5000, 200 * 2**{n})) with "
                             f"Math.round is {want} (r * ceiling = {r * _ceiling(n)!r})."
                             + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES))
        return right(f"all 6 rows of the lesson's table (70 296 780 303 480 957) and "
                     f"{len(cases)} unseen cases match, exact .5 halves included.")

    return _run(battery, "your function full_jitter(n, r)")


# == 2. decorrelated jitter ===========================================================


def _deco(prev: int, r: float) -> int:
    return _DECO.next_wait(0, r, prev)


def _deco_halves() -> list[tuple[int, float]]:
    cases: list[tuple[int, float]] = []
    for prev in (200, 384, 1034, 1600, 2121):
        width = prev * 3 - BASE
        cases += [(prev, r) for r in _halves(_line(BASE, width), BASE, width, 2)]
    return cases


def _deco_cases() -> list[tuple[int, float]]:
    """200 unseen (prev, r): chains of many seeds, random prevs, edges, exact halves."""
    cases: list[tuple[int, float]] = [(p, 0.0) for p in (200, 1000, 5000)]
    cases += [(p, 1 - 2 ** -53) for p in (200, 1700, 5000)]
    cases += _deco_halves()
    seed = 1
    while len(cases) < 200:
        rng = Mulberry32(seed)
        prev = BASE
        for _ in range(6):       # a chain, as the lesson's table is
            r = rng()
            cases.append((prev, r))
            prev = _deco(prev, r)
        cases.append((BASE + int(rng() * (CAP - BASE + 1)), rng()))
        seed += 1
    return cases[:200]


_DECO_MISTAKES: tuple[_Mistake, ...] = (
    _Mistake(_ROUND_HINT, lambda p, r: min(CAP, round(BASE + r * (p * 3 - BASE))),
             (*_deco_halves()[::2], (200, _frac(400, 10)))),
    _Mistake(_TRUNC_HINT, lambda p, r: min(CAP, math.floor(BASE + r * (p * 3 - BASE))),
             ((200, _frac(400, 10)), (1000, _frac(2800, 500)))),
    _Mistake("The wait passed 5000 ms: decorrelated jitter is capped too, "
             "min(5000, Math.round(...)).",
             lambda p, r: js_round(BASE + r * (p * 3 - BASE)), ((4000, 0.9), (5000, 0.5))),
    _Mistake("The range is from 200 (TABAN) up to 3 * prev: with prev alone in place of "
             "prev * 3 the waits never grow.",
             lambda p, r: min(CAP, js_round(BASE + r * (p - BASE))), ((1000, 0.5), (400, 0.75))),
    _Mistake("r scales the width of the range, prev * 3 - 200: without the - 200 the "
             "waits can pass 3 * prev.",
             lambda p, r: min(CAP, js_round(BASE + r * p * 3)), ((1000, 0.5), (400, 0.25))),
    _Mistake("The range starts at 200 (TABAN): the lesson adds 200 to r * (prev * 3 - 200), "
             "so no wait is shorter than the base.",
             lambda p, r: min(CAP, js_round(r * p * 3)), ((1000, 0.5), (400, 0.25))),
    _Mistake("The wait ignores prev: decorrelated jitter draws from 200 up to 3 times the "
             "previous wait (onceki * 3), which is what makes it grow.",
             lambda p, r: min(CAP, js_round(BASE + r * (BASE * 3 - BASE))),
             ((1000, 0.5), (3000, 0.25))),
)


def check_decorrelated(fn: Any) -> Feedback:
    """Judge ``fn(prev, r)``: the decorrelated-jitter wait after a wait of ``prev`` ms.

    The lesson's formula: ``min(TAVAN, Math.round(TABAN + r * (prev * 3 - TABAN)))``
    with TABAN = 200, TAVAN = 5000; the first ``prev`` is 200. First the six rows of
    the lesson's table (draws 2, 4, 6... of Mulberry32(20260114)), then 200 unseen cases.

    >>> from retrylab import js_round
    >>> check_decorrelated(lambda prev, r: min(5000, js_round(200 + r * (prev * 3 - 200))))
    Correct: ... 6 rows ...
    >>> check_decorrelated(lambda prev, r: js_round(200 + r * (prev * 3 - 200)))
    Try again: ... decorrelated jitter is capped too...
    """
    if unanswered(fn):
        return prompt("your function decorrelated(prev, r)")
    if not callable(fn):
        return _not_callable(fn, "a function decorrelated(prev, r) -> int")

    def battery(s: _Session) -> Feedback:
        draws = _lesson_draws()
        prev = BASE
        for n in range(6):
            r = draws[2 * n + 1]
            what = f"decorrelated({prev}, {r!r})"
            got = _as_ms(s.call(what, fn, prev, r), what)
            want = _deco(prev, r)
            if got != want:
                return wrong(f"{what} returned {got}, but row {n + 1} of the lesson's "
                             f"table (after a wait of {prev} ms) says {want}."
                             + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES))
            prev = want
        cases = _deco_cases()
        for prev, r in cases:
            what = f"decorrelated({prev}, {r!r})"
            got = _as_ms(s.call(what, fn, prev, r), what)
            want = _deco(prev, r)
            if got != want:
                return wrong(f"the lesson's table matches, but {what} returned {got}; "
                             f"min(5000, Math.round(200 + r * ({prev} * 3 - 200))) is {want}."
                             + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES))
        return right(f"all 6 rows of the lesson's table (384 1034 2121 1933 3986 5000) and "
                     f"{len(cases)} unseen cases match.")

    return _run(battery, "your function decorrelated(prev, r)")


# == 3. which failures are retried ====================================================


def _show(o: Outcome) -> str:
    if o.kind == "http":
        extra = "" if o.retry_after is None else f", retry_after={o.retry_after:g}"
        return f"Outcome.http({o.status}{extra})"
    return f"Outcome.{o.kind}()"


def _rule_cases() -> tuple[list[tuple[str, Outcome, str, bool]], list[tuple[Outcome, str, bool]]]:
    """(the lesson's cases with where they come from, unseen cases)."""
    names = [s[1] for s in RETRY_SCENARIOS]
    lesson = [(f'the loop lesson\'s scenario "{name}"', script[0], method, False)
              for name, script, (_, _, method, _, _) in zip(names, _LESSON_SCRIPTS,
                                                            RETRY_SCENARIOS, strict=True)]
    lesson += [("the lesson's rule for a network error (GUVENLI_YONTEM)",
                Outcome.network(), m, False) for m in ("GET", "HEAD", "OPTIONS", "POST")]
    lesson += [("the lesson's rule for a write with an idempotency key", Outcome.network(),
                "POST", True),
               ("the lesson's rule for a body error", Outcome.body(), "GET", False),
               ("the lesson's rule for a cancellation", Outcome.cancelled(), "GET", False)]
    methods = ("GET", "POST", "PUT", "DELETE", "PATCH", "HEAD", "OPTIONS")
    unseen: list[tuple[Outcome, str, bool]] = []
    for key in (False, True):
        for m in methods:
            unseen += [(Outcome.network(), m, key), (Outcome.body(), m, key),
                       (Outcome.cancelled(), m, key)]
            unseen += [(Outcome.http(s), m, key) for s in range(400, 600, 3)]
            unseen += [(Outcome.http(s), m, key) for s in (429, 500, 502, 503, 504, 599)]
            unseen += [(Outcome.http(429, retry_after=1), m, key), (Outcome.success(), m, key)]
    return lesson, unseen


def _rule_hint(o: Outcome, method: str, key: bool, want: bool) -> str:
    if o.kind == "network":
        if want:
            if key and method not in ("GET", "HEAD", "OPTIONS"):
                return (" The idempotency key is ignored: with a key agreed with the server, "
                        "a write can be sent again after a network error; the server will "
                        "not act twice.")
            return (f" A network error on {method} is retried: a safe method changes "
                    "nothing, so sending it again is harmless.")
        if method in ("PUT", "DELETE"):
            return (f" The lesson retries a network error only for its safe methods GET, "
                    f"HEAD and OPTIONS (GUVENLI_YONTEM); {method} is idempotent in "
                    "RFC 9110, but the lesson sends it again only with an idempotency key.")
        return (f" A network error on {method} without an idempotency key: the answer may "
                "have been lost on the way back after the server acted; retrying could "
                "record the measurement twice.")
    if o.kind == "http":
        s = o.status or 0
        if s == 429:
            return (" 429 means rate limited: the limit resets with time, so 429 is "
                    "retried (after its Retry-After).")
        if s >= 500:
            return (f" Every 5xx is retried (status >= 500): {s} reports the server's state "
                    "right now, which can change.")
        return (f" {s} is about the request itself: the same request gets the same answer. "
                "Among the 4xx only 429 is retried.")
    if o.kind == "body":
        return " A body error is the program's own bug: no retry fixes it."
    if o.kind == "cancelled":
        return (" A cancellation is already a decision to give up: it is never retried.")
    return " A success needs no retry."


def check_should_retry(fn: Any) -> Feedback:
    """Judge ``fn(outcome, method, idempotency_key) -> bool``: the lesson's retry rule.

    The rule (the lesson's ``denenirMi``): 429 and every 5xx are retried; other
    4xx, body errors and cancellations never; a network error only for GET,
    HEAD, OPTIONS, or any method with an idempotency key. Judged against
    :func:`retrylab.should_retry`, first on the lesson's cases.

    >>> from retrylab import should_retry
    >>> check_should_retry(should_retry)
    Correct: ...
    >>> check_should_retry(lambda o, method, key: o.kind != "success")
    Try again: ... 422 is about the request itself...
    """
    if unanswered(fn):
        return prompt("your function should_retry(outcome, method, idempotency_key)")
    if not callable(fn):
        return _not_callable(fn, "a function should_retry(outcome, method, idempotency_key)")

    def battery(s: _Session) -> Feedback:
        lesson, unseen = _rule_cases()
        for where, o, m, key in lesson:
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = _as_bool(s.call(what, fn, o, m, key), what)
            want = should_retry(o, m, key)
            if got != want:
                return wrong(f"{what} returned {got}, but {where} says {want}."
                             + _rule_hint(o, m, key, want))
        for o, m, key in unseen:
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = _as_bool(s.call(what, fn, o, m, key), what)
            want = should_retry(o, m, key)
            if got != want:
                return wrong(f"the lesson's cases match, but {what} returned {got}; "
                             f"the lesson's rule says {want}." + _rule_hint(o, m, key, want))
        return right(f"the lesson's {len(lesson)} cases and {len(unseen)} unseen ones "
                     "(every 4xx and 5xx, network errors with and without a key) match.")

    return _run(battery, "your function should_retry(outcome, method, idempotency_key)")


# == 4. the retry loop ==================================================================


@dataclass
class _Server:
    """A scripted send(), sleep() and rng() that count their calls."""

    session: _Session | None
    outcomes: tuple[Outcome, ...]
    draws_from: Callable[[], float]
    sent: int = 0
    slept: list[Any] = field(default_factory=list)
    draws: int = 0

    def send(self) -> Outcome:
        self.sent += 1
        if self.sent > SEND_LIMIT:
            self._trip("send")
        return self.outcomes[min(self.sent, len(self.outcomes)) - 1]

    def sleep(self, ms: Any) -> None:
        self.slept.append(ms)  # checked after the run: raising here could be swallowed
        if len(self.slept) > SLEEP_LIMIT:
            self._trip("sleep")

    def rng(self) -> float:
        self.draws += 1
        if self.draws > DRAW_LIMIT:
            self._trip("rng")
        return self.draws_from()

    def _trip(self, what: str) -> None:
        if self.session is not None:
            self.session.tripped = what
        raise _Guard(what)


@dataclass(frozen=True)
class _Case:
    """One run of the loop: the server's answers, method, limit and generator."""

    outcomes: tuple[Outcome, ...]
    method: str
    max_attempts: int
    seed: int | None = None                  # Mulberry32(seed), or ...
    values: tuple[float, ...] = ()           # ... these draws (the last repeats)
    name: str = ""

    def draws(self) -> Callable[[], float]:
        if self.seed is not None:
            return Mulberry32(self.seed)
        values = self.values
        box = [0]

        def next_value() -> float:
            box[0] += 1
            return values[min(box[0], len(values)) - 1]
        return next_value

    def describe(self) -> str:
        script = ", ".join(_label(o) for o in self.outcomes)
        gen = (f"Mulberry32({self.seed})" if self.seed is not None
               else "an rng() returning " + ", ".join(f"{v:g}" for v in self.values))
        return (f"a server answering {script} (the last repeats), method {self.method!r}, "
                f"max_attempts={self.max_attempts} and {gen}")


def _label(o: Outcome) -> str:
    if o.kind == "http" and o.retry_after is not None:
        return f"{o.status} (Retry-After {o.retry_after:g} s)"
    return str(o.status) if o.kind == "http" else o.kind


@dataclass(frozen=True)
class _Seen:
    """What one run of a loop did and returned."""

    attempts: int
    outcome: Outcome
    waits: tuple[int, ...]
    sent: int
    slept: tuple[int, ...]
    draws: int

    def line(self) -> str:
        return (f"attempts={self.attempts} outcome={self.outcome.label()} "
                f"waits=[{', '.join(str(w) for w in self.waits)}]")


def _reference(case: _Case, draws_from: Callable[[], float] | None = None) -> _Seen:
    srv = _Server(None, case.outcomes, draws_from or case.draws())
    r = RetryPolicy(max_attempts=case.max_attempts, backoff=_FULL).run(
        srv.send, case.method, srv.rng, srv.sleep)
    return _Seen(r.attempts, r.outcome, tuple(r.waits), srv.sent,
                 tuple(int(w) for w in srv.slept), srv.draws)


def _student(s: _Session, fn: Callable[..., Any], case: _Case,
             draws_from: Callable[[], float] | None = None) -> _Seen:
    srv = _Server(s, case.outcomes, draws_from or case.draws())
    what = f"your loop (with {case.describe()})"
    value = s.call(what, fn, srv.send, case.method, case.max_attempts, srv.sleep, srv.rng)
    if all(hasattr(value, a) for a in ("attempts", "outcome", "waits")):
        parts: Any = (value.attempts, value.outcome, value.waits)
    elif isinstance(value, (tuple, list)) and len(value) == 3:
        parts = value
    else:
        raise _Stop(wrong(f"{what} returned {value!r}: return a tuple "
                          "(attempts, outcome, waits)."))
    attempts = _as_ms(parts[0], f"{what}, as attempts,")
    outcome = parts[1]
    if not isinstance(outcome, Outcome):
        raise _Stop(wrong(f"{what} returned {outcome!r} as the outcome: return the Outcome "
                          "that send() gave for the last attempt."))
    if isinstance(parts[2], (str, bytes)) or not isinstance(parts[2], Sequence):
        raise _Stop(wrong(f"{what} returned {parts[2]!r} as the waits: return a list of "
                          "the waits in ms."))
    waits = tuple(_as_ms(w, f"{what}, in its waits,") for w in parts[2])
    slept = tuple(_as_ms(w, f"{what}, calling sleep(),") for w in srv.slept)
    return _Seen(attempts, outcome, waits, srv.sent, slept, srv.draws)


def _loop_difference(got: _Seen, want: _Seen) -> str:
    """The first difference, beyond the summary lines; "" if none."""
    if got.sent != want.sent:
        return f" send() was called {got.sent} times, {want.sent} expected."
    if got.attempts != got.sent:
        return (f" It returned attempts={got.attempts} but called send() {got.sent} times: "
                "count every attempt, the first included.")
    if got.outcome != want.outcome:
        return " The outcome to return is the one send() gave for the last attempt."
    if got.waits != want.waits:
        return ""
    if got.slept != got.waits:
        return (f" sleep() was called with [{', '.join(str(w) for w in got.slept)}], but the "
                "waits returned differ: sleep each wait you record, and only those.")
    if got.draws != want.draws:
        return (f" rng() was called {got.draws} times; the lesson draws once per wait "
                f"({want.draws} here), even when Retry-After wins.")
    return ""


_LIMIT_CASE = _Case((Outcome.http(503),), "GET", 3, values=(0.5,))
_RA_EXACT_CASE = _Case((Outcome.http(503),) * 3 + (Outcome.http(429, retry_after=1),
                                                   Outcome.success()),
                       "GET", 6, values=(0.5, 0.5, 0.5, 0.9))
_RA_IGNORED_CASE = _Case((Outcome.http(429, retry_after=2), Outcome.success()), "GET", 4,
                         values=(0.5,))
_RA_DRAW_CASE = _Case((Outcome.http(429, retry_after=2), Outcome.http(503), Outcome.success()),
                      "GET", 4, values=(0.25, 0.75))
_N_CASE = _Case((Outcome.http(503), Outcome.http(503), Outcome.success()), "GET", 4,
                values=(0.5,))
_REFUSED = ((Outcome.http(422), "POST"), (Outcome.http(404), "GET"),
            (Outcome.network(), "POST"), (Outcome.body(), "GET"), (Outcome.cancelled(), "GET"))
_RETRIED = ((Outcome.network(), "GET"), (Outcome.http(500), "GET"),
            (Outcome.http(429), "GET"), (Outcome.http(503), "POST"))


def _loop_hint(s: _Session, fn: Callable[..., Any]) -> str:
    """Probe the student's loop for the usual mistakes; the first found, as a hint."""
    def run(case: _Case) -> _Seen | None:
        seen: _Seen | None = _quiet(s, lambda: _student(s, fn, case))
        return seen

    done = run(_Case((Outcome.success(), Outcome.success()), "GET", 4, values=(0.5,)))
    if done is not None and done.sent > 1:
        return " It sent again after a success: a success ends the loop."
    for o, m in _REFUSED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent > 1:
            return (f" It retried {_label(o)} on {m}, which the lesson's rule refuses: ask "
                    "should_retry(outcome, method) before waiting, and stop when it says no.")
    for o, m in _RETRIED:
        seen = run(_Case((o, Outcome.success()), m, 4, values=(0.5,)))
        if seen is not None and seen.sent == 1:
            return (f" It gave up after {_label(o)} on {m}, which the lesson's rule retries: "
                    "ask should_retry(outcome, method).")
    seen = run(_LIMIT_CASE)
    if seen is not None:
        if seen.sent == 4:
            return (" With max_attempts=3 against a server that always answers 503 it made 4 "
                    "attempts, one too many: max_attempts counts every attempt, the first "
                    "included (the lesson's deneme < enCokDeneme).")
        if seen.sent == 2:
            return (" With max_attempts=3 against a server that always answers 503 it made "
                    "only 2 attempts, one too few: the first attempt counts too, so there "
                    "are max_attempts - 1 waits.")
        if seen.sent == 3 and len(seen.slept) >= 3:
            return (" It slept after the last attempt: when the attempt limit is reached, "
                    "give up at once (the lesson returns before waiting).")
    seen = run(_RA_IGNORED_CASE)
    if seen is not None and seen.waits[:1] == (100,):
        return (" Retry-After was ignored (or not turned from seconds into ms): it is a "
                "lower bound on the wait, max(backoff, retry_after * 1000).")
    seen = run(_RA_EXACT_CASE)
    if seen is not None and seen.waits[3:4] == (1000,):
        return (" Retry-After was used as the exact wait, but it is a lower bound: wait "
                "max(backoff draw, retry_after * 1000), so a larger draw wins (a probe with "
                "Retry-After: 1 and a draw of 1440 ms got 1000).")
    seen = run(_RA_DRAW_CASE)
    if seen is not None and (seen.waits == (2000, 100) or seen.draws == 1):
        return (" When Retry-After won, rng() was not called: the lesson draws for every "
                "wait (Math.max(bekleme(deneme), ...) always calls bekleme), so the next "
                "waits use the next draws.")
    seen = run(_N_CASE)
    if seen is not None and seen.waits == (200, 400):
        return (" The waits are those of the next retry: n = 0 for the first retry, whose "
                "ceiling is 200 ms.")
    if seen is not None and seen.draws > 2:
        return f" It drew {seen.draws} numbers for 2 waits: the lesson draws once per wait."
    return ""


def _loop_cases() -> list[_Case]:
    """Unseen scripted servers: many seeds, methods, limits and answers."""
    pool = (Outcome.http(503), Outcome.http(500), Outcome.http(502), Outcome.http(504),
            Outcome.http(503), Outcome.network(), Outcome.http(429),
            Outcome.http(429, retry_after=0), Outcome.http(429, retry_after=1),
            Outcome.http(429, retry_after=2), Outcome.http(503, retry_after=3),
            Outcome.http(422), Outcome.http(404), Outcome.body(), Outcome.cancelled(),
            Outcome.success("ok"))
    methods = ("GET", "GET", "POST", "PUT", "HEAD")
    cases: list[_Case] = []
    for seed in range(1, 81):
        rng = Mulberry32(seed * 7919)
        length = 1 + int(rng() * 7)
        # mostly retryable failures, so that runs are long enough to be interesting
        outcomes = tuple(pool[int(rng() * (11 if i < length - 1 else len(pool)))]
                         for i in range(length))
        cases.append(_Case(outcomes, methods[int(rng() * len(methods))],
                           1 + int(rng() * 6), seed=seed))
    return cases


def check_retry_loop(fn: Any) -> Feedback:
    """Judge ``fn(send, method, max_attempts, sleep, rng) -> (attempts, outcome, waits)``.

    The lesson's loop (``yenidenDene``): send; stop on success, on a failure
    should_retry refuses, or at the attempt limit; otherwise wait
    ``max(Math.round(rng() * min(5000, 200 * 2**n)), retry_after * 1000)`` ms
    before retry n (n = 0 first), drawing even when Retry-After wins, and
    send again. Judged first on the lesson's four scenarios on one shared
    Mulberry32(20260114) ("70, 184, 2000, 2000"), then on 80 unseen servers,
    against :meth:`retrylab.RetryPolicy.run`.

    >>> from retrylab import RetryPolicy
    >>> def loop(send, method, max_attempts, sleep, rng):
    ...     r = RetryPolicy(max_attempts=max_attempts).run(send, method, rng, sleep)
    ...     return r.attempts, r.outcome, r.waits
    >>> check_retry_loop(loop)
    Correct: ... (waits 70, 184, 2000, 2000) and 80 unseen servers match...
    >>> def greedy(send, method, max_attempts, sleep, rng):
    ...     r = RetryPolicy(max_attempts=max_attempts + 1).run(send, method, rng, sleep)
    ...     return r.attempts, r.outcome, r.waits
    >>> check_retry_loop(greedy)
    Try again: ... it made 4 attempts, one too many...
    """
    if unanswered(fn):
        return prompt("your function retry(send, method, max_attempts, sleep, rng)")
    if not callable(fn):
        return _not_callable(fn, "a function retry(send, method, max_attempts, sleep, rng)")

    def battery(s: _Session) -> Feedback:
        student_rng, reference_rng = Mulberry32(SEED), Mulberry32(SEED)
        for (_, name, method, _, limit), script in zip(RETRY_SCENARIOS, _LESSON_SCRIPTS,
                                                      strict=True):
            case = _Case(script, method, limit, seed=SEED, name=name)
            got = _student(s, fn, case, student_rng)
            want = _reference(case, reference_rng)
            if got != want:
                return wrong(f'the lesson\'s scenario "{name}" ({method}, max_attempts='
                             f"{limit}, the lesson's one generator shared by all four): your "
                             f"loop gave {got.line()}; the lesson prints {want.line()}."
                             + _loop_difference(got, want) + _loop_hint(s, fn))
        cases = _loop_cases()
        for case in cases:
            got = _student(s, fn, case)
            want = _reference(case)
            if got != want:
                return wrong(f"the lesson's four scenarios match, but with {case.describe()} "
                             f"your loop gave {got.line()}; the lesson's loop gives "
                             f"{want.line()}." + _loop_difference(got, want)
                             + _loop_hint(s, fn))
        return right(f"the lesson's four scenarios (waits 70, 184, 2000, 2000) and "
                     f"{len(cases)} unseen servers match: attempts, outcome, waits, sleeps "
                     "and draws.")

    return _run(battery, "your function retry(send, method, max_attempts, sleep, rng)")


# == 5. the circuit breaker ==============================================================

#: One event: (now in ms, did the request succeed, extra allow() calls while it is in flight).
_Event = tuple[int, bool, int]


def _history(log: Sequence[str]) -> str:
    shown = list(log[-8:])
    return ("after " + ", ".join(shown) + ", ") if shown else ""


def _drive(s: _Session, cls: Any, threshold: int, cooldown: int,
           events: Sequence[_Event], lesson: bool = False) -> Feedback | None:
    """Replay ``events`` on the student's breaker and retrylab's in lockstep."""
    name = getattr(cls, "__name__", "cls")
    student = s.call(f"{name}({threshold}, {cooldown})", cls, threshold, cooldown,
                     answer=False)
    for method in ("allow", "record"):
        if not callable(getattr(student, method, None)):
            return wrong(f"{name}({threshold}, {cooldown}) has no {method}() method: the "
                         "breaker needs allow(now) -> bool and record(success, now).")
    ref = CircuitBreaker(threshold, cooldown)
    log: list[str] = []
    for row, (now, success, extra) in enumerate(events, 1):
        admitted = False
        for k in range(1 + extra):
            what = f"allow({now})"
            got = _as_bool(s.call(f"{name}(...).{what}", student.allow, now), what)
            want = ref.allow(now)
            if got != want:
                said = "lets the request through" if want else "refuses it"
                if lesson:
                    where = (f"row {row} of the lesson's trace (threshold=3, cooldown=5000): "
                             f"allow({now}) returned {got}; the lesson's breaker {said} "
                             f"(state {ref.state.value}).")
                else:
                    second = " (a second call while the trial is in flight)" if k else ""
                    where = (f"with threshold={threshold}, cooldown={cooldown}, "
                             f"{_history(log)}allow({now}){second} returned {got}; "
                             f"retrylab's CircuitBreaker {said} (state {ref.state.value}).")
                return wrong(where)
            log.append(f"allow({now}) -> {got}")
            admitted = admitted or (k == 0 and want)
            if not admitted:
                break
        if admitted:
            s.call(f"{name}(...).record({success}, {now})", student.record, success, now)
            ref.record(success, now)
            log.append(f"record({success}, {now})")
    return None


def _observe(s: _Session, cls: Any, threshold: int, cooldown: int,
             events: Sequence[_Event]) -> list[bool] | None:
    """The student's allow() answers on ``events`` (sent when allowed), None on failure."""
    def go() -> list[bool]:
        b = s.call(f"{threshold}, {cooldown}", cls, threshold, cooldown, answer=False)
        seen: list[bool] = []
        for now, success, extra in events:
            admitted = False
            for k in range(1 + extra):
                a = _as_bool(s.call(f"allow({now})", b.allow, now), f"allow({now})")
                seen.append(a)
                admitted = admitted or (k == 0 and a)
                if not admitted:
                    break
            if admitted:
                s.call(f"record({success}, {now})", b.record, success, now)
        return seen
    out: list[bool] | None = _quiet(s, go)
    return out


T, F = True, False
#: (threshold, cooldown, events, [(the student's allow() answers that show a mistake, hint)])
_BREAKER_PROBES: tuple[tuple[int, int, tuple[_Event, ...],
                             tuple[tuple[list[bool], str], ...]], ...] = (
    (3, 100, ((0, F, 0), (1, F, 0), (2, F, 0), (3, F, 0)), (
        ([T, T, F, F], "With threshold=3 it opened after 2 failures in a row: it opens on "
                       "the threshold-th failure (ardisikHata >= ESIK), not one before."),
        ([T, T, T, T], "With threshold=3 it was still closed after 3 failures in a row: the "
                       "threshold-th failure opens it (>=, not >)."))),
    (1, 100, ((0, F, 0), (100, F, 1)), (
        ([T, T, T], "While half-open your breaker let a second call through before the "
                    "trial's result came back: half-open admits ONE trial, and allow() is "
                    "False until record() reports it (the lesson's izinVer lets every call "
                    "through; with many callers that is a flood, not a trial)."),)),
    (3, 100, ((0, F, 0), (1, F, 0), (2, T, 0), (3, F, 0), (4, F, 0)), (
        ([T, T, T, T, F], "After failure, failure, success, failure your breaker opened: a "
                          "success must reset the count, the threshold counts failures IN A "
                          "ROW (ardisikHata = 0 on success)."),)),
    (1, 100, ((0, F, 0), (100, T, 0), (101, T, 0)), (
        ([T, F, T], "Exactly cooldown ms after opening, allow() must admit the trial: the "
                    "lesson's test is simdi - acilma >= SOGUMA (now - opened_at >= cooldown, "
                    "not >)."),
        ([T, F, F], "After the cooldown your breaker never let a trial through: once "
                    "now - opened_at >= cooldown it turns half-open and allow() admits one "
                    "trial."))),
    (1, 100, ((0, F, 0), (99, T, 0), (100, T, 0)), (
        ([T, T, T], "Your breaker lets a call through one ms before the cooldown is over "
                    "(with cooldown=100, 99 ms after opening): it is over only when "
                    "now - opened_at >= cooldown."),)),
    (3, 100, ((0, F, 0), (1, F, 0), (2, F, 0), (102, F, 0), (103, T, 1)), (
        ([T, T, T, T, T, T], "After the half-open trial failed at 102 ms your breaker let "
                             "calls through at 103 ms: a failed trial opens the breaker "
                             "again at once, with a fresh cooldown counted from the trial "
                             "(the lesson's 6000 ms row: acilma = simdi)."),
        ([T, T, T, T, T, F], "After the half-open trial failed at 102 ms your breaker let "
                             "a call through at 103 ms: a failed trial opens the breaker "
                             "again, with a fresh cooldown counted from the trial's time "
                             "(the lesson's 6000 ms row: acilma = simdi), not from the "
                             "first opening."))),
    (1, 100, ((0, F, 0), (100, T, 0), (101, T, 0), (102, T, 0)), (
        ([T, T, F, F], "After a successful trial the breaker must close and let calls "
                       "through again (the lesson's 11500 ms row)."),)),
)


def _breaker_hint(s: _Session, cls: Any) -> str:
    for threshold, cooldown, events, signs in _BREAKER_PROBES:
        seen = _observe(s, cls, threshold, cooldown, events)
        for answers, hint in signs:
            if seen == answers:
                return " " + hint
    return ""


def _breaker_cases() -> list[tuple[int, int, list[_Event]]]:
    """Unseen event sequences; steps land on cooldown - 1, cooldown and cooldown + 1."""
    cases: list[tuple[int, int, list[_Event]]] = []
    for seed in range(1, 61):
        rng = Mulberry32(seed * 104729)
        threshold = 1 + int(rng() * 4)
        cooldown = (1, 50, 100, 5000)[int(rng() * 4)]
        now, events = 0, []
        for _ in range(12 + int(rng() * 12)):
            step = (0, 1, cooldown - 1, cooldown, cooldown + 1, int(rng() * 2 * cooldown))
            now += step[int(rng() * len(step))]
            extra = 1 if rng() < 0.2 else 2 if rng() < 0.05 else 0
            events.append((now, rng() < 0.35, extra))
        cases.append((threshold, cooldown, events))
    return cases


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

    >>> from retrylab import CircuitBreaker
    >>> check_breaker(CircuitBreaker)
    Correct: ... nine rows ...
    >>> class Forgetful(CircuitBreaker):
    ...     def record(self, success, now):
    ...         return super().record(False, now)   # a success is counted as a failure
    >>> check_breaker(Forgetful)
    Try again: row 9 of the lesson's trace ...
    """
    if unanswered(cls):
        return prompt("your class Breaker(threshold, cooldown)")
    if not callable(cls):
        return _not_callable(cls, "a class Breaker(threshold, cooldown) with allow(now) "
                                  "and record(success, now)")

    def battery(s: _Session) -> Feedback:
        events = [(now, ok, 0) for now, ok in BREAKER_EVENTS]
        verdict = _drive(s, cls, BREAKER_THRESHOLD, BREAKER_COOLDOWN, events, lesson=True)
        if verdict is not None:
            return wrong(verdict.message + _breaker_hint(s, cls))
        cases = _breaker_cases()
        for threshold, cooldown, evs in cases:
            verdict = _drive(s, cls, threshold, cooldown, evs)
            if verdict is not None:
                return wrong("the lesson's trace matches, but " + verdict.message
                             + _breaker_hint(s, cls))
        return right(f"the lesson's nine rows (sent 6, blocked 3) and {len(cases)} unseen "
                     "event sequences match, the cooldown's exact boundary and a second "
                     "call during the half-open trial included.")

    return _run(battery, "your class Breaker(threshold, cooldown)")
