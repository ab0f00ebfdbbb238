"""Checkers for notebook 08: the lesson's policy in the libraries teams use.

Exercise 1 writes, by hand, the stock ``urllib3.util.Retry`` closest to
:data:`SHIPPED` (notebook 07's capstone policy with the production rule);
exercise 2 asks on which failures of a keyless POST the lesson's rule and the production
rule disagree (:func:`check_keyless_post`, which the production rule retries, is
kept for other material: the notebook's prose states its answer).
"""

from __future__ import annotations

import math
from typing import Any

from ..core.backoff import Backoff
from ..core.outcome import Outcome, decide
from ..core.policy import RetryPolicy
from ..core.production import production_rule
from ..i18n import _
from . import Feedback, as_number, prompt, right, unanswered, wrong

#: Notebook 07's capstone policy, with the rule production code should use.
SHIPPED = RetryPolicy(max_attempts=5, backoff=Backoff(5000, 3, 60_000, jitter="full"),
                      time_budget=110_000, max_retry_after=600_000, rule=production_rule)

#: Exercise 2's failures of a POST without an idempotency key, by label.
POST_FAILURES: dict[str, Outcome] = {
    "408": Outcome.http(408), "429": Outcome.http(429), "500": Outcome.http(500),
    "501": Outcome.http(501), "503": Outcome.http(503),
    "503 with Retry-After": Outcome.http(503, retry_after=2),
    "refused (never sent)": Outcome.network(sent=False),
    "reset (maybe sent)": Outcome.network(sent=True),
}


def _blank(value: Any) -> bool:
    return value is Ellipsis or (isinstance(value, (set, frozenset)) and Ellipsis in value)


def check_urllib3_retry(retry: Any) -> Feedback:
    """Judge a hand-written ``urllib3.util.Retry`` against :data:`SHIPPED`.

    Wanted: ``total=4`` (5 attempts), ``backoff_factor=7.5`` (urllib3's second
    retry sleeps ``backoff_factor * 2`` s, the policy's second ceiling is
    5 s x 3 = 15 s), ``backoff_max=60``, ``status_forcelist`` 408, 429, 500,
    502, 503, 504 and the six idempotent methods as ``allowed_methods``.

    >>> from urllib3.util import Retry
    >>> check_urllib3_retry(Retry(total=4, backoff_factor=7.5, backoff_max=60,
    ...     status_forcelist=[408, 429, 500, 502, 503, 504],
    ...     allowed_methods=["GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"]))
    Correct: urllib3 now retries what the production rule retries, ...
    >>> check_urllib3_retry(Retry(total=4, backoff_factor=5, backoff_max=60))
    Try again: backoff_factor=5: urllib3's second retry sleeps backoff_factor * 2 = 10 s, ...
    """
    if unanswered(retry):
        return prompt("a urllib3 Retry(total=..., backoff_factor=..., ...)")
    try:
        from urllib3.util import Retry
    except ImportError:
        return wrong('this exercise needs urllib3: pip install "retrylab[bridge]".')
    if not isinstance(retry, Retry):
        return wrong(f"retry={retry!r}: build a urllib3 Retry(total=..., ...).")
    fields = ("total", "backoff_factor", "backoff_max", "status_forcelist", "allowed_methods")
    blank = [f for f in fields if _blank(getattr(retry, f, None))]
    if blank:
        return prompt("a value for " + ", ".join(blank))
    if retry.total != SHIPPED.max_attempts - 1:
        return wrong(f"total={retry.total!r}: total counts retries, not attempts; "
                     f"{SHIPPED.max_attempts} attempts are {SHIPPED.max_attempts - 1} retries.")
    factor = as_number(retry.backoff_factor)
    want = SHIPPED.backoff.ceiling(1) / 2000
    if factor is None or not math.isclose(factor, want):
        shown = "?" if factor is None else f"{factor * 2:g}"
        return wrong(f"backoff_factor={retry.backoff_factor!r}: urllib3's second retry "
                     f"sleeps backoff_factor * 2 = {shown} s, and the policy's second "
                     f"ceiling is 5 s x 3 = 15 s; its first retry sleeps 0 whatever you "
                     "choose.")
    cap = as_number(retry.backoff_max)
    if cap is None or not math.isclose(cap, 60):
        return wrong(f"backoff_max={retry.backoff_max!r}: it is in seconds; the policy's "
                     "cap is 60,000 ms.")
    try:
        statuses = {int(s) for s in retry.status_forcelist}
    except (TypeError, ValueError):
        return wrong(f"status_forcelist={retry.status_forcelist!r}: give a list of statuses.")
    wanted = {s for s in range(400, 600) if production_rule(Outcome.http(s), "GET").retry}
    if statuses != wanted:
        extra, missing = sorted(statuses - wanted), sorted(wanted - statuses)
        hint = []
        if extra:
            hint.append(f"{extra} are not retried by the production rule")
        if missing:
            hint.append(f"{missing} are")
        return wrong(f"status_forcelist: {'; '.join(hint)} (see decision_sources()).")
    allowed: Any = retry.allowed_methods
    try:
        methods = {str(m).upper() for m in allowed}
    except TypeError:
        return wrong("allowed_methods=None retries every method, POST too: list the "
                     "idempotent ones.")
    idempotent = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}
    if methods != idempotent:
        return wrong(f"allowed_methods={sorted(methods)}: RFC 9110 section 9.2.2 names six "
                     "idempotent methods (Retry.DEFAULT_ALLOWED_METHODS has them).")
    return right("urllib3 now retries what the production rule retries, except a keyless "
                 "POST after a 408 or 429 (allowed_methods gates every status), and waits "
                 "0, 15, 30, 60 s where the policy draws full jitter under 5, 15, 45, 60 s; "
                 "it has no time budget.")


