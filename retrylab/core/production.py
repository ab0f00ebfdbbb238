"""The production rule: which failures the libraries teams use retry, as one :data:`~.outcome.Rule`.

The lesson's rule (:func:`~retrylab.core.outcome.decide`) retries 429 and every
5xx for any method. The libraries teams use do not share one rule:

- **RFC 9110 section 9.2.2**: a client "SHOULD NOT automatically retry a request
  with a non-idempotent method unless it has some means to know that the request
  semantics are actually idempotent [...] or some means to detect that the
  original request was never applied". Idempotent methods are GET, HEAD,
  OPTIONS, TRACE, PUT and DELETE.
- **urllib3** (``urllib3.util.Retry``): ``DEFAULT_ALLOWED_METHODS`` are exactly
  those six; status retries and read errors are gated by the method, while
  connect errors (the request never left) are retried for any method;
  ``RETRY_AFTER_STATUS_CODES`` are 413, 429 and 503.
- **botocore** standard mode: connection errors, the transient statuses 500, 502,
  503 and 504, throttling errors (429-like) and read timeouts are retried for
  every operation, POST-like ones included; it relies on idempotency tokens
  (filled in for the operations that take one) to make that safe; 501 and the
  other client errors are not retried.
- **gRPC A6** (client retries): which status codes are retried is left to each
  service's config (``retryableStatusCodes``); only "transparent" retries, of an
  RPC that never left the client, are made whatever the config; a server can
  refuse a retry (pushback).

Only urllib3's connect errors and gRPC's transparent retries match "retry a
non-idempotent request only when it never left the client". :func:`production_rule`
is this project's choice, RFC 9110's strict reading with urllib3's method gate
(botocore and a gRPC service config may retry more):

====================================  ==========  ============================
outcome                               idempotent  POST / PATCH without a key
====================================  ==========  ============================
408, 429                              retry       retry (the server did not act)
500, 502, 503, 504                    retry       no (it may have acted)
501, 505, other 4xx, other 5xx        no          no
network, ``sent=False``               retry       retry (it never left)
network, ``sent=True`` or ``None``    retry       no
body error, cancellation              no          no
====================================  ==========  ============================

With an idempotency key a POST or PATCH is retried like an idempotent method.
A **409 that carries Retry-After on a request with an idempotency key** is
retried too (after the Retry-After): the IETF Idempotency-Key draft
(draft-ietf-httpapi-idempotency-key-header, "Error Scenarios") answers 409
Conflict when "a request is outstanding for the same key" ("retry later"),
without a Retry-After: the header is this lab's addition (a server that sends
it says when to try again, and this rule waits for it). The first request is
still being processed, so giving up would report a failure for a write that
is about to be stored, and a "try again" with a new key would then store it
twice. A 409 without Retry-After, or without a key,
is an ordinary conflict and is not retried.
A 503 with Retry-After is *not* treated as "the server did not act": RFC 9110
section 15.6.4 only says the server is "currently unable to handle the request",
a gateway may answer 503 after the origin acted, and urllib3 gates even a
Retry-After 503 by ``allowed_methods``.
"""

from __future__ import annotations

from ..i18n import N_, _
from ._check import check_bool
from .outcome import (
    IDEMPOTENT_METHODS,
    KEY_IN_FLIGHT_REASON,
    Decision,
    Outcome,
    check_method,
    check_outcome,
    decide,
)

#: Statuses retried for an idempotent request (urllib3 + botocore + RFC 9110 15.5.9).
PRODUCTION_STATUSES: frozenset[int] = frozenset({408, 429, 500, 502, 503, 504})
#: Statuses whose answer says the server did not act, so any method may be retried.
NOT_ACTED_STATUSES: frozenset[int] = frozenset({408, 429})

#: The reason for retrying a keyed 409 with Retry-After (the lesson's rule gives it too).
KEY_IN_FLIGHT = KEY_IN_FLIGHT_REASON

_NEVER = {
    501: N_(
        "501: RFC 9110 section 15.6.2 says the server does not support the method at "
        "all, so no retry can succeed"
    ),
    505: N_(
        "505: RFC 9110 section 15.6.6 says the server refuses the HTTP version itself, "
        "so no retry can succeed"
    ),
}
_NOT_ACTED = {
    408: N_(
        "408 on {m}: RFC 9110 section 15.5.9 says the server never received the whole "
        "request, so it did not act and the client may repeat it"
    ),
    429: N_(
        "429 on {m}: RFC 6585 section 4 defines it as too many requests sent; by "
        "convention (the RFC does not say so) the server refused before acting, and "
        "botocore's standard mode retries throttling for every operation"
    ),
}


