"""What one attempt produced, and whether it is worth another attempt.

The decision looks at two things, the class of the failure and the method:

- an HTTP error means the server decided: 4xx is about the request itself and
  repeating it gives the same answer, except 429 (rate limit) and 5xx (the
  server's state right now), which can change with time;
- a network error leaves it unknown whether the server got the request (the
  answer may have been lost on the way back), so only safe methods, which change
  nothing, are retried, unless the client and server agreed an idempotency key;
- a body error is the program's own bug and a cancellation is already a decision
  to give up: neither is ever retried.

:func:`decide` is that rule. A *rule* is any function ``(outcome, method,
idempotency_key) -> Decision``; :class:`~retrylab.core.policy.RetryPolicy` takes one
as ``rule=``. Two others are ready: :func:`retry_everything_rule` (the lesson's
"most common mistake", for demonstrations) and :func:`retry_statuses` (a team's
own explicit list of statuses, as the mobile lesson advises).
:func:`decision_table` tabulates a rule over methods, outcomes and keys.
"""

from __future__ import annotations

import math
import re
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass
from typing import Any, Literal

import pandas as pd

from ..i18n import N_, _
from ._check import ArgumentTypeError, check_bool, check_int, check_number, type_error
from .httpdate import parse_http_date

Kind = Literal["success", "http", "network", "body", "cancelled"]
KINDS: tuple[str, ...] = ("success", "http", "network", "body", "cancelled")

#: RFC 9110 section 9.2.1: methods that change nothing on the server.
SAFE_METHODS: frozenset[str] = frozenset({"GET", "HEAD", "OPTIONS", "TRACE"})
#: RFC 9110 section 9.2.2: repeating them has the effect of doing them once.
IDEMPOTENT_METHODS: frozenset[str] = SAFE_METHODS | {"PUT", "DELETE"}
#: The lesson's own set (`GUVENLI_YONTEM`): what it retries after a network error.
LESSON_SAFE_METHODS: frozenset[str] = frozenset({"GET", "HEAD", "OPTIONS"})

#: Why a keyed 409 with Retry-After is retried (the same words in production_rule).
KEY_IN_FLIGHT_REASON = N_(
    "409 with Retry-After on {m} with an idempotency key: the IETF "
    "Idempotency-Key draft's answer while the first request with that "
    "key is still being processed; retry after the wait and get its "
    "answer"
)

_METHOD = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]{1,20}")  # RFC 9110 9.1: a token
MAX_RETRY_AFTER_S = 86_400 * 365  # a year: a longer Retry-After is clamped to it
_DELAY_SECONDS = re.compile("[0-9]+")  # RFC 9110: 1*DIGIT, ASCII only


