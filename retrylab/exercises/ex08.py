"""Checkers for notebook 08: the lesson's policy in the libraries teams use.

Exercise 1 writes, by hand, the stock ``urllib3.util.Retry`` closest to
:data:`SHIPPED` (notebook 07's capstone policy with the production rule);
exercise 2 asks on which failures of a keyless POST the lesson's rule and the production
rule disagree (:func:`check_keyless_post`, which the production rule retries, is
kept for other material: the notebook's prose states its answer).
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from itertools import islice
from typing import Any

from ..core.backoff import Backoff
from ..core.outcome import IDEMPOTENT_METHODS, Outcome, decide
from ..core.policy import RetryPolicy
from ..core.production import production_rule
from ..i18n import N_, _, number
from . import MAX_ITEMS, Feedback, as_number, checker, prompt, shown, unanswered, wrong
from .table import Exercise, Mistake, judge

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


#: RFC 9110 section 9.2.2's idempotent methods (Retry.DEFAULT_ALLOWED_METHODS), as the
#: lesson's rule knows them.
IDEMPOTENT = IDEMPOTENT_METHODS


@dataclass(frozen=True)
class RetrySettings:
    """A urllib3 ``Retry``'s settings as the exercise reads them: each raw value (to
    quote) and its reading (None when it cannot be read)."""

    total: Any
    factor_given: Any
    factor: float | None
    cap_given: Any
    cap: float | None
    statuses_given: Any
    statuses: frozenset[int] | None
    methods: frozenset[str] | None


def _settings(retry: Any) -> RetrySettings | None:
    """``retry``'s settings, or None if it has none (it is not a urllib3 Retry)."""
    if isinstance(retry, RetrySettings):
        return retry
    try:
        from urllib3.util import Retry
    except ImportError:
        return None
    if not isinstance(retry, Retry):
        return None
    try:
        statuses: frozenset[int] | None = frozenset(int(s) for s in retry.status_forcelist)
    except (TypeError, ValueError):
        statuses = None
    allowed: Any = retry.allowed_methods
    try:
        methods: frozenset[str] | None = frozenset(str(m).upper() for m in allowed)
    except TypeError:
        methods = None
    return RetrySettings(
        retry.total,
        retry.backoff_factor,
        as_number(retry.backoff_factor),
        retry.backoff_max,
        as_number(retry.backoff_max),
        retry.status_forcelist,
        statuses,
        methods,
    )


def _wanted_settings() -> RetrySettings:
    """The stock Retry closest to :data:`SHIPPED`, worked out from it: total counts the
    retries, urllib3's second retry sleeps backoff_factor * 2 s (the policy's second
    ceiling), backoff_max is in seconds, the statuses the production rule retries."""
    factor = SHIPPED.backoff.ceiling(1) / 2000
    cap = (SHIPPED.backoff.cap or 0) / 1000
    statuses = frozenset(
        s for s in range(400, 600) if production_rule(Outcome.http(s), "GET").retry
    )
    return RetrySettings(
        SHIPPED.max_attempts - 1, factor, factor, cap, cap, sorted(statuses), statuses, IDEMPOTENT
    )


def _close(value: float | None, want: float) -> bool:
    return value is not None and math.isclose(value, want)


def _same_settings(got: RetrySettings, want: RetrySettings) -> bool:
    return (
        got.total == want.total
        and _close(got.factor, want.factor or 0)
        and _close(got.cap, want.cap or 0)
        and got.statuses == want.statuses
        and got.methods == want.methods
    )


def _retry(**changes: Any) -> Any:
    """The wanted stock Retry with ``changes``: the tables' example answers."""
    from urllib3.util import Retry

    want = _wanted_settings()
    kw: dict[str, Any] = {
        "total": want.total,
        "backoff_factor": want.factor,
        "backoff_max": want.cap,
        "status_forcelist": sorted(want.statuses or ()),
        "allowed_methods": sorted(want.methods or ()),
        **changes,
    }
    return Retry(**kw)


def _reason(status: int) -> str:
    return production_rule(Outcome.http(status), "GET").reason


def _slept(got: RetrySettings, i: Any) -> dict[str, str]:
    if got.factor is None:
        return {"slept": "?"}
    doubled = got.factor * 2
    return {"slept": number(int(doubled) if doubled.is_integer() else doubled)}


def _status_extra(got: RetrySettings, i: Any) -> list[int]:
    return sorted((got.statuses or frozenset()) - i["want"].statuses)


def _status_missing(got: RetrySettings, i: Any) -> list[int]:
    return sorted(i["want"].statuses - (got.statuses or frozenset()))


