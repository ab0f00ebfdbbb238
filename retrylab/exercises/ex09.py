"""Checkers for notebook 09: window failure rate, SRE throttle, hedge, metastable settings.

Each checker first tries the example from the notebook's text, then hidden
cases, and names the first failure in the reader's words. A function that
raises is reported, never re-raised.
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable, Sequence
from typing import Any

from ..core.hedging import HedgingPolicy, hedge
from ..core.metastable import MetastableModel
from ..core.ratebreaker import RateWindow
from ..core.throttle import sre_reject_probability
from ..i18n import N_, _, pgettext
from . import Feedback, as_number, checker, prompt, right, shown, unanswered, wrong
from .build.harness import Session, run
from .table import Exercise, Mistake, judge

__all__ = [
    "check_failure_rate",
    "check_hedged_latency",
    "check_recovering_settings",
    "check_shortest_timeout",
    "check_sre_probability",
]


def _check_function(
    fn: Any, signature: str, battery: Callable[[Callable[..., Any]], Feedback]
) -> Feedback:
    """The prologue every function checker here shares, then ``battery(call)`` under the
    build checkers' harness: ``call(*args)`` runs the student's function with a time
    limit (one that loops forever is reported, the kernel never hangs), reports what
    it raises, and takes a first ``None`` (or ``...``) as the unfilled scaffold."""
    name = signature.split("(")[0]
    if unanswered(fn):
        return prompt(_("a function {signature}").format(signature=signature))
    if not callable(fn):
        return wrong(_("fn={fn}: pass the function itself, not its result.").format(fn=shown(fn)))
    label = getattr(fn, "__name__", name)

    def go(session: Session) -> Feedback:
        return battery(lambda *args: session.call(f"{label}{args!r}", fn, *args))

    return run(
        go,
        _("the body of {name} (it returns None so far)").format(name=name),
        pgettext("return value", "its result"),
    )


def _reference_rate(outcomes: list[bool], minimum: int) -> float:
    w = RateWindow("count", 1000, minimum)  # a window larger than any case
    for failed in outcomes:
        w.add(failed, False, 0)
    return w.failure_rate(0)


FAILURE_RATE_CASES: tuple[tuple[list[bool], int], ...] = (
    ([True, False, False, True], 4),  # the notebook's example: 50.0
    ([True, True, True], 5),  # below the minimum: -1
    ([], 1),  # nothing yet: -1
    ([False] * 9 + [True], 10),
    ([True] * 7 + [False] * 3, 10),
    ([True, False, True], 2),
)


@checker
def check_failure_rate(fn: Any) -> Feedback:
    """``fn(failed, minimum)``: the percent of failures in the window, -1 below ``minimum`` calls."""
    return _check_function(fn, "failure_rate(failed, minimum)", _failure_rate_battery)


def _failure_rate_battery(call: Callable[..., Any]) -> Feedback:
    for outcomes, minimum in FAILURE_RATE_CASES:
        got = call(list(outcomes), minimum)
        want = _reference_rate(list(outcomes), minimum)
        value = as_number(got)
        if value is None:
            return wrong(
                _(
                    "failure_rate({outcomes}, {minimum}) returned {got}: return a "
                    "number (a percent, or -1)."
                ).format(outcomes=outcomes, minimum=minimum, got=repr(got))
            )
        if want == -1 and value != -1:
            return wrong(
                _(
                    "failure_rate({outcomes}, {minimum}) returned {value}: with "
                    "{calls} calls, fewer than minimum={minimum}, the rate is "
                    "not judged yet: return -1."
                ).format(
                    outcomes=outcomes, minimum=minimum, value=f"{value:g}", calls=len(outcomes)
                )
            )
        if want != -1 and value == -1 and len(outcomes) == minimum:
            return wrong(
                _(
                    "failure_rate({outcomes}, {minimum}) returned -1: with exactly "
                    "minimum={minimum} calls the rate is judged; -1 is only for "
                    "fewer (len(failed) < minimum)."
                ).format(outcomes=outcomes, minimum=minimum)
            )
        if not math.isclose(value, want, abs_tol=1e-9):
            hint = _failure_rate_hint(outcomes, minimum, value, want)
            return wrong(
                _("failure_rate({outcomes}, {minimum}) returned {value}, expected {want}.").format(
                    outcomes=outcomes, minimum=minimum, value=f"{value:g}", want=f"{want:g}"
                )
                + hint
            )
    return right(_("50% for the example, -1 below the minimum number of calls, as resilience4j."))


def _failure_rate_hint(outcomes: list[bool], minimum: int, value: float, want: float) -> str:
    """The usual slip behind a wrong rate, as a sentence to append ('' if none)."""
    n, failed = len(outcomes), sum(outcomes)
    if math.isclose(value * 100, want, abs_tol=1e-9):
        return " " + _("Is it a fraction? resilience4j uses percent (0-100).")
    if n and math.isclose(value, 100 * (n - failed) / n, abs_tol=1e-9):
        return " " + _("That is the success rate: count the failures (True).")
    if value == failed:
        return " " + _("That is the number of failures: divide by the calls in the window.")
    if minimum and math.isclose(value, 100 * failed / minimum, abs_tol=1e-9):
        return " " + _("Divide by the calls in the window, not by minimum.")
    if value == round(want) or value == math.floor(want):
        return " " + _("Do not round: the rate keeps its fraction of a percent.")
    return ""


SRE_CASES: tuple[tuple[int, int, float], ...] = (
    (10, 3, 2.0),
    (100, 50, 2.0),
    (10, 8, 2.0),
    (100, 20, 2.0),
    (0, 0, 2.0),
    (100, 20, 1.1),
    (5, 0, 3.0),
)


@checker
def check_sre_probability(fn: Any) -> Feedback:
    """``fn(requests, accepts, k)``: the SRE book's client-side rejection probability."""
    return _check_function(fn, "reject_probability(requests, accepts, k)", _sre_battery)