@dataclass(frozen=True)
class Outcome:
    """The result of one attempt: ``kind`` plus what that kind carries.

    >>> Outcome.http(503)
    Outcome(kind='http', status=503)
    >>> Outcome.http(429, retry_after=2).retry_after_ms
    2000
    """

    kind: Kind
    status: int | None = None
    retry_after: float | None = None
    data: Any = None
    detail: str = ""
    #: Network errors only: did the request leave the client? ``False``: it never did
    #: (connection refused, DNS failure, connect timeout), safe to retry any method;
    #: ``True``: it was written, the server may have acted (reset, read timeout);
    #: ``None``: unknown, the lesson's case. The lesson's rule ignores it.
    sent: bool | None = None

    def __post_init__(self) -> None:
        if self.kind not in KINDS:
            raise ValueError(
                f"kind={self.kind!r} is out of range: kind must be one of "
                + ", ".join(repr(k) for k in KINDS)
            )
        if self.kind == "http":
            check_int("status", self.status, low=100, high=599)
        elif self.status is not None:
            raise ValueError(
                f"status={self.status!r} is out of range: only an 'http' outcome carries a status"
            )
        if self.retry_after is not None:
            check_number("retry_after", self.retry_after, low=0, high=MAX_RETRY_AFTER_S)
        if self.sent is not None and (self.kind != "network" or not isinstance(self.sent, bool)):
            raise ValueError(
                f"sent={self.sent!r} is out of range: only a 'network' outcome "
                "carries sent, and it must be True, False or None"
            )

    @classmethod
    def success(cls, data: Any = None) -> Outcome:
        """The request worked; ``data`` is the decoded body."""
        return cls("success", data=data)

    @classmethod
    def http(
        cls, status: int, retry_after: float | None = None, data: Any = None, detail: str = ""
    ) -> Outcome:
        """The server answered with an error status; Retry-After in seconds."""
        return cls("http", status=status, retry_after=retry_after, data=data, detail=detail)

    @classmethod
    def network(cls, detail: str = "", *, sent: bool | None = None) -> Outcome:
        """No answer: refused, reset, timed out.

        ``sent`` says whether the request left the client: ``False`` (refused, DNS,
        connect timeout: the server cannot have acted), ``True`` (written, then reset
        or timed out: it may have acted), ``None`` (unknown, as in the lesson).

        >>> Outcome.network(sent=False)
        Outcome(kind='network', sent=False)
        """
        return cls("network", detail=detail, sent=sent)

    @classmethod
    def body(cls, detail: str = "") -> Outcome:
        """An answer came but its body could not be used (the program's bug)."""
        return cls("body", detail=detail)

    @classmethod
    def cancelled(cls, detail: str = "") -> Outcome:
        """The caller gave up (the user left, the app went to the background)."""
        return cls("cancelled", detail=detail)

    @property
    def ok(self) -> bool:
        """True for a success."""
        return self.kind == "success"

    @property
    def retry_after_ms(self) -> int:
        """The server's suggested wait in ms, 0 when it suggested none."""
        return 0 if self.retry_after is None else math.ceil(self.retry_after * 1000 - 1e-9)

    def label(self) -> str:
        """Short text as the lesson prints it: ``success``, ``http/503``...

        >>> Outcome.http(422).label(), Outcome.network().label()
        ('http/422', 'network')
        """
        return f"http/{self.status}" if self.kind == "http" else self.kind

    def __repr__(self) -> str:
        parts = [f"kind={self.kind!r}"]
        if self.status is not None:
            parts.append(f"status={self.status}")
        if self.retry_after is not None:
            parts.append(f"retry_after={self.retry_after:g}")
        if self.data is not None:
            parts.append(f"data={self.data!r}")
        if self.detail:
            parts.append(f"detail={self.detail!r}")
        if self.sent is not None:
            parts.append(f"sent={self.sent}")
        return f"Outcome({', '.join(parts)})"


@dataclass(frozen=True)
class Decision:
    """Whether to retry, and the reason in one sentence.

    ``retry`` must be a bool: ``"False"`` is a non-empty string, so a rule
    returning ``Decision("False", ...)`` would otherwise mean "retry".

    >>> Decision("False", "never retry a 404")
    Traceback (most recent call last):
    ...
    retrylab.ArgumentTypeError: retry='False' is out of range: retry must be True or
    False, not a str
    """

    retry: bool
    reason: str

    def __post_init__(self) -> None:
        object.__setattr__(self, "retry", check_bool("retry", self.retry))

    def __bool__(self) -> bool:
        return self.retry


#: A retry rule: ``(outcome, method, idempotency_key) -> Decision``, such as :func:`decide`.
Rule = Callable[[Outcome, str, bool], Decision]


def check_method(method: str) -> str:
    """Upper-case an HTTP method name, rejecting what is not one.

    >>> check_method("get"), check_method("M-SEARCH")
    ('GET', 'M-SEARCH')
    """
    if not isinstance(method, str):
        raise type_error("method", method, "an HTTP method name such as 'GET' or 'POST'")
    if not _METHOD.fullmatch(method):
        raise ValueError(
            f"method={method!r} is out of range: method must be an HTTP "
            "method name such as 'GET' or 'POST' (an RFC 9110 token of 1 to "
            "20 letters, digits or !#$%&'*+-.^_`|~)"
        )
    return method.upper()


