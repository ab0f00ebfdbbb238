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

The student's code runs with a time limit of :data:`TIME_LIMIT` seconds per
call, in a thread of the kernel whose Python frames are traced: an endless
loop is reported and stopped with its verdict (the next line it runs raises),
so nothing keeps running in the kernel, on every platform and without a child
process. Code busy outside Python (a real ``time.sleep``) cannot be stopped so:
the message says so.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ..core.jsround import js_round
from ..core.outcome import Outcome, should_retry
from ..core.rng import Mulberry32
from ..i18n import N_, _, current, pgettext
from . import Feedback, prompt, right, unanswered, wrong
from ._build_harness import (
    _DECO,
    _FULL,
    _LESSON_SCRIPTS,
    BASE,
    CAP,
    FACTOR,
    RETRY_SCENARIOS,
    SEED,
    _as_bool,
    _as_ms,
    _not_callable,
    _quiet,
    _run,
    _Session,
)

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
            return " " + _(m.hint)
    return ""


def _frac(c: int, k: int) -> float:
    """A draw r with r * c = k + 0.75 (so truncation and rounding differ)."""
    return (k + 0.75) / c


_ROUND_HINT = N_("Python's round() rounds halves to even (round(2.5) == 2); the lesson's "
                 "Math.round rounds them up: use retrylab.js_round(x) (or "
                 "math.floor(x + 0.5)).")
_TRUNC_HINT = N_("int() and math.floor cut the fraction off; Math.round rounds to the "
                 "nearest whole ms (halves up): use retrylab.js_round(x).")

_CEIL_HINT = N_("math.ceil rounds every fraction up; Math.round rounds to the nearest whole "
                "ms (halves up): use retrylab.js_round(x).")

