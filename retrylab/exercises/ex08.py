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
from ..i18n import _, number
from . import Feedback, as_number, checker, prompt, right, shown, unanswered, wrong

#: Notebook 07's capstone policy, with the rule production code should use.
SHIPPED = RetryPolicy(
    max_attempts=5,
    backoff=Backoff(5000, 3, 60_000, jitter="full"),
    time_budget=110_000,
    max_retry_after=600_000,
    rule=production_rule,
)

#: Exercise 2's failures of a POST without an idempotency key, by label.
POST_FAILURES: dict[str, Outcome] = {
    "408": Outcome.http(408),
    "429": Outcome.http(429),
    "500": Outcome.http(500),
    "501": Outcome.http(501),
    "503": Outcome.http(503),
    "503 with Retry-After": Outcome.http(503, retry_after=2),
    "refused (never sent)": Outcome.network(sent=False),
    "reset (maybe sent)": Outcome.network(sent=True),
}


def _blank(value: Any) -> bool:
    return value is Ellipsis or (isinstance(value, (set, frozenset)) and Ellipsis in value)


@checker
def check_urllib3_retry(retry: Any) -> Feedback:
    """Judge a hand-written ``urllib3.util.Retry`` against :data:`SHIPPED`.

    Wanted: ``total=4`` (5 attempts), ``backoff_factor=7.5`` (urllib3's second
    retry sleeps ``backoff_factor * 2`` s, the policy's second ceiling is
    5 s x 3 = 15 s), ``backoff_max=60``, ``status_forcelist`` 408, 429, 500,
    502, 503, 504 and the six idempotent methods as ``allowed_methods``.

    >>> from urllib3.util import Retry
    >>> check_urllib3_retry(Retry(total=4, backoff_factor=6, backoff_max=60))
    Try again: backoff_factor=6: urllib3's second retry sleeps backoff_factor * 2 = 12 s, ...
    """
    if unanswered(retry):
        return prompt(_("a urllib3 Retry(total=..., backoff_factor=..., ...)"))
    try:
        from urllib3.util import Retry
    except ImportError:
        return wrong(_('this exercise needs urllib3: pip install "retrylab[bridge]".'))
    if not isinstance(retry, Retry):
        return wrong(
            _("retry={retry}: build a urllib3 Retry(total=..., ...).").format(retry=shown(retry))
        )
    if type(retry) is not Retry:
        return wrong(
            _(
                "retry is a {kind}, not the stock urllib3 Retry: to_urllib3 writes "
                "the retry for you; build Retry(total=..., ...) by hand."
            ).format(kind=type(retry).__name__)
        )
    fields = ("total", "backoff_factor", "backoff_max", "status_forcelist", "allowed_methods")
    blank = [f for f in fields if _blank(getattr(retry, f, None))]
    if blank:
        return prompt(_("a value for {fields}").format(fields=", ".join(blank)))
    if retry.total != SHIPPED.max_attempts - 1 and retry.total != SHIPPED.max_attempts:
        return wrong(
            _(
                "total={total}: the policy makes {attempts} attempts; total counts "
                "the retries after the first one."
            ).format(total=shown(retry.total), attempts=SHIPPED.max_attempts)
        )
    if retry.total != SHIPPED.max_attempts - 1:
        return wrong(
            _(
                "total={total}: total counts retries, not attempts; {attempts} "
                "attempts are {retries} retries."
            ).format(
                total=shown(retry.total),
                attempts=SHIPPED.max_attempts,
                retries=SHIPPED.max_attempts - 1,
            )
        )
    factor = as_number(retry.backoff_factor)
    want = SHIPPED.backoff.ceiling(1) / 2000
    if factor is None or not math.isclose(factor, want):
        if factor is not None and math.isclose(factor, want * 2):
            return wrong(
                _(
                    "backoff_factor={factor}: that is the second retry's 15 s itself; "
                    "urllib3 multiplies it by 2 ** (n - 1) = 2 before the second "
                    "retry."
                ).format(factor=shown(retry.backoff_factor))
            )
        if factor is not None and math.isclose(factor, SHIPPED.backoff.base / 1000):
            return wrong(
                _(
                    "backoff_factor={factor}: that is the policy's base, but urllib3 "
                    "never sleeps before its first retry; match the second retry "
                    "instead: backoff_factor * 2 = 15 s."
                ).format(factor=shown(retry.backoff_factor))
            )
        doubled = 0.0 if factor is None else factor * 2
        slept = "?" if factor is None else number(int(doubled) if doubled.is_integer() else doubled)
        return wrong(
            _(
                "backoff_factor={factor}: urllib3's second retry sleeps "
                "backoff_factor * 2 = {slept} s, and the policy's second ceiling is "
                "5 s x 3 = 15 s; its first retry sleeps 0 whatever you choose."
            ).format(factor=shown(retry.backoff_factor), slept=slept)
        )
    cap = as_number(retry.backoff_max)
    if cap is None or not math.isclose(cap, 60):
        return wrong(
            _("backoff_max={cap}: it is in seconds; the policy's cap is 60,000 ms.").format(
                cap=shown(retry.backoff_max)
            )
        )
    try:
        statuses = {int(s) for s in retry.status_forcelist}
    except (TypeError, ValueError):
        return wrong(
            _("status_forcelist={statuses}: give a list of statuses.").format(
                statuses=shown(retry.status_forcelist)
            )
        )
    wanted = {s for s in range(400, 600) if production_rule(Outcome.http(s), "GET").retry}
    if statuses != wanted:
        extra, missing = sorted(statuses - wanted), sorted(wanted - statuses)
        if extra:
            return wrong(
                _(
                    "status_forcelist: {extra} are not retried by the production rule: "
                    '{reason} (ask production_rule(Outcome.http(s), "GET") for each '
                    "status)."
                ).format(extra=extra, reason=production_rule(Outcome.http(extra[0]), "GET").reason)
            )
        return wrong(
            _(
                "status_forcelist: {missing} are retried by the production rule: "
                '{reason} (ask production_rule(Outcome.http(s), "GET") for each '
                "status)."
            ).format(
                missing=missing, reason=production_rule(Outcome.http(missing[0]), "GET").reason
            )
        )
    allowed: Any = retry.allowed_methods
    try:
        methods = {str(m).upper() for m in allowed}
    except TypeError:
        return wrong(
            _("allowed_methods=None retries every method, POST too: list the idempotent ones.")
        )
    idempotent = {"GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE"}
    if methods != idempotent:
        if "POST" in methods or "PATCH" in methods:
            return wrong(
                _(
                    "allowed_methods={methods}: POST and PATCH are not idempotent; "
                    "retried after a 500 they may store a write twice."
                ).format(methods=sorted(methods))
            )
        return wrong(
            _(
                "allowed_methods={methods}: RFC 9110 section 9.2.2 names six "
                "idempotent methods (Retry.DEFAULT_ALLOWED_METHODS has them)."
            ).format(methods=sorted(methods))
        )
    return right(
        _(
            "urllib3 now retries what the production rule retries, except a keyless "
            "POST after a 408 or 429 (allowed_methods gates every status), and waits "
            "0, 15, 30, 60 s where the policy draws full jitter under 5, 15, 45, 60 s; "
            "it has no time budget."
        )
    )


