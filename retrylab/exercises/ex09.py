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
from ..i18n import N_, _, number, pgettext
from . import Feedback, as_number, checker, prompt, right, shown, unanswered, wrong
from .build.harness import Session, run
from .table import Exercise, Inputs, Mistake, judge

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
    """``fn(failed, minimum)``: the percent of failures in the window.

    -1 below ``minimum`` calls.
    """
    return _check_function(fn, "failure_rate(failed, minimum)", _failure_rate_battery)


def _near(x: float, y: float) -> bool:
    return math.isclose(x, y, abs_tol=1e-9)


def _first(mistakes: tuple[Mistake, ...], value: Any, case: Inputs) -> Mistake | None:
    """The first of ``mistakes`` that names ``value`` for ``case``."""
    return next((m for m in mistakes if m.matches(value, case, _near)), None)


def _rate_case(outcomes: list[bool], minimum: int, got: Any) -> dict[str, Any]:
    want = _reference_rate(list(outcomes), minimum)
    value = as_number(got)
    return {
        "outcomes": outcomes,
        "minimum": minimum,
        "calls": len(outcomes),
        "failed": sum(outcomes),
        "want": want,
        "got": repr(got),
        "value": "" if value is None else f"{value:g}",
        "expected": f"{want:g}",
    }


#: What a wrong failure rate is, first that fits: the -1 rules, then the usual slips
#: (each a sentence after "returned ..., expected ...").
RATE_MISTAKES = (
    Mistake(
        N_(
            "failure_rate({outcomes}, {minimum}) returned {value}: with "
            "{calls} calls, fewer than minimum={minimum}, the rate is "
            "not judged yet: return -1."
        ),
        when=lambda v, c: c["want"] == -1 and v != -1,
    ),
    Mistake(
        N_(
            "failure_rate({outcomes}, {minimum}) returned -1: with exactly "
            "minimum={minimum} calls the rate is judged; -1 is only for "
            "fewer (len(failed) < minimum)."
        ),
        when=lambda v, c: c["want"] != -1 and v == -1 and c["calls"] == c["minimum"],
    ),
)
RATE_SLIPS = (
    Mistake(
        N_("Is it a fraction? resilience4j uses percent (0-100)."),
        when=lambda v, c: _near(v * 100, c["want"]),
    ),
    Mistake(
        N_("That is the success rate: count the failures (True)."),
        when=lambda v, c: (
            bool(c["calls"]) and _near(v, 100 * (c["calls"] - c["failed"]) / c["calls"])
        ),
    ),
    Mistake(
        N_("That is the number of failures: divide by the calls in the window."),
        when=lambda v, c: v == c["failed"],
    ),
    Mistake(
        N_("Divide by the calls in the window, not by minimum."),
        when=lambda v, c: bool(c["minimum"]) and _near(v, 100 * c["failed"] / c["minimum"]),
    ),
    Mistake(
        N_("Do not round: the rate keeps its fraction of a percent."),
        when=lambda v, c: v == round(c["want"]) or v == math.floor(c["want"]),
    ),
)


def _failure_rate_battery(call: Callable[..., Any]) -> Feedback:
    for outcomes, minimum in FAILURE_RATE_CASES:
        got = call(list(outcomes), minimum)
        case = _rate_case(outcomes, minimum, got)
        value = as_number(got)
        if value is None:
            return wrong(
                _(
                    "failure_rate({outcomes}, {minimum}) returned {got}: return a "
                    "number (a percent, or -1)."
                ).format(**case)
            )
        named = _first(RATE_MISTAKES, value, case)
        if named is not None:
            return wrong(named.hint(value, case))
        if not _near(value, case["want"]):
            slip = _first(RATE_SLIPS, value, case)
            return wrong(
                _("failure_rate({outcomes}, {minimum}) returned {value}, expected {want}.").format(
                    **{**case, "want": case["expected"]}
                )
                + ("" if slip is None else " " + slip.hint(value, case))
            )
    return right(_("50% for the example, -1 below the minimum number of calls, as resilience4j."))


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
    cases: Sequence[Inputs], values: list[float | None], slips: tuple[Mistake, ...]
) -> Mistake | None:
    """The one slip every wrong case agrees on, first in the slips' order."""
    common: list[Mistake] | None = None
    for case, value in zip(cases, values, strict=True):
        if value is None or _near(value, case["want"]):
            continue
        found = [m for m in slips if m.matches(value, case, _near)]
        common = found if common is None else [m for m in common if m in found]
    return common[0] if common else None


