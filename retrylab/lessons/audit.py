"""Audit a retry policy against the lessons' checklist.

Each lesson ends with rules; :func:`audit` reads a :class:`RetryPolicy` (and
what it will be used for) and says, rule by rule, whether it follows them and
why not. Use it as the last step when you design a policy: it does not prove
the policy is good (the simulator in notebook 06 measures that), but it
catches the mistakes both lessons warn about.
"""

from __future__ import annotations

from dataclasses import dataclass

import pandas as pd

from ..core.outcome import LESSON_SAFE_METHODS, Outcome, check_method
from ..core.policy import RetryPolicy
from ..i18n import N_, _, pgettext

__all__ = [
    "MOBILE_ATTEMPTS",
    "RULES",
    "USER_PATIENCE_MS",
    "Finding",
    "audit",
    "audit_table",
    "audit_verdicts",
]

#: Failures a retry can never fix: the first rule of the web lesson.
_NEVER_RETRIED = {
    "422": Outcome.http(422),
    "404": Outcome.http(404),
    N_("a body error"): Outcome.body(),
    N_("a cancellation"): Outcome.cancelled(),
}

#: The checklist's rules, in order (English names, translated when a finding is made).
RULES: tuple[str, ...] = (
    N_("classifies failures"),
    N_("attempt limit"),
    N_("exponential growth"),
    N_("a cap on the wait"),
    N_("jitter"),
    N_("total time budget"),
    N_("Retry-After limit"),
    N_("safe to repeat"),
)

#: The mobile lesson's rule of thumb for attempts in a mobile app.
MOBILE_ATTEMPTS = (3, 5)
#: The web lesson: a user pressing a button should not wait this long (ms).
USER_PATIENCE_MS = 8000


@dataclass(frozen=True)
class Finding:
    """One rule of the checklist and whether the policy passes it."""

    rule: str
    passed: bool
    why: str


def audit(
    policy: RetryPolicy,
    *,
    method: str = "GET",
    idempotency_key: bool = False,
    user_facing: bool = True,
    many_clients: bool = True,
) -> list[Finding]:
    """Check ``policy`` against the lessons' rules; one :class:`Finding` each.

    The rules and the reasons are in the current language (a Turkish edition
    reads Turkish); :data:`RULES` lists the rules' English names in order.

    >>> bad = RetryPolicy(max_attempts=50)
    >>> [f.rule for f in audit(bad) if not f.passed]
    ['attempt limit', 'total time budget', 'Retry-After limit']
    """
    m = check_method(method)
    b = policy.backoff
    findings: list[Finding] = []
    lo, hi = MOBILE_ATTEMPTS

    def finding(rule: str, passed: bool, why: str) -> None:
        findings.append(Finding(_(rule), passed, why))

    retried = [
        name for name, o in _NEVER_RETRIED.items() if policy.decide(o, m, idempotency_key).retry
    ]
    finding(
        RULES[0],
        not retried,
        _("429, 5xx and (for safe methods) network errors only")
        if not retried
        else _(
            "retries {failures}: repeating them gives the same answer, and the user "
            "learns of the error later"
        ).format(failures=", ".join(_(name) for name in retried)),
    )
    finding(
        RULES[1],
        policy.max_attempts <= hi,
        _(
            "max_attempts={n}; the mobile lesson suggests {lo}-{hi}: endless retries drain "
            "the battery and load the server"
        ).format(n=policy.max_attempts, lo=lo, hi=hi),
    )
    finding(
        RULES[2],
        b.growth == "exponential" and b.factor > 1,
        _(
            "{growth} growth with factor {factor}: waits should grow so that a long outage "
            "makes clients back off"
        ).format(growth=pgettext("growth", b.growth), factor=f"{b.factor:g}"),
    )
    finding(
        RULES[3],
        b.cap is not None,
        _("exponential growth alone is unbounded")
        if b.cap is None
        else _("cap {cap} ms").format(cap=b.cap),
    )
    jittered = b.jitter in ("full", "decorrelated", "equal", "proportional")
    finding(
        RULES[4],
        jittered or not many_clients,
        _("jitter={jitter}: clients that failed together must not return together").format(
            jitter=repr(b.jitter)
        ),
    )
    budget = policy.time_budget
    ok_budget = budget is not None and (not user_facing or budget <= USER_PATIENCE_MS)
    if budget is None:
        why = _("no time budget: attempts x waits can add up to minutes")
    elif user_facing and budget > USER_PATIENCE_MS:
        why = _(
            "time_budget={budget} ms; a user waiting more than {patience} ms is worse "
            "off than seeing an error"
        ).format(budget=budget, patience=USER_PATIENCE_MS)
    else:
        why = _("time_budget={budget} ms").format(budget=budget)
    finding(RULES[5], ok_budget, why)
    finding(
        RULES[6],
        policy.max_retry_after is not None,
        _("no max_retry_after: a server asking for an hour would be waited out")
        if policy.max_retry_after is None
        else _(
            "max_retry_after={ms} ms: longer suggestions are reported to the user instead"
        ).format(ms=policy.max_retry_after),
    )
    safe = m in LESSON_SAFE_METHODS or idempotency_key
    finding(
        RULES[7],
        safe,
        _("{m} is safe to repeat").format(m=m)
        if m in LESSON_SAFE_METHODS
        else _("{m} with an idempotency key agreed with the server").format(m=m)
        if idempotency_key
        else _unkeyed_write(policy, m),
    )
    return findings