@checker
def check_keyless_post(answer: Any) -> Feedback:
    """Which of :data:`POST_FAILURES` does the production rule retry for a keyless POST?

    >>> check_keyless_post({"429", "503 with Retry-After"})
    Try again: 503 with Retry-After is not retried for a keyless POST: 503 on POST ...
    """
    got = _label_set(answer)
    if isinstance(got, Feedback):
        return got
    want = {k for k, o in POST_FAILURES.items() if production_rule(o, "POST").retry}
    if got == want:
        return right(_("only where the server did not act (408, 429) or never saw the request."))
    extra = sorted(got - want)
    if extra:
        label = extra[0]
        return wrong(
            _("{label} is not retried for a keyless POST: {reason}.").format(
                label=label, reason=production_rule(POST_FAILURES[label], "POST").reason
            )
        )
    label = sorted(want - got)[0]
    return wrong(
        _("{label} is retried: {reason}.").format(
            label=label, reason=production_rule(POST_FAILURES[label], "POST").reason
        )
    )


def _label_set(answer: Any) -> set[str] | Feedback:
    if unanswered(answer):
        return prompt(_('a set of labels such as {"429", "500"}'))
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return wrong(
            _("answer={answer}: give a set of labels such as {{'429', '500'}}.").format(
                answer=shown(answer)
            )
        )
    try:
        got = {str(a) for a in answer}
    except Exception:  # an iterator that raises: never raise at the student
        return wrong(
            _("answer={answer}: give a set of labels such as {{'429', '500'}}.").format(
                answer=shown(answer)
            )
        )
    unknown = sorted(got - set(POST_FAILURES))
    if unknown:
        return wrong(
            _("{unknown}: not a label; choose from {labels}.").format(
                unknown=unknown, labels=sorted(POST_FAILURES)
            )
        )
    return got


@checker
def check_rules_disagree(answer: Any) -> Feedback:
    """On which of :data:`POST_FAILURES` do the lesson's rule and the production rule
    disagree for a keyless POST? (The notebook states what the production rule retries;
    the disagreement is worked out from both rules.)

    >>> check_rules_disagree({"408", "429", "500"}).message.split(":")[0]
    '429 is retried by both rules'
    """
    got = _label_set(answer)
    if isinstance(got, Feedback):
        return got
    lesson = {k for k, o in POST_FAILURES.items() if decide(o, "POST").retry}
    production = {k for k, o in POST_FAILURES.items() if production_rule(o, "POST").retry}
    want = lesson ^ production
    if got == want:
        return right(
            _(
                "the lesson's rule retries every 5xx on a POST, which may store it "
                "twice; the production rule retries only where the server did not act "
                "(408, 429) or never saw the request. They agree on 429 (both retry) "
                "and on a reset connection (neither)."
            )
        )
    if got in (lesson, production):
        return wrong(
            _(
                "that is what one rule retries for a keyless POST; the question asks "
                "where the two rules answer differently (retried by one, not the "
                "other)."
            )
        )
    if got == set(POST_FAILURES) - want:
        return wrong(
            _("those are where the two rules agree; the question asks where they disagree.")
        )
    for label in sorted(got - want):
        both = label in lesson
        return wrong(
            (
                _("{label} is retried by both rules: {reason}.")
                if both
                else _("{label} is retried by neither rule: {reason}.")
            ).format(label=label, reason=production_rule(POST_FAILURES[label], "POST").reason)
        )
    label = sorted(want - got)[0]
    if label in lesson:
        return wrong(
            _(
                "{label}: the lesson's rule retries it (every 5xx, for every method), "
                "the production rule does not: {reason}."
            ).format(label=label, reason=production_rule(POST_FAILURES[label], "POST").reason)
        )
    return wrong(
        _("{label}: the production rule retries it ({reason}), the lesson's rule does not.").format(
            label=label, reason=production_rule(POST_FAILURES[label], "POST").reason
        )
    )


__all__ = [
    "POST_FAILURES",
    "SHIPPED",
    "check_keyless_post",
    "check_rules_disagree",
    "check_urllib3_retry",
]
