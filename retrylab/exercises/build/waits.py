"""The checkers of the waits the student writes: full jitter and decorrelated jitter.

See :mod:`retrylab.exercises.build` for how the build checkers judge.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from ...core.backoff import Backoff
from ...core.jsround import js_round
from ...core.rng import Mulberry32
from ...i18n import N_, _, pgettext
from .. import Feedback, checker, prompt, right, unanswered, wrong
from .harness import (
    BASE,
    CAP,
    DECO,
    FACTOR,
    FULL,
    SEED,
    Session,
    as_ms,
    not_callable,
    quiet,
    run,
)

#: What a "write the formula" answer must not call: the library's own waits.
_BACKOFF_ENTRY_POINTS = (
    (Backoff, "next_wait"),
    (Backoff, "next_waits"),
    (Backoff, "waits"),
    (Backoff, "ceiling"),
    (Backoff, "ceilings"),
)

# == 1. full jitter =================================================================


def _ceiling(n: int) -> int:
    return min(CAP, BASE * FACTOR**n)


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
    step = max(2, width // (count + 1) // 2 * 2)  # even, so h stays even
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
    cases += [(n, 1 - 2**-53) for n in (0, 4, 5, 12)]
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


def _diagnose(
    session: Session, fn: Callable[..., Any], name: str, mistakes: Sequence[_Mistake]
) -> str:
    """The hint of the first mistake whose model the student's answers match."""
    for m in mistakes:

        def matches(m: _Mistake = m) -> bool:
            return all(
                as_ms(session.call(f"{name}{p}", fn, *p), f"{name}{p}") == m.model(*p)
                for p in m.probes
            )

        if quiet(session, matches):
            return " " + _(m.hint)
    return ""


def _frac(c: int, k: int) -> float:
    """A draw r with r * c = k + 0.75 (so truncation and rounding differ)."""
    return (k + 0.75) / c


_ROUND_HINT = N_(
    "Python's round() rounds halves to even (round(2.5) == 2); the lesson's "
    "Math.round rounds them up: use retrylab.js_round(x) (or "
    "math.floor(x + 0.5))."
)
_TRUNC_HINT = N_(
    "int() and math.floor cut the fraction off; Math.round rounds to the "
    "nearest whole ms (halves up): use retrylab.js_round(x)."
)

_CEIL_HINT = N_(
    "math.ceil rounds every fraction up; Math.round rounds to the nearest whole "
    "ms (halves up): use retrylab.js_round(x)."
)

_FULL_MISTAKES: tuple[_Mistake, ...] = (
    _Mistake(
        N_(
            "These are the ceilings, without jitter: full jitter is r * ceiling, "
            "anywhere from 0 up to the ceiling."
        ),
        lambda n, r: _ceiling(n),
        ((0, 0.25), (1, 0.5), (5, 0.1)),
    ),
    _Mistake(
        _ROUND_HINT,
        lambda n, r: round(r * _ceiling(n)),
        (*_full_halves()[::4], (0, _frac(200, 70))),
    ),
    _Mistake(
        _TRUNC_HINT,
        lambda n, r: math.floor(r * _ceiling(n)),
        ((0, _frac(200, 70)), (2, _frac(800, 300)), (4, _frac(3200, 9))),
    ),
    _Mistake(
        N_(
            "Your waits are those of the next retry: is n counted from 0? n = 0 is the "
            "first retry, whose ceiling is 200 * 2**0 = 200 ms."
        ),
        lambda n, r: js_round(r * _ceiling(n + 1)),
        ((0, 0.25), (1, 0.25), (2, 0.25), (3, 0.25)),
    ),
    _Mistake(
        N_(
            "Your waits are those of the retry before: the lesson's n is already 0 for "
            "the first retry, so its ceiling is 200 * 2**n, not 200 * 2**(n - 1)."
        ),
        lambda n, r: js_round(r * min(CAP, BASE * FACTOR ** (n - 1))),
        ((1, 0.25), (2, 0.25), (3, 0.25)),
    ),
    _Mistake(
        N_("The wait passed 5000 ms: the cap is missing. The ceiling is min(5000, 200 * 2**n)."),
        lambda n, r: js_round(r * BASE * FACTOR**n),
        ((6, 0.75), (8, 0.25)),
    ),
    _Mistake(
        N_(
            "Cap the ceiling, not the wait: min(5000, 200 * 2**n) first, then r times "
            "that. Capping the wait piles every late retry on exactly 5000 ms."
        ),
        lambda n, r: min(CAP, js_round(r * BASE * FACTOR**n)),
        ((6, 0.75), (8, 0.25)),
    ),
    _Mistake(
        N_(
            "That is equal jitter (half the ceiling plus a random half); the exercise "
            "asks for full jitter, r * ceiling."
        ),
        lambda n, r: js_round(_ceiling(n) / 2 + r * _ceiling(n) / 2),
        ((0, 0.25), (2, 0.5)),
    ),
    _Mistake(
        N_(
            "The draw was shifted to 0.5 + r, so waits run from half the ceiling to 1.5 "
            "times it: full jitter is r * ceiling, from 0 up to the ceiling."
        ),
        lambda n, r: js_round((0.5 + r) * _ceiling(n)),
        ((0, 0.25), (1, 0.25), (3, 0.6)),
    ),
    _Mistake(
        _CEIL_HINT,
        lambda n, r: math.ceil(r * _ceiling(n)),
        ((0, _frac(200, 70) - 0.5 / 200), (2, _frac(800, 300) - 0.5 / 800), (4, (9.25) / 3200)),
    ),
    _Mistake(
        N_(
            "The ceiling grows by 200 ms a retry (200 * (n + 1)): exponential backoff "
            "doubles it every retry, 200 * 2**n."
        ),
        lambda n, r: js_round(r * min(CAP, BASE * (n + 1))),
        ((2, 0.5), (3, 0.5), (4, 0.5)),
    ),
    _Mistake(
        N_(
            "The ceiling multiplies by n (200 * 2 * n) instead of raising 2 to the power "
            "n: in Python that is 200 * 2 ** n."
        ),
        lambda n, r: js_round(r * min(CAP, BASE * FACTOR * n)),
        ((1, 0.5), (3, 0.5), (4, 0.5)),
    ),
)