def check_outcome(outcome: object) -> Outcome:
    """Refuse what is not an :class:`Outcome` (a status code alone, say) by name.

    >>> check_outcome("503")
    Traceback (most recent call last):
    ...
    TypeError: outcome='503' is not an Outcome: pass one such as Outcome.http(503),
    Outcome.network() or Outcome.success()
    """
    if not isinstance(outcome, Outcome):
        raise TypeError(
            f"outcome={outcome!r} is not an Outcome: pass one such as "
            "Outcome.http(503), Outcome.network() or Outcome.success()"
        )
    return outcome


def check_methods(name: str, methods: object) -> frozenset[str]:
    """A set of HTTP method names, upper-cased; a bare string is refused.

    ``"GET"`` would otherwise be read as the methods G, E and T (and ``in``
    on a string matches substrings); ``{"get"}`` would never match ``"GET"``.

    >>> sorted(check_methods("safe_methods", ["get", "HEAD"]))
    ['GET', 'HEAD']
    >>> check_methods("safe_methods", "GET")
    Traceback (most recent call last):
    ...
    retrylab.ArgumentTypeError: safe_methods='GET' is out of range: safe_methods must be
    a set of method names such as {'GET', 'HEAD'}, not one string
    """
    if isinstance(methods, (str, bytes)) or not isinstance(methods, Iterable):
        raise ArgumentTypeError(
            f"{name}={methods!r} is out of range: {name} must be a set "
            "of method names such as {'GET', 'HEAD'}, not one string"
        )
    return frozenset(check_method(m) for m in methods)


def decide(
    outcome: Outcome,
    method: str,
    idempotency_key: bool = False,
    *,
    safe_methods: frozenset[str] = LESSON_SAFE_METHODS,
) -> Decision:
    """The retry decision with its reason (the lesson's ``denenirMi``).

    ``safe_methods`` are retried after a network error; the lesson uses GET,
    HEAD and OPTIONS. Pass :data:`IDEMPOTENT_METHODS` to also retry PUT and
    DELETE, as RFC 9110 allows and the mobile lesson suggests.

    >>> print(decide(Outcome.network(), "POST").reason)
    network error on POST without an idempotency key: the server may have acted;
    retrying could do it twice

    Beyond the lesson: a 409 with Retry-After on a keyed request is the IETF
    Idempotency-Key draft's "the first request with this key is still being
    processed, retry later" (the lab answers it so), and it is retried:

    >>> decide(Outcome.http(409, retry_after=1), "POST", True).retry
    True
    >>> decide(Outcome.http(409), "POST", True).retry
    False
    """
    check_outcome(outcome)
    m = check_method(method)
    idempotency_key = check_bool("idempotency_key", idempotency_key)
    if (
        safe_methods is not LESSON_SAFE_METHODS
        and safe_methods is not IDEMPOTENT_METHODS
        and safe_methods is not SAFE_METHODS
    ):
        safe_methods = check_methods("safe_methods", safe_methods)
    if outcome.kind == "success":
        return Decision(False, _("success: nothing to retry"))
    if outcome.kind == "http":
        status = outcome.status or 0
        if status == 429:
            return Decision(True, _("429: rate limited now; the limit resets with time"))
        if status == 501:
            return Decision(
                True,
                _(
                    "501: the lesson's rule retries every 5xx, but 501 Not "
                    "Implemented will not change: production_rule does not "
                    "retry it"
                ),
            )
        if status >= 500:
            return Decision(
                True,
                _("{status}: the server's state right now; it can recover").format(status=status),
            )
        if status == 409 and idempotency_key and outcome.retry_after is not None:
            return Decision(True, _(KEY_IN_FLIGHT_REASON).format(m=m))
        if status == 408:
            return Decision(
                False,
                _(
                    "408: not retried, as the lesson's rule treats every 4xx "
                    "but 429; yet 408 Request Timeout is the server saying "
                    "it timed out waiting for the request, and RFC 9110 "
                    "says a client MAY repeat it"
                ),
            )
        if 400 <= status < 500:
            return Decision(
                False,
                _(
                    "{status}: a problem with the request itself; "
                    "repeating it gives the same answer"
                ).format(status=status),
            )
        return Decision(
            False, _("{status}: not an error status; nothing to retry").format(status=status)
        )
    if outcome.kind == "network":
        if m in safe_methods:
            return Decision(
                True,
                _("network error on {m}, a safe method: repeating it changes nothing").format(m=m),
            )
        if idempotency_key:
            return Decision(
                True,
                _(
                    "network error on {m} with an idempotency key: the server will not act twice"
                ).format(m=m),
            )
        return Decision(
            False,
            _(
                "network error on {m} without an idempotency key: the "
                "server may have acted; retrying could do it twice"
            ).format(m=m),
        )
    if outcome.kind == "body":
        return Decision(False, _("body error: the program's own bug; a retry cannot fix it"))
    return Decision(False, _("cancelled: the caller already decided to give up"))