URLLIB3_RETRY = Exercise(
    asks=N_("a urllib3 Retry(total=..., backoff_factor=..., ...)"),
    inputs=lambda: {
        "attempts": SHIPPED.max_attempts,
        "retries": SHIPPED.max_attempts - 1,
        "base": SHIPPED.backoff.base / 1000,
    },
    want=lambda i: _wanted_settings(),
    read=_settings,
    equal=lambda got, want: (
        isinstance(got, RetrySettings)
        and isinstance(want, RetrySettings)
        and _same_settings(got, want)
    ),
    named=("retry",),
    given=lambda got: {
        "total": shown(got.total),
        "factor": shown(got.factor_given),
        "cap": shown(got.cap_given),
        "statuses": shown(got.statuses_given),
        "methods": sorted(got.methods or ()),
    },
    unreadable=N_("retry={retry}: build a urllib3 Retry(total=..., ...)."),
    right=N_(
        "urllib3 now retries what the production rule retries, except a keyless "
        "POST after a 408 or 429 (allowed_methods gates every status), and waits "
        "0, 15, 30, 60 s where the policy draws full jitter under 5, 15, 45, 60 s; "
        "it has no time budget."
    ),
    otherwise=N_(
        "allowed_methods={methods}: RFC 9110 section 9.2.2 names six "
        "idempotent methods (Retry.DEFAULT_ALLOWED_METHODS has them)."
    ),
    raw=(
        Mistake(
            N_(
                "retry is a {kind}, not the stock urllib3 Retry: to_urllib3 writes "
                "the retry for you; build Retry(total=..., ...) by hand."
            ),
            when=lambda answer, i: (
                not isinstance(answer, RetrySettings)
                and _settings(answer) is not None
                and not _stock(answer)
            ),
            extra=lambda answer, i: {"kind": type(answer).__name__},
            example=lambda i: _adapter(),
        ),
    ),
    mistakes=(
        Mistake(
            N_(
                "total={total}: the policy makes {attempts} attempts; total counts "
                "the retries after the first one."
            ),
            when=lambda got, i: got.total not in (i["retries"], i["attempts"]),
            example=lambda i: _retry(total=1),
        ),
        Mistake(
            N_(
                "total={total}: total counts retries, not attempts; {attempts} "
                "attempts are {retries} retries."
            ),
            when=lambda got, i: got.total != i["retries"],
            example=lambda i: _retry(total=i["attempts"]),
        ),
        Mistake(
            N_(
                "backoff_factor={factor}: that is the second retry's 15 s itself; "
                "urllib3 multiplies it by 2 ** (n - 1) = 2 before the second "
                "retry."
            ),
            when=lambda got, i: _close(got.factor, i["want"].factor * 2),
            example=lambda i: _retry(backoff_factor=i["want"].factor * 2),
        ),
        Mistake(
            N_(
                "backoff_factor={factor}: that is the policy's base, but urllib3 "
                "never sleeps before its first retry; match the second retry "
                "instead: backoff_factor * 2 = 15 s."
            ),
            when=lambda got, i: _close(got.factor, i["base"]),
            example=lambda i: _retry(backoff_factor=i["base"]),
        ),
        Mistake(
            N_(
                "backoff_factor={factor}: urllib3's second retry sleeps "
                "backoff_factor * 2 = {slept} s, and the policy's second ceiling is "
                "5 s x 3 = 15 s; its first retry sleeps 0 whatever you choose."
            ),
            when=lambda got, i: not _close(got.factor, i["want"].factor),
            extra=_slept,
            example=lambda i: _retry(backoff_factor=i["want"].factor - 1.5),
        ),
        Mistake(
            N_("backoff_max={cap}: it is in seconds; the policy's cap is 60,000 ms."),
            when=lambda got, i: not _close(got.cap, i["want"].cap),
            example=lambda i: _retry(backoff_max=i["want"].cap * 1000),
        ),
        Mistake(
            N_("status_forcelist={statuses}: give a list of statuses."),
            when=lambda got, i: got.statuses is None,
            example=lambda i: _retry(status_forcelist=["x"]),
        ),
        Mistake(
            N_(
                "status_forcelist: {extra} are not retried by the production rule: "
                '{reason} (ask production_rule(Outcome.http(s), "GET") for each '
                "status)."
            ),
            when=lambda got, i: bool(_status_extra(got, i)),
            extra=lambda got, i: {
                "extra": _status_extra(got, i),
                "reason": _reason(_status_extra(got, i)[0]),
            },
            example=lambda i: _retry(status_forcelist=sorted({*i["want"].statuses, 501})),
        ),
        Mistake(
            N_(
                "status_forcelist: {missing} are retried by the production rule: "
                '{reason} (ask production_rule(Outcome.http(s), "GET") for each '
                "status)."
            ),
            when=lambda got, i: bool(_status_missing(got, i)),
            extra=lambda got, i: {
                "missing": _status_missing(got, i),
                "reason": _reason(_status_missing(got, i)[0]),
            },
            example=lambda i: _retry(status_forcelist=sorted(i["want"].statuses)[:-1]),
        ),
        Mistake(
            N_("allowed_methods=None retries every method, POST too: list the idempotent ones."),
            when=lambda got, i: got.methods is None,
            example=lambda i: _retry(allowed_methods=None),
        ),
        Mistake(
            N_(
                "allowed_methods={methods}: POST and PATCH are not idempotent; "
                "retried after a 500 they may store a write twice."
            ),
            when=lambda got, i: bool({"POST", "PATCH"} & (got.methods or frozenset())),
            example=lambda i: _retry(allowed_methods=["GET", "POST"]),
        ),
    ),
)


