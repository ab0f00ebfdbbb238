"""Checkers for notebook 07: the capstone and the checklist quiz.

The capstone scenario: the North Slope station restarts for a firmware update
and is down for 20 s. 5,000 observers' phones sync in the background, arriving
over 30 s; the station serves 10 requests per 10 ms step, and refusing a
request costs it a tenth of serving one. A policy passes when, simulated with
:class:`retrylab.sim.fleet.Fleet`, it meets every target in :data:`TARGETS` and
the checklist of :func:`retrylab.lessons.audit.audit` for background use.
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import islice
from typing import Any

import pandas as pd

from ..core.backoff import Backoff
from ..core.policy import RetryPolicy
from ..i18n import N_, NP_, _, pgettext
from ..lessons.audit import audit
from ..sim.fleet import Fleet
from ..sim.fleetresult import FleetResult
from . import Feedback, checker, plain_policy, prompt, right, shown_number, unanswered, wrong
from .table import Exercise, Mistake, judge

#: (what, limit): at least 99% served, at most 3 requests per phone, the server
#: overloaded for at most 20 steps after it is back, every phone done by 90 s.
TARGETS = {
    "served (%)": 99.0,
    "requests per phone": 3.0,
    "overloaded steps after the outage": 20,
    "last phone done (s)": 90.0,
}
#: How :func:`check_capstone`'s messages name each target (the table keeps the keys).
TARGET_NAMES = {
    "served (%)": NP_("capstone target", "served (%)"),
    "requests per phone": NP_("capstone target", "requests per phone"),
    "overloaded steps after the outage": NP_(
        "capstone target", "overloaded steps after the outage"
    ),
    "last phone done (s)": NP_("capstone target", "last phone done (s)"),
}


def _target(key: object) -> str:
    """A target's name in the notebook's language (the report's index keeps the key)."""
    return pgettext("capstone target", TARGET_NAMES[str(key)])


def capstone_fleet(policy: RetryPolicy) -> Fleet:
    """The capstone's scenario for ``policy`` (see the module docstring)."""
    return Fleet(
        clients=5000,
        policy=policy,
        capacity=10,
        step_ms=10,
        duration_ms=120_000,
        spread_ms=30_000,
        outage=(5_000, 25_000),
        reject_cost=0.1,
        seed=7,
    )


def capstone_report(result: FleetResult) -> pd.DataFrame:
    """Each target, the measured value and whether it is met."""
    clients = result.fleet.clients
    done = result.all_done_ms
    measured = {
        "served (%)": round(100 * result.served / clients, 1),
        "requests per phone": round(result.total_requests / clients, 2),
        "overloaded steps after the outage": result.overloaded_steps_after_outage,
        "last phone done (s)": float("inf") if done is None else done / 1000,
    }
    rows = []
    for what, limit in TARGETS.items():
        value = measured[what]
        ok = value >= limit if what == "served (%)" else value <= limit
        rows.append(
            (
                what,
                value,
                (">= " if what == "served (%)" else "<= ") + f"{limit:g}",
                "pass" if ok else "FAIL",
            )
        )
    return pd.DataFrame(rows, columns=["target", "measured", "wanted", "verdict"]).set_index(
        "target"
    )


#: The capstone's outage lasts this long (ms); figures below 1000 are meant in seconds.
OUTAGE_MS, SECONDS_SLIP_MS = 20_000, 1000


#: A figure written in seconds where ms are meant, or a budget that ends before the
#: station is back: each a test of the policy and its hint, first that fits.
UNIT_SLIPS = (
    Mistake(
        N_(
            "base={base} ms: Backoff takes milliseconds; {base} ms between attempts is "
            "no backoff at all."
        ),
        when=lambda p, i: p.backoff.base < 100,
    ),
    Mistake(
        N_("cap={cap} ms: the cap is in milliseconds; {cap} ms holds every wait under a second."),
        when=lambda p, i: p.backoff.cap is not None and p.backoff.cap < SECONDS_SLIP_MS,
    ),
    Mistake(
        N_(
            "time_budget={budget} ms: the budget is in milliseconds; it ends before "
            "the first answer comes back."
        ),
        when=lambda p, i: p.time_budget is not None and p.time_budget < SECONDS_SLIP_MS,
    ),
    Mistake(
        N_(
            "time_budget={budget} ms ends before the station is back after its "
            "20 s outage: every phone that arrived during it gives up."
        ),
        when=lambda p, i: p.time_budget is not None and p.time_budget <= OUTAGE_MS,
    ),
)


def _unit_slip(policy: RetryPolicy) -> str | None:
    """The hint for a figure written in seconds where ms are meant, or a budget that ends
    before the station is back; None when there is none.

    >>> print(_unit_slip(RetryPolicy(5, Backoff(5, 3, 60_000, jitter="full"))))
    base=5 ms: Backoff takes milliseconds; 5 ms between attempts is no backoff at all.
    """
    figures = {"base": policy.backoff.base, "cap": policy.backoff.cap, "budget": policy.time_budget}
    slip = next((m for m in UNIT_SLIPS if m.matches(policy, figures, operator.eq)), None)
    return None if slip is None else slip.hint(policy, figures)


@checker
def check_capstone(policy: Any) -> Feedback:
    """Simulate ``policy`` in the capstone scenario and judge it.

    >>> from retrylab import Backoff
    >>> check_capstone(RetryPolicy.background()).correct
    False
    """
    if unanswered(policy):
        return prompt(_("a RetryPolicy(max_attempts=..., backoff=Backoff(...), ...)"))
    if not isinstance(policy, RetryPolicy):
        return wrong(
            _("policy={value}: build a RetryPolicy(...), not a {kind}.").format(
                value=f"{policy!r:.60}", kind=type(policy).__name__
            )
        )
    policy = plain_policy(policy)
    unit = _unit_slip(policy)
    if unit is not None:
        return wrong(unit)
    try:
        failed_rules = [f.rule for f in audit(policy, user_facing=False) if not f.passed]
    except Exception as e:  # never raise at the student
        return wrong(
            _("the checklist could not read this policy ({error}).").format(
                error=f"{type(e).__name__}: {e}"
            )
        )
    if failed_rules:
        return wrong(
            _(
                "the policy breaks the checklist first: {rules} (see "
                "audit_table(policy, user_facing=False))."
            ).format(rules=", ".join(failed_rules))
        )
    try:
        report = capstone_report(capstone_fleet(policy).run())
    except Exception as e:  # never raise at the student
        return wrong(
            _("the simulation could not run this policy ({error}).").format(
                error=f"{type(e).__name__}: {e}"
            )
        )
    missed = report[report["verdict"] == "FAIL"]
    if len(missed):
        parts = [
            _("{target}: {measured} (wanted {wanted})").format(
                target=_target(t), measured=shown_number(row.measured), wanted=row.wanted
            )
            for t, row in missed.iterrows()
        ]
        message = _("missed {targets}.").format(targets="; ".join(parts))
        if "served (%)" in missed.index:
            message += " " + _(
                "Phones give up before the station is back: the waits of all "
                "attempts together must outlast a 20 s outage."
            )
        elif "overloaded steps after the outage" in missed.index:
            message += " " + _(
                "The phones come back together: spread them (jitter, a larger base)."
            )
        return wrong(message)
    return right(
        _("every target met: {targets}.").format(
            targets=", ".join(
                f"{_target(t)} {shown_number(row.measured)}" for t, row in report.iterrows()
            )
        )
    )


#: The quiz's five policies: which ones pass the checklist for a button press?
QUIZ = {
    "A": RetryPolicy(max_attempts=3, time_budget=3000, max_retry_after=3000),
    "B": RetryPolicy(max_attempts=10, time_budget=3000, max_retry_after=3000),
    "C": RetryPolicy(max_attempts=3, max_retry_after=3000),
    "D": RetryPolicy(
        max_attempts=3, backoff=Backoff(200, 2, 5000), time_budget=3000, max_retry_after=3000
    ),
    "E": RetryPolicy.user_triggered(),
}


def quiz_table() -> pd.DataFrame:
    """The quiz's policies, one row each, every knob the checklist reads."""
    return pd.DataFrame(
        [
            (k, p.max_attempts, p.backoff.describe(), p.time_budget, p.max_retry_after)
            for k, p in QUIZ.items()
        ],
        columns=["policy", "max_attempts", "backoff", "time_budget", "max_retry_after"],
    ).set_index("policy")


@dataclass(frozen=True)
class _Unread:
    """Why a quiz answer could not be read as letters, and what to quote."""

    why: str
    value: str = ""


def _letters(answer: Any) -> frozenset[str] | _Unread:
    """``answer`` read once as a set of upper-case letters (an endless iterator stops
    after 100 items), or why it cannot be; an answer already read reads as itself."""
    if isinstance(answer, (frozenset, _Unread)):
        return answer
    if isinstance(answer, (bytes, dict)) or not isinstance(answer, Iterable):
        return _Unread("kind", f"{answer!r:.60}")
    got: set[str] = set()
    try:
        for x in islice(answer, 100):  # an endless iterator stops here
            if not isinstance(x, str):
                return _Unread("item", f"{x!r:.40}")
            got.add(x.strip().upper())
    except Exception:  # never raise at the student
        return _Unread("iteration")
    unknown = sorted(got - set(QUIZ))
    return _Unread("unknown", f"{unknown[0]!r:.40}") if unknown else frozenset(got)


def _unread(why: str) -> Callable[[Any, Any], bool]:
    return lambda answer, i: isinstance(r := _letters(answer), _Unread) and r.why == why


def _quoted(answer: Any) -> dict[str, str]:
    r = _letters(answer)
    return {"value": r.value} if isinstance(r, _Unread) else {}


def _passing() -> frozenset[str]:
    return frozenset(k for k, p in QUIZ.items() if all(f.passed for f in audit(p)))


def _extra(got: frozenset[str], i: Any) -> list[str]:
    return sorted(got - i["want"])


def _missed(got: frozenset[str], i: Any) -> list[str]:
    return sorted(i["want"] - got)


QUIZ_TABLE = Exercise(
    asks=N_('a set of letters such as {"A", "B"}'),
    inputs=lambda: {"policies": ", ".join(QUIZ)},
    want=lambda i: _passing(),
    read=lambda answer: r if isinstance(r := _letters(answer), frozenset) else None,
    quoted=_quoted,
    unreadable=N_("passing: could not read it; give a set of letters such as {{'A', 'B'}}."),
    right=N_("A and E pass; B has too many attempts, C no time budget, D no jitter."),
    otherwise=N_("{missing} pass(es) every rule."),
    given=lambda got: {"missing": ", ".join(sorted(_passing() - got))},
    raw=(
        Mistake(
            N_("passing={value}: give a set of letters such as {{'A', 'B'}}."),
            when=_unread("kind"),
            example=lambda i: 5,
        ),
        Mistake(
            N_("{value} is not a letter: give a set of letters such as {{'A', 'B'}}."),
            when=_unread("item"),
            example=lambda i: [1],
        ),
        Mistake(
            N_("{value} is not one of the policies {policies}."),
            when=_unread("unknown"),
            example=lambda i: {"Z"},
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "an empty set: some of the five pass every rule; run "
                "audit_table(QUIZ[letter]) for each."
            ),
            gives=lambda i: frozenset(),
        ),
        Mistake(
            N_(
                "those are the policies that break a rule; the question asks which pass every rule."
            ),
            gives=lambda i: frozenset(QUIZ) - i["want"],
        ),
        Mistake(
            N_(
                "{letter} breaks the checklist for a button press: {rules} (see "
                "audit_table(QUIZ['{letter}']))."
            ),
            when=lambda got, i: bool(_extra(got, i)) and not _missed(got, i),
            extra=lambda got, i: {
                "letter": (letter := _extra(got, i)[0]),
                "rules": ", ".join(f.rule for f in audit(QUIZ[letter]) if not f.passed),
            },
            example=lambda i: (
                frozenset(QUIZ),
                *(i["want"] | {letter} for letter in sorted(frozenset(QUIZ) - i["want"])),
            ),
        ),
        Mistake(
            N_(
                "{extra} fail(s) a rule: run audit_table(QUIZ[letter]); {missing} "
                "pass(es) every rule."
            ),
            when=lambda got, i: bool(_extra(got, i)) and bool(_missed(got, i)),
            extra=lambda got, i: {"extra": ", ".join(_extra(got, i))},
            example=lambda i: tuple(
                frozenset({letter, *sorted(i["want"])[1:]})
                for letter in sorted(frozenset(QUIZ) - i["want"])[:2]
            ),
        ),
        Mistake(
            N_("{missing} pass(es) every rule."),
            when=lambda got, i: bool(_missed(got, i)),
            example=lambda i: tuple(frozenset({letter}) for letter in sorted(i["want"])),
        ),
    ),
)


@checker
def check_quiz(passing: Any) -> Feedback:
    """Which of :data:`QUIZ` pass :func:`~retrylab.lessons.audit.audit` for a GET a user waits on.

    >>> print(check_quiz({"B", "E"}).message)
    B fail(s) a rule: run audit_table(QUIZ[letter]); A pass(es) every rule.
    """
    return judge(QUIZ_TABLE, passing if unanswered(passing) else _letters(passing))