def check_keyless_post(answer: Any) -> Feedback:
    """Which of :data:`POST_FAILURES` does the production rule retry for a keyless POST?

    >>> check_keyless_post({"408", "429", "refused (never sent)"})
    Correct: only where the server did not act (408, 429) or never saw the request.
    >>> check_keyless_post({"429", "503 with Retry-After"})
    Try again: 503 with Retry-After is not retried for a keyless POST: 503 on POST ...
    """
    got = _label_set(answer)
    if isinstance(got, Feedback):
        return got
    want = {k for k, o in POST_FAILURES.items() if production_rule(o, "POST").retry}
    if got == want:
        return right("only where the server did not act (408, 429) or never saw the request.")
    extra = sorted(got - want)
    if extra:
        label = extra[0]
        return wrong(f"{label} is not retried for a keyless POST: "
                     f"{production_rule(POST_FAILURES[label], 'POST').reason}.")
    label = sorted(want - got)[0]
    return wrong(f"{label} is retried: {production_rule(POST_FAILURES[label], 'POST').reason}.")


def _label_set(answer: Any) -> set[str] | Feedback:
    if unanswered(answer):
        return prompt('a set of labels such as {"429", "500"}')
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return wrong(f"answer={answer!r}: give a set of labels such as {{'429', '500'}}.")
    got = {str(a) for a in answer}
    unknown = sorted(got - set(POST_FAILURES))
    if unknown:
        return wrong(f"{unknown}: not a label; choose from {sorted(POST_FAILURES)}.")
    return got


def check_rules_disagree(answer: Any) -> Feedback:
    """On which of :data:`POST_FAILURES` do the lesson's rule and the production rule
    disagree for a keyless POST? (The notebook states what the production rule retries;
    the disagreement is worked out from both rules.)

    >>> check_rules_disagree({"408", "500", "501", "503", "503 with Retry-After",
    ...                       "refused (never sent)"}).correct
    True
    >>> check_rules_disagree({"408", "429", "refused (never sent)"}).message.split(":")[0]
    '429 is retried by both rules'
    """
    got = _label_set(answer)
    if isinstance(got, Feedback):
        return got
    lesson = {k for k, o in POST_FAILURES.items() if decide(o, "POST").retry}
    production = {k for k, o in POST_FAILURES.items() if production_rule(o, "POST").retry}
    want = lesson ^ production
    if got == want:
        return right(_("the lesson's rule retries every 5xx on a POST, which may store it "
                       "twice; the production rule retries only where the server did not act "
                       "(408, 429) or never saw the request. They agree on 429 (both retry) "
                       "and on a reset connection (neither)."))
    for label in sorted(got - want):
        both = label in lesson
        return wrong((_("{label} is retried by both rules: {reason}.") if both else
                      _("{label} is retried by neither rule: {reason}."))
                     .format(label=label,
                             reason=production_rule(POST_FAILURES[label], "POST").reason))
    label = sorted(want - got)[0]
    if label in lesson:
        return wrong(_("{label}: the lesson's rule retries it (every 5xx, for every method), "
                       "the production rule does not: {reason}.").format(
                           label=label, reason=production_rule(POST_FAILURES[label],
                                                               "POST").reason))
    return wrong(_("{label}: the production rule retries it ({reason}), the lesson's rule "
                   "does not.").format(label=label, reason=production_rule(
                       POST_FAILURES[label], "POST").reason))


#: What each closed exercise's checker accepts, as the page could print it
#: (tests/test_answers_hidden.py fails if one shows above its exercise).
ANSWERS: dict[str, tuple[str, ...]] = {
    "check_rules_disagree": ("408, 500, 501, 503",),
    "check_urllib3_retry": ("7.5", "backoff_factor=7.5"),
}

__all__ = ["POST_FAILURES", "SHIPPED", "check_keyless_post", "check_rules_disagree",
           "check_urllib3_retry"]