def _sre_case(r: int, a: int, k: float) -> dict[str, Any]:
    return {"r": r, "a": a, "k": k, "want": sre_reject_probability(r, a, k)}


#: The usual slips that explain a wrong probability (each the value it gives for a case).
SRE_SLIPS = (
    Mistake(
        N_("a probability is between 0 and 1, not a percent."),
        when=lambda v, c: v > 1 and _near(v, c["want"] * 100),
    ),
    Mistake(
        N_("K is missing: the book multiplies accepts by K."),
        when=lambda v, c: _near(v, max(0.0, (c["r"] - c["a"]) / (c["r"] + 1))),
    ),
    Mistake(
        N_("K multiplies accepts, not requests."),
        when=lambda v, c: _near(v, max(0.0, (c["k"] * c["r"] - c["a"]) / (c["r"] + 1))),
    ),
    Mistake(
        N_("that is the chance to send; the book gives the chance to reject."),
        when=lambda v, c: _near(v, 1 - c["want"]),
    ),
    Mistake(
        N_("integer division (//) drops the fraction: divide with /."),
        when=lambda v, c: _near(v, max(0, (c["r"] - c["k"] * c["a"]) // (c["r"] + 1))),
    ),
)
#: What else a wrong probability is, when no slip explains every wrong case.
SRE_MISTAKES = (
    Mistake(
        N_(
            "reject_probability({r}, {a}, {k}) returned {value}: the "
            "book divides by requests + 1, so a client that has sent "
            "nothing never rejects."
        ),
        when=lambda v, c: bool(c["r"]) and _near(v, max(0.0, (c["r"] - c["k"] * c["a"]) / c["r"])),
    ),
)


def _sre_battery(call: Callable[..., Any]) -> Feedback:
    cases = [_sre_case(r, a, k) for r, a, k in SRE_CASES]
    values = [as_number(call(c["r"], c["a"], c["k"])) for c in cases]
    slip = _consistent(cases, values, SRE_SLIPS)
    for case in cases:
        r, a, k, want = case["r"], case["a"], case["k"], case["want"]
        got = call(r, a, k)
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
                ).format(r=r, a=a, k=k, value=number(value, 3))
            )
        if not _near(value, want):
            shown_value = {**case, "value": number(value, 4)}
            if slip is not None:
                return wrong(
                    _("reject_probability({r}, {a}, {k}) returned {value}: {hint}").format(
                        **shown_value, hint=slip.hint(value, case)
                    )
                )
            named = _first(SRE_MISTAKES, value, case)
            if named is not None:
                return wrong(named.hint(value, shown_value))
            return wrong(
                _("reject_probability({r}, {a}, {k}) returned {value}, expected {want}.").format(
                    **{**shown_value, "want": number(want, 4)}
                )
            )
    return right(_("max(0, (requests - K * accepts) / (requests + 1)): 0.364 for the example."))


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


def _hedge_case(first: int, second: int, delay: int) -> dict[str, Any]:
    want = hedge(HedgingPolicy(2, delay), [first, second]).latency
    return {"first": first, "second": second, "delay": delay, "want": float(want), "ms": want}