def should_retry(
    outcome: Outcome,
    method: str,
    idempotency_key: bool = False,
    *,
    safe_methods: frozenset[str] = LESSON_SAFE_METHODS,
) -> bool:
    """True if the lesson's rule retries ``outcome`` for ``method``.

    >>> should_retry(Outcome.http(503), "GET"), should_retry(Outcome.http(404), "GET")
    (True, False)
    >>> should_retry(Outcome.network(), "POST"), should_retry(Outcome.network(), "POST", True)
    (False, True)
    """
    return decide(outcome, method, idempotency_key, safe_methods=safe_methods).retry


def retry_everything_rule(outcome: Outcome, method: str, idempotency_key: bool = False) -> Decision:
    """The common mistake as a rule: retry every failure but a cancellation.

    Use it with ``RetryPolicy(rule=retry_everything_rule)`` to measure what a
    catch-all ``catch (e) { retry() }`` costs: a 422 is retried like a 503, a
    keyless POST after a network error too. Only success and cancellation stop.

    >>> retry_everything_rule(Outcome.http(422), "POST").retry
    True
    >>> print(retry_everything_rule(Outcome.http(422), "POST").reason)
    http/422: retried anyway, as if every failure were temporary (the lesson's
    "most common mistake")
    >>> retry_everything_rule(Outcome.cancelled(), "GET").retry
    False
    """
    if check_outcome(outcome).kind in ("success", "cancelled"):
        return decide(outcome, method, idempotency_key)
    check_method(method)
    check_bool("idempotency_key", idempotency_key)
    return Decision(
        True,
        _(
            "{label}: retried anyway, as if every failure were temporary "
            '(the lesson\'s "most common mistake")'
        ).format(label=outcome.label()),
    )


@dataclass(frozen=True)
class StatusRule:
    """A retry rule with an explicit list of HTTP statuses; build it with :func:`retry_statuses`.

    An HTTP error is retried if and only if its status is in ``statuses``;
    every other outcome is decided as :func:`decide` does, with
    ``network_methods`` as the methods retried after a network error.
    """

    statuses: frozenset[int]
    network_methods: frozenset[str] = LESSON_SAFE_METHODS

    def __call__(self, outcome: Outcome, method: str, idempotency_key: bool = False) -> Decision:
        if check_outcome(outcome).kind != "http":
            return decide(outcome, method, idempotency_key, safe_methods=self.network_methods)
        check_method(method)
        check_bool("idempotency_key", idempotency_key)
        listed = ", ".join(str(s) for s in sorted(self.statuses)) or "none"
        if outcome.status in self.statuses:
            return Decision(True, f"{outcome.status}: on the list of statuses to retry ({listed})")
        return Decision(False, f"{outcome.status}: not on the list of statuses to retry ({listed})")

    def __repr__(self) -> str:
        extra = (
            ""
            if self.network_methods == LESSON_SAFE_METHODS
            else f", network_methods={sorted(self.network_methods)}"
        )
        return f"retry_statuses({sorted(self.statuses)}{extra})"