#: Server errors a server may answer after it acted (it stored the write, then failed).
_AFTER_ACTING = (500, 502, 503, 504)


def _unkeyed_write(policy: RetryPolicy, method: str) -> str:
    """Why a write without a key fails the checklist: the duplicates this policy makes
    by retrying server errors (the lesson's rule retries every 5xx), or, if it retries
    none, that the write cannot be retried at all.

    >>> print(_unkeyed_write(RetryPolicy(), "POST"))  # doctest: +NORMALIZE_WHITESPACE
    POST without an idempotency key: this policy retries it after 500, 502, 503, 504,
    and a server that failed after storing the write then stores it twice; agree a key
    with the server (or use production_rule, notebook 08)
    """
    retried = [str(s) for s in _AFTER_ACTING if policy.decide(Outcome.http(s), method, False).retry]
    if retried:
        return _(
            "{m} without an idempotency key: this policy retries it after {statuses}, "
            "and a server that failed after storing the write then stores it twice; "
            "agree a key with the server (or use production_rule, notebook 08)"
        ).format(m=method, statuses=", ".join(retried))
    return _(
        "{m} without an idempotency key: a write the server may have stored cannot be "
        "retried safely; agree a key with the server to make it retryable"
    ).format(m=method)


def audit_table(policy: RetryPolicy, **kwargs: bool | str) -> pd.DataFrame:
    """:func:`audit` as a table with a pass/FAIL column, for a notebook.

    Headers and verdicts are in the current language (in English: ``rule``,
    ``verdict``, ``why``; ``pass`` or ``FAIL``); :func:`audit_verdicts` counts them.
    """
    rows = audit(policy, **kwargs)  # type: ignore[arg-type]
    rule = pgettext("column", "rule")
    return pd.DataFrame(
        {
            rule: [f.rule for f in rows],
            pgettext("column", "verdict"): [
                pgettext("verdict", "pass") if f.passed else pgettext("verdict", "FAIL")
                for f in rows
            ],
            pgettext("column", "why"): [f.why for f in rows],
        }
    ).set_index(rule)


def audit_verdicts(policy: RetryPolicy, **kwargs: bool | str) -> pd.Series:
    """How many rules ``policy`` fails and passes (:func:`audit_table`'s verdicts, counted).

    >>> audit_verdicts(RetryPolicy(max_attempts=50)).to_dict()
    {'pass': 5, 'FAIL': 3}
    """
    verdicts = audit_table(policy, **kwargs)[pgettext("column", "verdict")].value_counts()
    return verdicts.rename(pgettext("column", "count"))