_FULL_MISTAKES: tuple[_Mistake, ...] = (
    _Mistake(N_("These are the ceilings, without jitter: full jitter is r * ceiling, "
                "anywhere from 0 up to the ceiling."),
             lambda n, r: _ceiling(n), ((0, 0.25), (1, 0.5), (5, 0.1))),
    _Mistake(_ROUND_HINT, lambda n, r: round(r * _ceiling(n)),
             (*_full_halves()[::4], (0, _frac(200, 70)))),
    _Mistake(_TRUNC_HINT, lambda n, r: math.floor(r * _ceiling(n)),
             ((0, _frac(200, 70)), (2, _frac(800, 300)), (4, _frac(3200, 9)))),
    _Mistake(N_("Your waits are those of the next retry: is n counted from 0? n = 0 is the "
                "first retry, whose ceiling is 200 * 2**0 = 200 ms."),
             lambda n, r: js_round(r * _ceiling(n + 1)),
             ((0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25))),
    _Mistake(N_("Your waits are those of the retry before: the lesson's n is already 0 for "
                "the first retry, so its ceiling is 200 * 2**n, not 200 * 2**(n - 1)."),
             lambda n, r: js_round(r * min(CAP, BASE * FACTOR ** (n - 1))),
             ((1, 0.25), (2, 0.25), (3, 0.25))),
    _Mistake(N_("The wait passed 5000 ms: the cap is missing. The ceiling is "
                "min(5000, 200 * 2**n)."),
             lambda n, r: js_round(r * BASE * FACTOR ** n), ((6, 0.75), (8, 0.25))),
    _Mistake(N_("Cap the ceiling, not the wait: min(5000, 200 * 2**n) first, then r times "
                "that. Capping the wait piles every late retry on exactly 5000 ms."),
             lambda n, r: min(CAP, js_round(r * BASE * FACTOR ** n)), ((6, 0.75), (8, 0.25))),
    _Mistake(N_("That is equal jitter (half the ceiling plus a random half); the exercise "
                "asks for full jitter, r * ceiling."),
             lambda n, r: js_round(_ceiling(n) / 2 + r * _ceiling(n) / 2),
             ((0, 0.25), (2, 0.5))),
    _Mistake(N_("The draw was shifted to 0.5 + r, so waits run from half the ceiling to 1.5 "
             "times it: full jitter is r * ceiling, from 0 up to the ceiling."),
             lambda n, r: js_round((0.5 + r) * _ceiling(n)), ((0, 0.25), (1, 0.25), (3, 0.6))),
    _Mistake(_CEIL_HINT,
             lambda n, r: math.ceil(r * _ceiling(n)),
             ((0, _frac(200, 70) - 0.5 / 200), (2, _frac(800, 300) - 0.5 / 800),
              (4, (9.25) / 3200))),
    _Mistake(N_("The ceiling grows by 200 ms a retry (200 * (n + 1)): exponential backoff "
             "doubles it every retry, 200 * 2**n."),
             lambda n, r: js_round(r * min(CAP, BASE * (n + 1))),
             ((2, 0.5), (3, 0.5), (4, 0.5))),
    _Mistake(N_("The ceiling multiplies by n (200 * 2 * n) instead of raising 2 to the power "
             "n: in Python that is 200 * 2 ** n."),
             lambda n, r: js_round(r * min(CAP, BASE * FACTOR * n)),
             ((1, 0.5), (3, 0.5), (4, 0.5))),
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
        return prompt(_("your function {name}").format(name="full_jitter(n, r)"))
    if not callable(fn):
        return _not_callable(fn, _("a function {signature}").format(
            signature="full_jitter(n, r) -> int"))

    def battery(s: _Session) -> Feedback:
        draws = _lesson_draws()
        for n in range(6):
            r = draws[2 * n]
            got = _as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = _FULL.next_wait(n, r)
            if got != want:
                return wrong(_("{call} returned {got}, but the lesson's table says {want} "
                               "at retry n={n}.").format(
                                   call=f"full_jitter({n}, {r!r})", got=got, n=n, want=want)
                             + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES))
        cases = _full_cases()
        for n, r in cases:
            got = _as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = _FULL.next_wait(n, r)
            if got != want:
                return wrong(_("the lesson's table matches, but {call} returned {got}; "
                               "round(r * min(5000, 200 * 2**{n})) with Math.round is {want} "
                               "(r * ceiling = {product}).").format(
                                   call=f"full_jitter({n}, {r!r})", got=got, n=n, want=want,
                                   product=repr(r * _ceiling(n)))
                             + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES))
        return right(_("all 6 rows of the lesson's table (70 296 780 303 480 957) and "
                       "{unseen} unseen cases match, exact .5 halves included.").format(
                           unseen=len(cases)))

    return _run(battery,
                _("your function {signature}").format(signature="full_jitter(n, r)"),
                pgettext("return value", "the wait"))


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
        for _step in range(6):       # a chain, as the lesson's table is
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
    _Mistake(N_("The wait passed 5000 ms: decorrelated jitter is capped too, "
                "min(5000, Math.round(...))."),
             lambda p, r: js_round(BASE + r * (p * 3 - BASE)), ((4000, 0.9), (5000, 0.5))),
    _Mistake(N_("The range is from 200 (TABAN) up to 3 * prev: with prev alone in place of "
                "prev * 3 the waits never grow."),
             lambda p, r: min(CAP, js_round(BASE + r * (p - BASE))), ((1000, 0.5), (400, 0.75))),
    _Mistake(N_("r scales the width of the range, prev * 3 - 200: without the - 200 the "
                "waits can pass 3 * prev."),
             lambda p, r: min(CAP, js_round(BASE + r * p * 3)), ((1000, 0.5), (400, 0.25))),
    _Mistake(N_("The range starts at 200 (TABAN): the lesson adds 200 to "
                "r * (prev * 3 - 200), so no wait is shorter than the base."),
             lambda p, r: min(CAP, js_round(r * p * 3)), ((1000, 0.5), (400, 0.25))),
    _Mistake(N_("The wait ignores prev: decorrelated jitter draws from 200 up to 3 times the "
                "previous wait (onceki * 3), which is what makes it grow."),
             lambda p, r: min(CAP, js_round(BASE + r * (BASE * 3 - BASE))),
             ((1000, 0.5), (3000, 0.25))),
    _Mistake(N_("The top of the range was capped (min(5000, prev * 3)) instead of the wait: "
             "the lesson draws from 200 up to prev * 3 and caps the rounded wait, "
             "min(5000, Math.round(...))."),
             lambda p, r: js_round(BASE + r * (min(CAP, p * 3) - BASE)),
             ((2000, 0.5), (4000, 0.25), (3000, 0.75))),
    _Mistake(_CEIL_HINT,
             lambda p, r: min(CAP, math.ceil(BASE + r * (p * 3 - BASE))),
             ((200, 10.25 / 400), (1000, 500.25 / 2800))),
    _Mistake(N_("The range reaches 2 * prev; the lesson's decorrelated jitter draws up to "
             "3 times the previous wait (onceki * 3)."),
             lambda p, r: min(CAP, js_round(BASE + r * (p * 2 - BASE))),
             ((1000, 0.5), (400, 0.75))),
    _Mistake(N_("That is the exponential ceiling's full jitter, not decorrelated jitter: the "
             "range depends on the previous wait, 200 + r * (prev * 3 - 200), not on a "
             "retry number."),
             lambda p, r: js_round(r * p), ((1000, 0.5), (400, 0.75))),
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
        return prompt(_("your function {name}").format(name="decorrelated(prev, r)"))
    if not callable(fn):
        return _not_callable(fn, _("a function {signature}").format(
            signature="decorrelated(prev, r) -> int"))

    def battery(s: _Session) -> Feedback:
        draws = _lesson_draws()
        prev = BASE
        for n in range(6):
            r = draws[2 * n + 1]
            what = f"decorrelated({prev}, {r!r})"
            got = _as_ms(s.call(what, fn, prev, r), what)
            want = _deco(prev, r)
            if got != want:
                return wrong(_("{call} returned {got}, but the lesson's table says {want} at "
                               "retry n={n} (after a wait of {prev} ms).").format(
                                   call=what, got=got, n=n, prev=prev, want=want)
                             + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES))
            prev = want
        cases = _deco_cases()
        for prev, r in cases:
            what = f"decorrelated({prev}, {r!r})"
            got = _as_ms(s.call(what, fn, prev, r), what)
            want = _deco(prev, r)
            if got != want:
                return wrong(_("the lesson's table matches, but {call} returned {got}; "
                               "min(5000, Math.round(200 + r * ({prev} * 3 - 200))) is "
                               "{want}.").format(call=what, got=got, prev=prev, want=want)
                             + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES))
        return right(_("all 6 rows of the lesson's table (384 1034 2121 1933 3986 5000) and "
                       "{unseen} unseen cases match.").format(unseen=len(cases)))

    return _run(battery,
                _("your function {signature}").format(signature="decorrelated(prev, r)"),
                pgettext("return value", "the wait"))