def retry_statuses(
    statuses: Iterable[int], *, network_methods: Iterable[str] = LESSON_SAFE_METHODS
) -> StatusRule:
    """A rule that retries exactly the HTTP statuses listed (and network errors as usual).

    Use it for a team's own list: the mobile lesson advises to "always
    configure the list of codes to retry explicitly" (it names 503 and 502).
    Statuses must be 100-599; ``network_methods`` are retried after a network
    error (default: the lesson's GET, HEAD, OPTIONS).

    >>> rule = retry_statuses([502, 503])
    >>> rule
    retry_statuses([502, 503])
    >>> rule(Outcome.http(503), "GET").retry, rule(Outcome.http(500), "GET").retry
    (True, False)
    >>> rule(Outcome.http(429), "GET").reason
    '429: not on the list of statuses to retry (502, 503)'
    >>> rule(Outcome.network(), "GET").retry
    True
    >>> retry_statuses([503, 600])
    Traceback (most recent call last):
    ...
    ValueError: status=600 is out of range: status must be an integer from 100 to 599
    """
    if isinstance(statuses, (str, bytes)) or not isinstance(statuses, Iterable):
        raise ArgumentTypeError(
            f"statuses={statuses!r} is out of range: statuses must be "
            "a list of HTTP statuses from 100 to 599, such as [429, 503]"
        )
    return StatusRule(
        frozenset(check_int("status", s, low=100, high=599) for s in statuses),
        check_methods("network_methods", network_methods),
    )


def decision_table(
    methods: Iterable[str],
    outcomes: Mapping[str, Outcome] | Iterable[Outcome],
    rule: Rule | None = None,
) -> pd.DataFrame:
    """The rule's verdict for every method x outcome x idempotency key (without, with).

    Use it to see a whole rule at once (default: :func:`decide`); ``outcomes``
    is a mapping name -> Outcome, or Outcomes named by their label. One row
    each, methods outermost, columns method, outcome, key, retry, reason;
    :func:`verdict_table` folds it to one word per method and outcome.

    >>> t = decision_table(["GET", "POST"], [Outcome.http(503), Outcome.network()])
    >>> t[["method", "outcome", "key", "retry"]].values.tolist()
    ... # doctest: +NORMALIZE_WHITESPACE
    [['GET', 'http/503', False, True], ['GET', 'http/503', True, True],
     ['GET', 'network', False, True], ['GET', 'network', True, True],
     ['POST', 'http/503', False, True], ['POST', 'http/503', True, True],
     ['POST', 'network', False, False], ['POST', 'network', True, True]]
    """
    named = dict(outcomes) if isinstance(outcomes, Mapping) else {o.label(): o for o in outcomes}
    for name, o in named.items():
        if not isinstance(o, Outcome):
            raise ArgumentTypeError(
                f"outcomes[{name!r}]={o!r} is out of range: each "
                "outcome must be an Outcome, such as Outcome.http(503)"
            )
    decision: Rule = decide if rule is None else rule
    if isinstance(methods, (str, bytes)) or not isinstance(methods, Iterable):
        raise ArgumentTypeError(
            f"methods={methods!r} is out of range: methods must be a "
            "list of method names such as ['GET', 'POST'], not one "
            "string"
        )
    rows = [
        (m, name, key, d.retry, d.reason)
        for m in [check_method(m) for m in methods]
        for name, o in named.items()
        for key in (False, True)
        for d in (decision(o, m, key),)
    ]
    return pd.DataFrame(rows, columns=["method", "outcome", "key", "retry", "reason"])


def verdict_table(decisions: pd.DataFrame) -> pd.DataFrame:
    """Fold a :func:`decision_table` to one word per outcome (rows) and method (columns).

    ``retry``: retried with or without a key; ``with key``: only with an
    idempotency key; ``no``: never.

    >>> verdict_table(decision_table(["GET", "POST"], [Outcome.http(503), Outcome.network()]))
    method      GET      POST
    outcome
    http/503  retry     retry
    network   retry  with key
    """
    verdict = decisions.groupby(["outcome", "method"], sort=False)["retry"].agg(
        lambda r: "retry" if r.all() else "with key" if r.any() else "no"
    )
    return verdict.unstack()


_DAY_NAMES = frozenset(
    {
        "mon",
        "tue",
        "wed",
        "thu",
        "fri",
        "sat",
        "sun",
        "monday",
        "tuesday",
        "wednesday",
        "thursday",
        "friday",
        "saturday",
        "sunday",
    }
)