def _consistent(
    cases: Sequence[Any],
    values: list[float | None],
    wants: list[float],
    hints: Callable[..., list[str]],
) -> str:
    """The one slip (a hint) every wrong case agrees on, first in the hints' order."""
    common: list[str] | None = None
    for case, value, want in zip(cases, values, wants, strict=True):
        if value is None or math.isclose(value, want, abs_tol=1e-9):
            continue
        found = hints(*case, value, want)
        common = found if common is None else [h for h in common if h in found]
    return common[0] if common else ""


def _sre_battery(call: Callable[..., Any]) -> Feedback:
    values = [as_number(call(r, a, k)) for r, a, k in SRE_CASES]
    wants = [sre_reject_probability(r, a, k) for r, a, k in SRE_CASES]
    slip = _consistent(SRE_CASES, values, wants, _sre_hints)
    for r, a, k in SRE_CASES:
        got = call(r, a, k)
        want = sre_reject_probability(r, a, k)
        value = as_number(got)
        if value is None:
            return wrong(
                _(
                    "reject_probability({r}, {a}, {k}) returned {got}: return a "
                    "probability between 0 and 1."
                ).format(r=r, a=a, k=k, got=repr(got))
            )
        if value < 0:
            return wrong(
                _(
                    "reject_probability({r}, {a}, {k}) returned {value}: a "
                    "probability cannot be negative; the book takes max(0, ...)."
                ).format(r=r, a=a, k=k, value=f"{value:.3f}")
            )
        if not math.isclose(value, want, abs_tol=1e-9):
            hint = slip
            if hint:
                return wrong(
                    _("reject_probability({r}, {a}, {k}) returned {value}: {hint}").format(
                        r=r, a=a, k=k, value=f"{value:.4f}", hint=hint
                    )
                )
            if r and math.isclose(value, max(0.0, (r - k * a) / r), abs_tol=1e-9):
                return wrong(
                    _(
                        "reject_probability({r}, {a}, {k}) returned {value}: the "
                        "book divides by requests + 1, so a client that has sent "
                        "nothing never rejects."
                    ).format(r=r, a=a, k=k, value=f"{value:.4f}")
                )
            return wrong(
                _("reject_probability({r}, {a}, {k}) returned {value}, expected {want}.").format(
                    r=r, a=a, k=k, value=f"{value:.4f}", want=f"{want:.4f}"
                )
            )
    return right(_("max(0, (requests - K * accepts) / (requests + 1)): 0.364 for the example."))