def _stock(retry: Any) -> bool:
    from urllib3.util import Retry

    return type(retry) is Retry


def _adapter() -> Any:
    from ..lab.bridge import to_urllib3

    return to_urllib3(SHIPPED)


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
    if isinstance(retry, Retry) and _stock(retry):
        fields = ("total", "backoff_factor", "backoff_max", "status_forcelist", "allowed_methods")
        blank = [f for f in fields if _blank(getattr(retry, f, None))]
        if blank:
            return prompt(_("a value for {fields}").format(fields=", ".join(blank)))
    return judge(URLLIB3_RETRY, retry if isinstance(retry, Retry) else _NotRetry(retry))


@dataclass(frozen=True)
class _NotRetry:
    """An answer that is no urllib3 Retry (a RetrySettings typed by hand is not one)."""

    answer: Any

    def __repr__(self) -> str:
        return shown(self.answer)


def _labels(answer: Any) -> frozenset[str] | None:
    """``answer`` read once as a set of labels (text), or None when it is no collection."""
    if isinstance(answer, frozenset):
        return answer
    if isinstance(answer, str) or not hasattr(answer, "__iter__"):
        return None
    try:
        return frozenset(str(a) for a in islice(answer, MAX_ITEMS + 1))
    except Exception:  # an iterator that raises: never raise at the student
        return None


def _unknown(answer: Any, i: Any) -> list[str]:
    got = _labels(answer)
    return [] if got is None else sorted(got - set(POST_FAILURES))


#: The reading of both label exercises: a collection of labels, each one of POST_FAILURES.
LABELS = {
    "blank": unanswered,
    "asks": N_('a set of labels such as {"429", "500"}'),
    "unreadable": N_("answer={answer}: give a set of labels such as {{'429', '500'}}."),
    "named": ("answer",),
    "quote": lambda answer: shown(answer),
    "read": lambda answer: None if (got := _labels(answer)) is None or _unknown(got, {}) else got,
    "raw": (
        Mistake(
            N_("{unknown}: not a label; choose from {labels}."),
            when=lambda answer, i: bool(_unknown(answer, i)),
            extra=lambda answer, i: {"unknown": _unknown(answer, i)},
            example=lambda i: ({"999"}, {"404", "429"}),
        ),
    ),
}


def _reason_post(label: str) -> str:
    return production_rule(POST_FAILURES[label], "POST").reason


def _first(labels: frozenset[str]) -> str:
    return sorted(labels)[0] if labels else ""


def _post_inputs() -> dict[str, Any]:
    lesson = frozenset(k for k, o in POST_FAILURES.items() if decide(o, "POST").retry)
    production = frozenset(k for k, o in POST_FAILURES.items() if production_rule(o, "POST").retry)
    return {
        "lesson": lesson,
        "production": production,
        "all": frozenset(POST_FAILURES),
        "labels": sorted(POST_FAILURES),
    }


def _named(label: str) -> dict[str, str]:
    return {"label": label, "reason": _reason_post(label)} if label else {}