def _one_value(text: str) -> bool:
    """True if the comma in ``text`` is the one inside an HTTP-date ("Wed, 14 Jan ...")."""
    head, _, rest = text.partition(",")
    return head.strip().lower() in _DAY_NAMES and "," not in rest


def _split_values(text: str, value: str) -> list[str]:
    """A joined Retry-After list split into its values (a date keeps its own comma)."""
    parts = [p.strip(" \t") for p in text.split(",")]
    values: list[str] = []
    i = 0
    while i < len(parts):
        if parts[i].lower() in _DAY_NAMES and i + 1 < len(parts):
            values.append(f"{parts[i]}, {parts[i + 1]}")
            i += 2
        else:
            values.append(parts[i])
            i += 1
    if len(values) > 16 or any(not v for v in values):
        raise ValueError(
            f"retry_after={value[:80]!r} is out of range: Retry-After must be "
            "whole seconds or an HTTP-date (or the same header a few times)"
        )
    return values


def parse_retry_after(value: str, now: float | None = None) -> float:
    """Seconds to wait from a Retry-After header: delay-seconds or an HTTP-date.

    RFC 9110 section 10.2.3: ``Retry-After = HTTP-date / delay-seconds``, and
    delay-seconds is ``1*DIGIT``: ASCII digits only (``'٣'`` and ``'²'`` pass
    ``str.isdigit`` and are refused here). Every HTTP-date form of section 5.6.7
    is accepted (IMF-fixdate, RFC 850, asctime; :mod:`retrylab.core.httpdate`).

    ``now`` (POSIX seconds) is needed for an HTTP-date; a date in the past
    means 0. Anything longer than a year, as seconds or as a date, is clamped
    to one year (:data:`MAX_RETRY_AFTER_S`), so ``31536001`` behaves as
    ``31536000`` does and a policy's ``max_retry_after`` sees the clamped wait.
    A malformed or negative value raises ValueError with the value.

    >>> parse_retry_after("2")
    2.0
    >>> parse_retry_after("Wed, 14 Jan 2026 10:00:05 GMT", now=1768384800.0)
    5.0
    >>> parse_retry_after("Wed Jan 14 10:00:05 2026", now=1768384800.0)   # asctime
    5.0
    >>> parse_retry_after("31536001")                                    # clamped
    31536000.0

    The header sent twice arrives joined (``3600, 3600``, as a proxy may add
    it): identical values are one value, differing values take the larger.

    >>> parse_retry_after("3600, 3600"), parse_retry_after("2, 5")
    (3600.0, 5.0)
    >>> parse_retry_after("-1")
    Traceback (most recent call last):
    ...
    ValueError: retry_after='-1' is out of range: Retry-After must be whole seconds
    (ASCII digits, clamped to 31536000) or an HTTP-date
    """
    allowed = (
        f"is out of range: Retry-After must be whole seconds (ASCII digits, "
        f"clamped to {MAX_RETRY_AFTER_S}) or an HTTP-date"
    )
    if not isinstance(value, str):
        raise ArgumentTypeError(f"retry_after={value!r} {allowed}")
    text = value.strip(" \t")  # OWS: spaces and tabs only
    if now is not None:
        check_number("now", now)
    if "," in text and not _one_value(text):
        # the same header twice, joined by a proxy or a client library: "3600, 3600"
        return max(parse_retry_after(part, now) for part in _split_values(text, value))
    if _DELAY_SECONDS.fullmatch(text):
        digits = text.lstrip("0")
        if len(digits) > len(str(MAX_RETRY_AFTER_S)):  # no int() of 5,000 digits
            return float(MAX_RETRY_AFTER_S)
        return float(min(MAX_RETRY_AFTER_S, int(digits or "0")))
    when = parse_http_date(text, now)
    if when is None:
        raise ValueError(f"retry_after={value!r} {allowed}")
    if now is None:
        raise ValueError(
            f"now=None is out of range: Retry-After {value!r} is an "
            "HTTP-date, so the current time (POSIX seconds) is needed"
        )
    return float(min(MAX_RETRY_AFTER_S, max(0.0, when - now)))