# == 3. which failures are retried ====================================================


def _show(o: Outcome) -> str:
    if o.kind == "http":
        extra = "" if o.retry_after is None else f", retry_after={o.retry_after:g}"
        return f"Outcome.http({o.status}{extra})"
    return f"Outcome.{o.kind}()"


@dataclass(frozen=True)
class _Where:
    """Where a lesson case comes from: a sentence template, and the scenario's names."""

    template: str
    name_tr: str = ""
    name_en: str = ""

    def sentence(self, call: str, got: bool, want: bool) -> str:
        name = self.name_tr if current() == "tr" else self.name_en
        return _(self.template).format(call=call, got=got, want=want, name=name)


def _rule_cases() -> tuple[list[tuple[_Where, Outcome, str, bool]],
                           list[tuple[Outcome, str, bool]]]:
    """(the lesson's cases, each with the sentence naming where it comes from, unseen cases).

    The sentence is a catalogue template with {call}, {got}, {want} (and the
    scenario's {name}), to be translated and filled at use.
    """
    scenario = N_('{call} returned {got}, but the loop lesson\'s scenario "{name}" says '
                  '{want}.')
    lesson: list[tuple[_Where, Outcome, str, bool]] = [
        (_Where(scenario, tr, en), script[0], method, False)
        for script, (tr, en, method, _, _) in zip(_LESSON_SCRIPTS, RETRY_SCENARIOS,
                                                  strict=True)]
    lesson += [(_Where(N_("{call} returned {got}, but the lesson's rule for a network error "
                          "(GUVENLI_YONTEM) says {want}.")),
                Outcome.network(), m, False) for m in ("GET", "HEAD", "OPTIONS", "POST")]
    lesson += [(_Where(N_("{call} returned {got}, but the lesson's rule for a write with an "
                          "idempotency key says {want}.")), Outcome.network(), "POST", True),
               (_Where(N_("{call} returned {got}, but the lesson's rule for a body error "
                          "says {want}.")), Outcome.body(), "GET", False),
               (_Where(N_("{call} returned {got}, but the lesson's rule for a cancellation "
                          "says {want}.")), Outcome.cancelled(), "GET", False)]
    unseen: list[tuple[Outcome, str, bool]] = []
    for key in (False, True):
        for m in METHODS:
            unseen += [(Outcome.network(), m, key), (Outcome.body(), m, key),
                       (Outcome.cancelled(), m, key)]
            unseen += [(Outcome.http(429, retry_after=1), m, key),
                       (Outcome.http(503, retry_after=2), m, key), (Outcome.success(), m, key)]
    # every status from 100 to 599, with every method, with and without a key
    unseen += [(Outcome.http(s), m, key) for s in STATUSES for m in METHODS
               for key in (False, True)]
    return lesson, unseen