#: What a wrong latency is, first that fits, named for the case it fails.
HEDGE_MISTAKES = (
    Mistake(
        N_(
            "hedged_latency({first}, {second}, {delay}) returned {got}: "
            "the copy only starts at the hedging delay, so it answers at "
            "delay + second."
        ),
        when=lambda v, c: v == min(c["first"], c["second"]),
    ),
    Mistake(
        N_(
            "hedged_latency({first}, {second}, {delay}) returned {got}: "
            "the first copy answered sooner; the first answer wins."
        ),
        when=lambda v, c: v == c["delay"] + c["second"] and c["first"] < v,
    ),
)
#: The usual slips that explain a wrong latency (each the value it gives for a case).
HEDGE_SLIPS = (
    Mistake(
        N_("no hedge: after the delay a copy is sent, and it answers at delay + second."),
        when=lambda v, c: v == c["first"] and c["first"] > c["delay"],
    ),
    Mistake(
        N_("the first answer wins: take the smaller, not the larger."),
        when=lambda v, c: v == max(c["first"], c["delay"] + c["second"]),
    ),
    Mistake(
        N_("the copy starts at the hedging delay, not when the first copy ends."),
        when=lambda v, c: v == c["first"] + c["second"],
    ),
    Mistake(
        N_("the first copy was sent at 0, not at the delay."),
        when=lambda v, c: v == c["delay"] + min(c["first"], c["second"]),
    ),
    Mistake(
        N_("the copy is sent at the delay, so it answers at delay + second."),
        when=lambda v, c: v == c["second"] and c["first"] > c["delay"],
    ),
    Mistake(
        N_("the delay is when the copy is sent, not when an answer comes."),
        when=lambda v, c: v == c["delay"],
    ),
)


def _hedge_battery(call: Callable[..., Any]) -> Feedback:
    cases = [_hedge_case(*case) for case in HEDGE_CASES]
    values = [as_number(call(c["first"], c["second"], c["delay"])) for c in cases]
    slip = _consistent(cases, values, HEDGE_SLIPS)
    for case in cases:
        got = call(case["first"], case["second"], case["delay"])
        value = as_number(got)
        if value is None or value != case["ms"]:
            named = None if value is None else _first(HEDGE_MISTAKES, value, case)
            if named is not None:
                return wrong(named.hint(value, {**case, "got": repr(got)}))
            if slip is not None:
                return wrong(
                    _("hedged_latency({first}, {second}, {delay}) returned {got}: {hint}").format(
                        **case, got=shown(got), hint=slip.hint(value, case)
                    )
                )
            return wrong(
                _(
                    "hedged_latency({first}, {second}, {delay}) returned {got}, expected {want}."
                ).format(**{**case, "got": repr(got), "want": case["ms"]})
            )
    return right(_("80 ms for the example: the copy sent at 50 ms answers after 30 more."))


@checker
def check_recovering_settings(settings: Any) -> Feedback:
    """Settings (``timeout``, ``retries`` >= 2, ``budget``) that recover from the spike.

    The notebook's default spike (3 s at 1.5× capacity on a base of 0.8)
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
                "still metastable: at the end the load is {load}× the users' "
                "(capacity is 1.25×). Each timed-out request comes back as a retry; "
                "limit the retries to a share of the first tries, or wait longer."
            ).format(load=number(amp, 2))
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
            example=lambda i: (i["want"] / 1000, *(t // 1000 for t in i["page"])),
        ),
        Mistake(
            N_("timeout={timeout} counts 100 ms steps; give the timeout itself, in ms."),
            when=lambda x, i: x.is_integer() and 0 < x < 100 and x * 100 == i["want"],
            example=lambda i: i["want"] // 100,
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
            example=lambda i: i["want"] + 50,
        ),
        Mistake(
            N_(
                "timeout=100 is the shortest the checker allows, not the shortest "
                "that recovers: the spike's requests time out and come back as "
                "retries. Try longer ones."
            ),
            when=lambda got, i: got == 100 and not _recovers(got),
            example=lambda i: 100,
        ),
        Mistake(
            N_(
                "timeout={ms}: it recovers, but a shorter timeout does too: try "
                "smaller ones, 100 ms at a time."
            ),
            when=lambda got, i: _recovers(got),
            example=lambda i: (i["want"] + 1000, i["want"] + 100),
        ),
        Mistake(
            N_(
                "timeout={ms}: still metastable; the timeouts expire so early that "
                "every spike's request comes back as retries. Try longer ones."
            ),
            when=lambda got, i: not _recovers(got),
            example=lambda i: (i["want"] - 100, i["want"] - 200),
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