KEYLESS_POST = Exercise(
    **LABELS,  # type: ignore[arg-type]
    inputs=_post_inputs,
    want=lambda i: i["production"],
    given=lambda got: _named(_first(_post_inputs()["production"] - got)),
    right=N_("only where the server did not act (408, 429) or never saw the request."),
    otherwise=N_("{label} is retried: {reason}."),
    mistakes=(
        Mistake(
            N_("{label} is not retried for a keyless POST: {reason}."),
            when=lambda got, i: bool(got - i["want"]),
            extra=lambda got, i: _named(_first(got - i["want"])),
            example=lambda i: (i["all"], *(i["want"] | {k} for k in sorted(i["all"] - i["want"]))),
        ),
        Mistake(
            N_("{label} is retried: {reason}."),
            when=lambda got, i: bool(i["want"] - got),
            example=lambda i: (frozenset(), *(i["want"] - {k} for k in sorted(i["want"]))),
        ),
    ),
)


@checker
def check_keyless_post(answer: Any) -> Feedback:
    """Which of :data:`POST_FAILURES` does the production rule retry for a keyless POST?

    >>> check_keyless_post({"429", "503 with Retry-After"})
    Try again: 503 with Retry-After is not retried for a keyless POST: 503 on POST ...
    """
    return judge(KEYLESS_POST, _read_once(answer))


@dataclass(frozen=True)
class _Unread:
    """An answer that is no collection of labels, quoted as given."""

    answer: Any

    def __repr__(self) -> str:
        return shown(self.answer)


def _read_once(answer: Any) -> Any:
    """The answer read once (an iterator is used up by reading), as the table reads it."""
    if unanswered(answer):
        return answer
    got = _labels(answer)
    return _Unread(answer) if got is None else got


def _first_extra(got: frozenset[str], i: Any) -> str:
    return _first(got - i["want"])


def _first_missing(got: frozenset[str], i: Any) -> str:
    return _first(i["want"] - got)


RULES_DISAGREE = Exercise(
    **LABELS,  # type: ignore[arg-type]
    inputs=_post_inputs,
    want=lambda i: i["lesson"] ^ i["production"],
    given=lambda got: _named(_first_missing(got, {"want": _disagree()})),
    right=N_(
        "the lesson's rule retries every 5xx on a POST, which may store it "
        "twice; the production rule retries only where the server did not act "
        "(408, 429) or never saw the request. They agree on 429 (both retry) "
        "and on a reset connection (neither)."
    ),
    otherwise=N_("{label}: the production rule retries it ({reason}), the lesson's rule does not."),
    mistakes=(
        Mistake(
            N_(
                "that is what one rule retries for a keyless POST; the question asks "
                "where the two rules answer differently (retried by one, not the "
                "other)."
            ),
            gives=lambda i: (i["lesson"], i["production"]),
        ),
        Mistake(
            N_("those are where the two rules agree; the question asks where they disagree."),
            gives=lambda i: i["all"] - i["want"],
        ),
        Mistake(
            N_("{label} is retried by both rules: {reason}."),
            when=lambda got, i: _first_extra(got, i) in i["lesson"],
            extra=lambda got, i: _named(_first_extra(got, i)),
            example=lambda i: (i["want"] | (i["lesson"] & i["production"]), i["all"]),
        ),
        Mistake(
            N_("{label} is retried by neither rule: {reason}."),
            when=lambda got, i: bool(_first_extra(got, i)),
            extra=lambda got, i: _named(_first_extra(got, i)),
            example=lambda i: {_first(i["all"] - i["lesson"] - i["production"])},
        ),
        Mistake(
            N_(
                "{label}: the lesson's rule retries it (every 5xx, for every method), "
                "the production rule does not: {reason}."
            ),
            when=lambda got, i: _first_missing(got, i) in i["lesson"],
            example=lambda i: tuple(i["want"] - {k} for k in sorted(i["want"] - i["production"])),
        ),
        Mistake(
            N_("{label}: the production rule retries it ({reason}), the lesson's rule does not."),
            when=lambda got, i: bool(_first_missing(got, i)),
            example=lambda i: tuple(i["want"] - {k} for k in sorted(i["want"] & i["production"])),
        ),
    ),
)


def _disagree() -> frozenset[str]:
    i = _post_inputs()
    return frozenset(i["lesson"] ^ i["production"])


@checker
def check_rules_disagree(answer: Any) -> Feedback:
    """On which of :data:`POST_FAILURES` do the lesson's rule and the production rule
    disagree for a keyless POST? (The notebook states what the production rule retries;
    the disagreement is worked out from both rules.)

    >>> check_rules_disagree({"408", "429", "500"}).message.split(":")[0]
    '429 is retried by both rules'
    """
    return judge(RULES_DISAGREE, _read_once(answer))


__all__ = [
    "POST_FAILURES",
    "SHIPPED",
    "check_keyless_post",
    "check_rules_disagree",
    "check_urllib3_retry",
]
