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

#: Failures a retry can never fix: the first rule of the web lesson.
_NEVER_RETRIED = {"422": Outcome.http(422), "404": Outcome.http(404),
                  "a body error": Outcome.body(), "a cancellation": Outcome.cancelled()}

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


def audit(policy: RetryPolicy, *, method: str = "GET", idempotency_key: bool = False,
          user_facing: bool = True, many_clients: bool = True) -> list[Finding]:
    """Check ``policy`` against the lessons' rules; one :class:`Finding` each.

    >>> bad = RetryPolicy(max_attempts=50)
    >>> [f.rule for f in audit(bad) if not f.passed]
    ['attempt limit', 'total time budget', 'Retry-After limit']
    """
    m = check_method(method)
    b = policy.backoff
    findings: list[Finding] = []
    lo, hi = MOBILE_ATTEMPTS
    retried = [name for name, o in _NEVER_RETRIED.items()
               if policy.decide(o, m, idempotency_key).retry]
    findings.append(Finding(
        "classifies failures", not retried,
        "429, 5xx and (for safe methods) network errors only" if not retried
        else f"retries {', '.join(retried)}: repeating them gives the same answer, and the "
             "user learns of the error later"))
    findings.append(Finding(
        "attempt limit", policy.max_attempts <= hi,
        f"max_attempts={policy.max_attempts}; the mobile lesson suggests {lo}-{hi}: "
        "endless retries drain the battery and load the server"))
    findings.append(Finding(
        "exponential growth", b.growth == "exponential" and b.factor > 1,
        f"{b.growth} growth with factor {b.factor:g}: waits should grow so that a long "
        "outage makes clients back off"))
    findings.append(Finding(
        "a cap on the wait", b.cap is not None,
        "exponential growth alone is unbounded" if b.cap is None else f"cap {b.cap} ms"))
    jittered = b.jitter in ("full", "decorrelated", "equal", "proportional")
    findings.append(Finding(
        "jitter", jittered or not many_clients,
        f"jitter={b.jitter!r}: clients that failed together must not return together"))
    budget = policy.time_budget
    ok_budget = budget is not None and (not user_facing or budget <= USER_PATIENCE_MS)
    findings.append(Finding(
        "total time budget", ok_budget,
        "no time budget: attempts x waits can add up to minutes" if budget is None
        else f"time_budget={budget} ms" + (f"; a user waiting more than {USER_PATIENCE_MS} "
                                           "ms is worse off than seeing an error"
                                           if user_facing and budget > USER_PATIENCE_MS
                                           else "")))
    findings.append(Finding(
        "Retry-After limit", policy.max_retry_after is not None,
        "no max_retry_after: a server asking for an hour would be waited out"
        if policy.max_retry_after is None
        else f"max_retry_after={policy.max_retry_after} ms: longer suggestions are "
             "reported to the user instead"))
    safe = m in LESSON_SAFE_METHODS or idempotency_key
    findings.append(Finding(
        "safe to repeat", safe,
        f"{m} is safe to repeat" if m in LESSON_SAFE_METHODS
        else f"{m} with an idempotency key agreed with the server" if idempotency_key
        else f"{m} without an idempotency key: network errors will not be retried; agree "
             "a key with the server to make the write retryable"))
    return findings


def audit_table(policy: RetryPolicy, **kwargs: bool | str) -> pd.DataFrame:
    """:func:`audit` as a table with a pass/FAIL column, for a notebook."""
    rows = audit(policy, **kwargs)  # type: ignore[arg-type]
    return pd.DataFrame({"rule": [f.rule for f in rows],
                         "verdict": ["pass" if f.passed else "FAIL" for f in rows],
                         "why": [f.why for f in rows]}).set_index("rule")