@checker
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
        return not_callable(
            fn, _("a function {signature}").format(signature="full_jitter(n, r) -> int")
        )

    draws = _lesson_draws()
    lesson = [(n, draws[2 * n]) for n in range(6)]
    cases = _full_cases()
    wants = {case: FULL.next_wait(*case) for case in lesson + cases}  # before any answer runs

    def battery(s: Session) -> Feedback:
        for n, r in lesson:
            got = as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = wants[n, r]
            if got != want:
                return wrong(
                    _(
                        "{call} returned {got}, but the lesson's table says {want} at retry n={n}."
                    ).format(call=f"full_jitter({n}, {r!r})", got=got, n=n, want=want)
                    + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES)
                )
        for n, r in cases:
            got = as_ms(s.call(f"full_jitter({n}, {r!r})", fn, n, r), f"full_jitter({n}, {r!r})")
            want = wants[n, r]
            if got != want:
                return wrong(
                    _(
                        "the lesson's table matches, but {call} returned {got}; "
                        "round(r * min(5000, 200 * 2**{n})) with Math.round is {want} "
                        "(r * ceiling = {product})."
                    ).format(
                        call=f"full_jitter({n}, {r!r})",
                        got=got,
                        n=n,
                        want=want,
                        product=repr(r * _ceiling(n)),
                    )
                    + _diagnose(s, fn, "full_jitter", _FULL_MISTAKES)
                )
        return right(
            _(
                "all 6 rows of the lesson's table (70 296 780 303 480 957) and "
                "{unseen} unseen cases match, exact .5 halves included."
            ).format(unseen=len(cases))
        )

    return run(
        battery,
        _("your function {signature}").format(signature="full_jitter(n, r)"),
        pgettext("return value", "the wait"),
        forbidden=(Backoff,),
        entry_points=_BACKOFF_ENTRY_POINTS,
        answer=fn,
    )


# == 2. decorrelated jitter ===========================================================


def _deco(prev: int, r: float) -> int:
    return DECO.next_wait(0, r, prev)


def _deco_halves() -> list[tuple[int, float]]:
    cases: list[tuple[int, float]] = []
    for prev in (200, 384, 1034, 1600, 2121):
        width = prev * 3 - BASE
        cases += [(prev, r) for r in _halves(_line(BASE, width), BASE, width, 2)]
    return cases


def _deco_cases() -> list[tuple[int, float]]:
    """200 unseen (prev, r): chains of many seeds, random prevs, edges, exact halves."""
    cases: list[tuple[int, float]] = [(p, 0.0) for p in (200, 1000, 5000)]
    cases += [(p, 1 - 2**-53) for p in (200, 1700, 5000)]
    cases += _deco_halves()
    seed = 1
    while len(cases) < 200:
        rng = Mulberry32(seed)
        prev = BASE
        for _step in range(6):  # a chain, as the lesson's table is
            r = rng()
            cases.append((prev, r))
            prev = _deco(prev, r)
        cases.append((BASE + int(rng() * (CAP - BASE + 1)), rng()))
        seed += 1
    return cases[:200]