#: Every method of RFC 9110 (and PATCH, RFC 5789) a client sends.
METHODS = ("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH", "CONNECT")
#: Every status an HTTP answer can carry.
STATUSES = range(100, 600)


def _rule_hint(o: Outcome, method: str, key: bool, want: bool) -> str:
    if o.kind == "network":
        if want:
            if key and method not in ("GET", "HEAD", "OPTIONS"):
                return " " + _("The idempotency key is ignored: with a key agreed with the "
                               "server, a write can be sent again after a network error; the "
                               "server will not act twice.")
            return " " + _("A network error on {method} is retried: a safe method changes "
                           "nothing, so sending it again is harmless.").format(method=method)
        if method in ("PUT", "DELETE", "TRACE"):
            return " " + _("The lesson retries a network error only for its safe methods "
                           "GET, HEAD and OPTIONS (GUVENLI_YONTEM); {method} is idempotent in "
                           "RFC 9110, but the lesson sends it again only with an idempotency "
                           "key.").format(method=method)
        return " " + _("A network error on {method} without an idempotency key: the answer "
                       "may have been lost on the way back after the server acted; retrying "
                       "could record the measurement twice.").format(method=method)
    if o.kind == "http":
        s = o.status or 0
        if s == 429:
            return " " + _("429 means rate limited: the limit resets with time, so 429 is "
                           "retried (after its Retry-After).")
        if s >= 500:
            return " " + _("Every 5xx is retried (status >= 500): {status} reports the "
                           "server's state right now, which can change.").format(status=s)
        if s < 400:
            return _(" {status} is not a failure a retry can fix (1xx, 2xx and 3xx are "
                     "answers, not errors): only 429 and the 5xx are retried.").format(status=s)
        return " " + _("{status} is about the request itself: the same request gets the "
                       "same answer. Among the 4xx only 429 is retried.").format(status=s)
    if o.kind == "body":
        return " " + _("A body error is the program's own bug: no retry fixes it.")
    if o.kind == "cancelled":
        return " " + _("A cancellation is already a decision to give up: it is never retried.")
    return " " + _("A success needs no retry.")


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
        return prompt(_("your function {name}").format(
            name="should_retry(outcome, method, idempotency_key)"))
    if not callable(fn):
        return _not_callable(fn, _("a function {signature}").format(
            signature="should_retry(outcome, method, idempotency_key)"))

    def battery(s: _Session) -> Feedback:
        lesson, unseen = _rule_cases()
        for where, o, m, key in lesson:
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = _as_bool(s.call(what, fn, o, m, key), what)
            want = should_retry(o, m, key)
            if got != want:
                return wrong(where.sentence(what, got, want)
                             + _rule_hint(o, m, key, want))
        for o, m, key in unseen:
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = _as_bool(s.call(what, fn, o, m, key), what)
            want = should_retry(o, m, key)
            if got != want:
                return wrong(_("the lesson's cases match, but {call} returned {got}; the "
                               "lesson's rule says {want}.").format(call=what, got=got,
                                                                    want=want)
                             + _rule_hint(o, m, key, want))

        return right(_("the lesson's {lesson} cases and {unseen} unseen ones (every status "
                       "from 100 to 599 with every method, network errors, body errors and "
                       "cancellations with and without a key) match.")
                     .format(lesson=len(lesson), unseen=len(unseen)))

    return _run(battery,
                _("your function {signature}").format(
                    signature="should_retry(outcome, method, idempotency_key)"),
                pgettext("return value", "True or False"))


# The loop and the breaker live in their own modules (one a job); import them from here.
from .build_breaker import check_breaker  # noqa: E402
from .build_loop import check_retry_loop  # noqa: E402

__all__ = ["check_breaker", "check_decorrelated", "check_full_jitter", "check_retry_loop",
           "check_should_retry"]


#: What each closed exercise's checker accepts, as the page could print it
#: (tests/test_answers_hidden.py fails if one shows above its exercise).
#: An empty tuple: a design or build-it exercise, which many answers pass (nothing
#: one could copy from the page; tests/test_answers_hidden.py still requires the entry).
ANSWERS: dict[str, tuple[str, ...]] = {
    # build it: the answer is code, translated from the lesson's JavaScript shown
    # beside the exercise by design
    "check_should_retry": (),
    "check_full_jitter": (),
    "check_decorrelated": (),
    "check_retry_loop": (),
    "check_breaker": (),
}