def _sre_hints(r: int, a: int, k: float, value: float, want: float) -> list[str]:
    """The usual slips that explain a wrong probability."""

    def near(x: float) -> bool:
        return math.isclose(value, x, abs_tol=1e-9)

    found = []
    if value > 1 and near(want * 100):
        found.append(_("a probability is between 0 and 1, not a percent."))
    if near(max(0.0, (r - a) / (r + 1))):
        found.append(_("K is missing: the book multiplies accepts by K."))
    if near(max(0.0, (k * r - a) / (r + 1))):
        found.append(_("K multiplies accepts, not requests."))
    if near(1 - want):
        found.append(_("that is the chance to send; the book gives the chance to reject."))
    if near(max(0, (r - k * a) // (r + 1))):
        found.append(_("integer division (//) drops the fraction: divide with /."))
    return found


HEDGE_CASES: tuple[tuple[int, int, int], ...] = (
    (400, 30, 50),
    (20, 30, 50),
    (50, 10, 50),
    (80, 10, 50),
    (100, 100, 0),
    (300, 500, 100),
)


@checker
def check_hedged_latency(fn: Any) -> Feedback:
    """``fn(first, second, delay)``: the latency of a request with one hedge after ``delay`` ms.

    ``first`` and ``second`` are how long each copy would take; the second is
    sent only if the first has not answered by ``delay``.
    """
    return _check_function(fn, "hedged_latency(first, second, delay)", _hedge_battery)


def _hedge_battery(call: Callable[..., Any]) -> Feedback:
    values = [as_number(call(*case)) for case in HEDGE_CASES]
    wants = [float(hedge(HedgingPolicy(2, d), [f, s]).latency) for f, s, d in HEDGE_CASES]
    slip = _consistent(HEDGE_CASES, values, wants, _hedge_hints)
    for first, second, delay in HEDGE_CASES:
        got = call(first, second, delay)
        want = hedge(HedgingPolicy(2, delay), [first, second]).latency
        value = as_number(got)
        if value is None or value != want:
            if value == min(first, second):
                return wrong(
                    _(
                        "hedged_latency({first}, {second}, {delay}) returned {got}: "
                        "the copy only starts at the hedging delay, so it answers at "
                        "delay + second."
                    ).format(first=first, second=second, delay=delay, got=repr(got))
                )
            if value == delay + second and first < value:
                return wrong(
                    _(
                        "hedged_latency({first}, {second}, {delay}) returned {got}: "
                        "the first copy answered sooner; the first answer wins."
                    ).format(first=first, second=second, delay=delay, got=repr(got))
                )
            hint = slip
            if hint:
                return wrong(
                    _("hedged_latency({first}, {second}, {delay}) returned {got}: {hint}").format(
                        first=first, second=second, delay=delay, got=shown(got), hint=hint
                    )
                )
            return wrong(
                _(
                    "hedged_latency({first}, {second}, {delay}) returned {got}, expected {want}."
                ).format(first=first, second=second, delay=delay, got=repr(got), want=want)
            )
    return right(_("80 ms for the example: the copy sent at 50 ms answers after 30 more."))


def _hedge_hints(first: int, second: int, delay: int, value: float, want: float) -> list[str]:
    """The usual slips that explain a wrong latency."""
    found = []
    if value == first and first > delay:
        found.append(
            _("no hedge: after the delay a copy is sent, and it answers at delay + second.")
        )
    if value == max(first, delay + second):
        found.append(_("the first answer wins: take the smaller, not the larger."))
    if value == first + second:
        found.append(_("the copy starts at the hedging delay, not when the first copy ends."))
    if value == delay + min(first, second):
        found.append(_("the first copy was sent at 0, not at the delay."))
    if value == second and first > delay:
        found.append(_("the copy is sent at the delay, so it answers at delay + second."))
    if value == delay:
        found.append(_("the delay is when the copy is sent, not when an answer comes."))
    return found


@checker
def check_recovering_settings(settings: Any) -> Feedback:
    """Settings (``timeout``, ``retries`` >= 2, ``budget``) that recover from the spike.

    The notebook's default spike (3 s at 1.5x capacity on a base of 0.8)
    tips the default settings (timeout 1000 ms, 3 retries, no budget) into a
    metastable state. Keep at least 2 retries and find settings that recover.

    >>> check_recovering_settings({"timeout": 1000, "retries": 3, "budget": None}).correct
    False
    """
    if unanswered(settings):
        return prompt(_('a dict such as {"timeout": 1000, "retries": 2, "budget": None}'))
    if not isinstance(settings, dict):
        return wrong(
            _("settings={value}: give a dict with the keys timeout, retries, budget.").format(
                value=repr(settings)
            )
        )
    if any(v is Ellipsis for v in settings.values()):
        return prompt(_("a number for each ... in settings (budget may be None)"))
    unknown = sorted(set(settings) - {"timeout", "retries", "budget"})
    if unknown:
        return wrong(
            _("settings has {key}: only timeout, retries and budget are yours to change.").format(
                key=repr(unknown[0])
            )
        )
    retries = settings.get("retries", 3)
    if isinstance(retries, bool) or not isinstance(retries, int) or retries < 2:
        return wrong(
            _(
                "retries={value}: keep at least 2 retries (a whole number); "
                "with fewer the exercise is too easy."
            ).format(value=repr(retries))
        )
    try:
        run = MetastableModel(**settings).run()
    except (TypeError, ValueError) as exc:
        return wrong(_("those settings are refused: {error}").format(error=exc))
    if run.recovered_at is None:
        amp = run.final_amplification
        return wrong(
            _(
                "still metastable: at the end the load is {load}x the users' "
                "(capacity is 1.25x). Each timed-out request comes back as a retry; "
                "limit the retries to a share of the first tries, or wait longer."
            ).format(load=f"{amp:.2f}")
        )
    return right(run.summary() + ".")


def _recovers(timeout: int) -> bool:
    return MetastableModel(timeout=timeout).run().recovered_at is not None


@functools.cache
def _shortest_timeout(step: int = 100) -> int:
    """The shortest timeout (a multiple of ``step`` ms) with which the default spike
    recovers, with the default 3 retries and no budget."""
    start = max(step, 100) if step >= 100 else _shortest_timeout(100) - 100 + step
    return next(t for t in range(start, 10_001, step) if _recovers(t))


#: The timeouts (ms) notebook 09 runs before exercise 4: metastable, then recovered.
PAGE_TIMEOUTS = (1000, 3000)


def _timeout_read(answer: Any) -> int | None:
    value = as_number(answer)
    if value is None or not value.is_integer() or not 100 <= value <= 10_000:
        return None
    return int(value)


SHORTEST_TIMEOUT = Exercise(
    asks=N_("a timeout in ms, a multiple of 100"),
    inputs=lambda: {"page": PAGE_TIMEOUTS},
    want=lambda i: _shortest_timeout(),
    fields=lambda i, want: {"before": want - 100},
    read=_timeout_read,
    equal=lambda got, want: got == want or got == _shortest_timeout(1),
    named=("ms", "timeout"),
    quote=lambda answer: shown(answer),
    quote_early=lambda answer, number: shown(answer),
    unreadable=N_("timeout={timeout}: give a whole number of ms from 100 to 10000."),
    right=N_(
        "{ms} ms: from there on a timed-out request gives up late enough "
        "that its retries no longer outrun the capacity; at {before} ms the "
        "spike still tips the server into a metastable state. The edge is "
        "sharp: a small change of one setting decides between the two."
    ),
    otherwise=N_(
        "timeout={ms}: still metastable; the timeouts expire so early that "
        "every spike's request comes back as retries. Try longer ones."
    ),
    early=(
        Mistake(
            N_("timeout={timeout} looks like seconds; the timeout is in ms."),
            when=lambda x, i: 0 < x < 100 and 100 <= x * 1000 <= 10_000,
        ),
        Mistake(
            N_("timeout={timeout} counts 100 ms steps; give the timeout itself, in ms."),
            when=lambda x, i: x.is_integer() and 0 < x < 100 and x * 100 == i["want"],
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "timeout={ms} is the page's example that recovers; the question asks "
                "the shortest that does."
            ),
            gives=lambda i: i["page"][1],
        ),
        Mistake(
            N_(
                "timeout={ms} is the page's example that stays metastable: it tips "
                "the server over, so the shortest safe one is longer."
            ),
            gives=lambda i: i["page"][0],
        ),
        Mistake(
            N_("timeout={ms}: the question asks in steps of 100 ms; give a multiple of 100."),
            when=lambda got, i: got % 100 != 0,
        ),
        Mistake(
            N_(
                "timeout=100 is the shortest the checker allows, not the shortest "
                "that recovers: the spike's requests time out and come back as "
                "retries. Try longer ones."
            ),
            when=lambda got, i: got == 100 and not _recovers(got),
        ),
        Mistake(
            N_(
                "timeout={ms}: it recovers, but a shorter timeout does too: try "
                "smaller ones, 100 ms at a time."
            ),
            when=lambda got, i: _recovers(got),
        ),
    ),
)


@checker
def check_shortest_timeout(timeout: Any) -> Feedback:
    """Notebook 09, exercise 4: the shortest timeout, in 100 ms steps, with which the
    default spike does not leave the server metastable (3 retries, no budget). The
    notebook shows 1000 ms (metastable) and 3000 ms (recovers).

    >>> check_shortest_timeout(3000).correct
    False
    """
    return judge(SHORTEST_TIMEOUT, timeout)