_DECO_MISTAKES: tuple[_Mistake, ...] = (
    _Mistake(
        _ROUND_HINT,
        lambda p, r: min(CAP, round(BASE + r * (p * 3 - BASE))),
        (*_deco_halves()[::2], (200, _frac(400, 10))),
    ),
    _Mistake(
        _TRUNC_HINT,
        lambda p, r: min(CAP, math.floor(BASE + r * (p * 3 - BASE))),
        ((200, _frac(400, 10)), (1000, _frac(2800, 500))),
    ),
    _Mistake(
        N_(
            "The wait passed 5000 ms: decorrelated jitter is capped too, "
            "min(5000, Math.round(...))."
        ),
        lambda p, r: js_round(BASE + r * (p * 3 - BASE)),
        ((4000, 0.9), (5000, 0.5)),
    ),
    _Mistake(
        N_(
            "The range is from 200 (TABAN) up to 3 * prev: with prev alone in place of "
            "prev * 3 the waits never grow."
        ),
        lambda p, r: min(CAP, js_round(BASE + r * (p - BASE))),
        ((1000, 0.5), (400, 0.75)),
    ),
    _Mistake(
        N_(
            "r scales the width of the range, prev * 3 - 200: without the - 200 the "
            "waits can pass 3 * prev."
        ),
        lambda p, r: min(CAP, js_round(BASE + r * p * 3)),
        ((1000, 0.5), (400, 0.25)),
    ),
    _Mistake(
        N_(
            "The range starts at 200 (TABAN): the lesson adds 200 to "
            "r * (prev * 3 - 200), so no wait is shorter than the base."
        ),
        lambda p, r: min(CAP, js_round(r * p * 3)),
        ((1000, 0.5), (400, 0.25)),
    ),
    _Mistake(
        N_(
            "The wait ignores prev: decorrelated jitter draws from 200 up to 3 times the "
            "previous wait (onceki * 3), which is what makes it grow."
        ),
        lambda p, r: min(CAP, js_round(BASE + r * (BASE * 3 - BASE))),
        ((1000, 0.5), (3000, 0.25)),
    ),
    _Mistake(
        N_(
            "The top of the range was capped (min(5000, prev * 3)) instead of the wait: "
            "the lesson draws from 200 up to prev * 3 and caps the rounded wait, "
            "min(5000, Math.round(...))."
        ),
        lambda p, r: js_round(BASE + r * (min(CAP, p * 3) - BASE)),
        ((2000, 0.5), (4000, 0.25), (3000, 0.75)),
    ),
    _Mistake(
        _CEIL_HINT,
        lambda p, r: min(CAP, math.ceil(BASE + r * (p * 3 - BASE))),
        ((200, 10.25 / 400), (1000, 500.25 / 2800)),
    ),
    _Mistake(
        N_(
            "The range reaches 2 * prev; the lesson's decorrelated jitter draws up to "
            "3 times the previous wait (onceki * 3)."
        ),
        lambda p, r: min(CAP, js_round(BASE + r * (p * 2 - BASE))),
        ((1000, 0.5), (400, 0.75)),
    ),
    _Mistake(
        N_(
            "That is the exponential ceiling's full jitter, not decorrelated jitter: the "
            "range depends on the previous wait, 200 + r * (prev * 3 - 200), not on a "
            "retry number."
        ),
        lambda p, r: js_round(r * p),
        ((1000, 0.5), (400, 0.75)),
    ),
)


@checker
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
        return not_callable(
            fn, _("a function {signature}").format(signature="decorrelated(prev, r) -> int")
        )

    draws = _lesson_draws()
    lesson: list[tuple[int, float, int]] = []  # (prev, r, want), before any answer runs
    prev = BASE
    for n in range(6):
        r = draws[2 * n + 1]
        lesson.append((prev, r, _deco(prev, r)))
        prev = lesson[-1][2]
    cases = [(p, r, _deco(p, r)) for p, r in _deco_cases()]

    def battery(s: Session) -> Feedback:
        for n, (prev, r, want) in enumerate(lesson):
            what = f"decorrelated({prev}, {r!r})"
            got = as_ms(s.call(what, fn, prev, r), what)
            if got != want:
                return wrong(
                    _(
                        "{call} returned {got}, but the lesson's table says {want} at "
                        "retry n={n} (after a wait of {prev} ms)."
                    ).format(call=what, got=got, n=n, prev=prev, want=want)
                    + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES)
                )
        for prev, r, want in cases:
            what = f"decorrelated({prev}, {r!r})"
            got = as_ms(s.call(what, fn, prev, r), what)
            if got != want:
                return wrong(
                    _(
                        "the lesson's table matches, but {call} returned {got}; "
                        "min(5000, Math.round(200 + r * ({prev} * 3 - 200))) is "
                        "{want}."
                    ).format(call=what, got=got, prev=prev, want=want)
                    + _diagnose(s, fn, "decorrelated", _DECO_MISTAKES)
                )
        return right(
            _(
                "all 6 rows of the lesson's table (384 1034 2121 1933 3986 5000) and "
                "{unseen} unseen cases match."
            ).format(unseen=len(cases))
        )

    return run(
        battery,
        _("your function {signature}").format(signature="decorrelated(prev, r)"),
        pgettext("return value", "the wait"),
        forbidden=(Backoff,),
        entry_points=_BACKOFF_ENTRY_POINTS,
        answer=fn,
    )