def production_rule(outcome: Outcome, method: str, idempotency_key: bool = False) -> Decision:
    """RFC 9110's strict reading (with urllib3's method gate) as a retry rule.

    Use it as ``RetryPolicy(rule=production_rule)`` for code that talks to real
    services; keep the lesson's :func:`~retrylab.core.outcome.decide` to
    reproduce the lesson. A keyless POST is retried only when the request never
    reached the server (``Outcome.network(sent=False)``) or the server said it
    did not act (408, 429); every reason names its source.

    >>> production_rule(Outcome.http(503), "GET").retry
    True
    >>> print(production_rule(Outcome.http(500), "POST").reason)
    500 on POST without an idempotency key: RFC 9110 section 9.2.2 forbids an
    automatic retry of a non-idempotent request that may have been applied
    >>> production_rule(Outcome.http(500), "POST", idempotency_key=True).retry
    True
    >>> production_rule(Outcome.network(sent=False), "POST").retry
    True
    >>> production_rule(Outcome.http(501), "GET").retry
    False
    >>> production_rule(Outcome.http(409, retry_after=1), "POST", idempotency_key=True).retry
    True
    """
    check_outcome(outcome)
    m = check_method(method)
    idempotency_key = check_bool("idempotency_key", idempotency_key)
    if outcome.kind == "success":
        return decide(outcome, m)  # "success: nothing to retry", the same words
    if outcome.kind == "cancelled":
        return Decision(
            False,
            _(
                "cancelled: the caller gave up, and gRPC A6 stops every "
                "retry attempt of a cancelled call"
            ),
        )
    if outcome.kind == "body":
        return Decision(
            False,
            _(
                "body error: the answer arrived but the program could not "
                "use it, and urllib3 retries only connection, read and "
                "status failures"
            ),
        )
    idempotent = m in IDEMPOTENT_METHODS
    if outcome.kind == "network":
        if outcome.sent is False:
            return Decision(
                True,
                _(
                    "network error before {m} left the client: urllib3 "
                    "retries connect errors for any method and gRPC A6 "
                    "retries such calls transparently"
                ).format(m=m),
            )
        if idempotent:
            return Decision(
                True,
                _(
                    "network error on {m}: RFC 9110 section 9.2.2 makes "
                    "{m} idempotent, so repeating it is safe"
                ).format(m=m),
            )
        if idempotency_key:
            return Decision(
                True,
                _(
                    "network error on {m} with an idempotency key: the "
                    "IETF Idempotency-Key draft lets the server apply it "
                    "once"
                ).format(m=m),
            )
        return Decision(
            False,
            _(
                "network error after {m} may have reached the server: "
                "RFC 9110 section 9.2.2 forbids an automatic retry of a "
                "non-idempotent request that may have been "
                "applied"
            ).format(m=m),
        )
    status = outcome.status or 0
    if status == 409 and idempotency_key and outcome.retry_after is not None:
        return Decision(True, _(KEY_IN_FLIGHT).format(m=m))
    if status in _NEVER:
        return Decision(False, _(_NEVER[status]))
    if status in NOT_ACTED_STATUSES:
        return Decision(True, _(_NOT_ACTED[status]).format(m=m))
    if status not in PRODUCTION_STATUSES:
        if 400 <= status < 500:
            return Decision(
                False,
                _(
                    "{status}: a client error; RFC 9110 section 15.5 says "
                    "the request itself is at fault, and no library "
                    "retries it"
                ).format(status=status),
            )
        if status >= 500:
            return Decision(
                False,
                _(
                    "{status}: not one of botocore's transient statuses "
                    "500, 502, 503, 504, so not retried"
                ).format(status=status),
            )
        return decide(outcome, m)  # "{status}: not an error status; nothing to retry"
    if idempotent:
        return Decision(
            True,
            _(
                "{status} on {m}: botocore and urllib3 retry this transient "
                "status, and RFC 9110 section 9.2.2 makes {m} safe to "
                "repeat"
            ).format(status=status, m=m),
        )
    if idempotency_key:
        return Decision(
            True,
            _(
                "{status} on {m} with an idempotency key: the IETF "
                "Idempotency-Key draft lets the server apply it "
                "once"
            ).format(status=status, m=m),
        )
    return Decision(
        False,
        _(
            "{status} on {m} without an idempotency key: RFC 9110 section "
            "9.2.2 forbids an automatic retry of a non-idempotent request "
            "that may have been applied"
        ).format(status=status, m=m),
    )


__all__ = ["KEY_IN_FLIGHT", "NOT_ACTED_STATUSES", "PRODUCTION_STATUSES", "production_rule"]
