"""The checker of the retry rule the student writes (which failures are retried)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from ...core.outcome import Outcome, decide, should_retry
from ...i18n import N_, _, current, pgettext
from .. import Feedback, checker, prompt, right, unanswered, wrong
from .harness import LESSON_SCRIPTS, RETRY_SCENARIOS, Session, as_bool, not_callable, run

# == 3. which failures are retried ====================================================


def _show(o: Outcome) -> str:
    if o.kind == "http":
        extra = "" if o.retry_after is None else f", retry_after={o.retry_after:g}"
        return f"Outcome.http({o.status}{extra})"
    return f"Outcome.{o.kind}()"


@dataclass(frozen=True)
class _Where:
    """Where a lesson case comes from: a sentence template, and the scenario's names."""

    template: str
    name_tr: str = ""
    name_en: str = ""

    def sentence(self, call: str, got: bool, want: bool) -> str:
        name = self.name_tr if current() == "tr" else self.name_en
        return _(self.template).format(call=call, got=got, want=want, name=name)


def _rule_cases() -> tuple[
    list[tuple[_Where, Outcome, str, bool]], list[tuple[Outcome, str, bool]]
]:
    """(the lesson's cases, each with the sentence naming where it comes from, unseen cases).

    The sentence is a catalogue template with {call}, {got}, {want} (and the
    scenario's {name}), to be translated and filled at use.
    """
    scenario = N_('{call} returned {got}, but the loop lesson\'s scenario "{name}" says {want}.')
    lesson: list[tuple[_Where, Outcome, str, bool]] = [
        (_Where(scenario, tr, en), script[0], method, False)
        for script, (tr, en, method, _, _) in zip(LESSON_SCRIPTS, RETRY_SCENARIOS, strict=True)
    ]
    lesson += [
        (
            _Where(
                N_(
                    "{call} returned {got}, but the lesson's rule for a network error "
                    "(GUVENLI_YONTEM) says {want}."
                )
            ),
            Outcome.network(),
            m,
            False,
        )
        for m in ("GET", "HEAD", "OPTIONS", "POST")
    ]
    lesson += [
        (
            _Where(
                N_(
                    "{call} returned {got}, but the lesson's rule for a write with an "
                    "idempotency key says {want}."
                )
            ),
            Outcome.network(),
            "POST",
            True,
        ),
        (
            _Where(
                N_("{call} returned {got}, but the lesson's rule for a body error says {want}.")
            ),
            Outcome.body(),
            "GET",
            False,
        ),
        (
            _Where(
                N_("{call} returned {got}, but the lesson's rule for a cancellation says {want}.")
            ),
            Outcome.cancelled(),
            "GET",
            False,
        ),
    ]
    unseen: list[tuple[Outcome, str, bool]] = []
    for key in (False, True):
        for m in METHODS:
            unseen += [
                (Outcome.network(), m, key),
                (Outcome.body(), m, key),
                (Outcome.cancelled(), m, key),
            ]
            unseen += [
                (Outcome.http(429, retry_after=1), m, key),
                (Outcome.http(503, retry_after=2), m, key),
                (Outcome.success(), m, key),
            ]
    # every status from 100 to 599, with every method, with and without a key
    unseen += [
        (Outcome.http(s), m, key) for s in STATUSES for m in METHODS for key in (False, True)
    ]
    return lesson, unseen


#: Every method of RFC 9110 (and PATCH, RFC 5789) a client sends.
METHODS = ("GET", "HEAD", "OPTIONS", "TRACE", "PUT", "DELETE", "POST", "PATCH", "CONNECT")
#: Every status an HTTP answer can carry.
STATUSES = range(100, 600)


def _rule_hint(o: Outcome, method: str, key: bool, want: bool) -> str:
    if o.kind == "network":
        if want:
            if key and method not in ("GET", "HEAD", "OPTIONS"):
                return " " + _(
                    "The idempotency key is ignored: with a key agreed with the "
                    "server, a write can be sent again after a network error; the "
                    "server will not act twice."
                )
            return " " + _(
                "A network error on {method} is retried: a safe method changes "
                "nothing, so sending it again is harmless."
            ).format(method=method)
        if method in ("PUT", "DELETE", "TRACE"):
            return " " + _(
                "The lesson retries a network error only for its safe methods "
                "GET, HEAD and OPTIONS (GUVENLI_YONTEM); {method} is idempotent in "
                "RFC 9110, but the lesson sends it again only with an idempotency "
                "key."
            ).format(method=method)
        return " " + _(
            "A network error on {method} without an idempotency key: the answer "
            "may have been lost on the way back after the server acted; retrying "
            "could record the measurement twice."
        ).format(method=method)
    if o.kind == "http":
        s = o.status or 0
        if s == 429:
            return " " + _(
                "429 means rate limited: the limit resets with time, so 429 is "
                "retried (after its Retry-After)."
            )
        if s >= 500:
            return " " + _(
                "Every 5xx is retried (status >= 500): {status} reports the "
                "server's state right now, which can change."
            ).format(status=s)
        if s < 400:
            return _(
                " {status} is not a failure a retry can fix (1xx, 2xx and 3xx are "
                "answers, not errors): only 429 and the 5xx are retried."
            ).format(status=s)
        return " " + _(
            "{status} is about the request itself: the same request gets the "
            "same answer. Among the 4xx only 429 is retried."
        ).format(status=s)
    if o.kind == "body":
        return " " + _("A body error is the program's own bug: no retry fixes it.")
    if o.kind == "cancelled":
        return " " + _("A cancellation is already a decision to give up: it is never retried.")
    return " " + _("A success needs no retry.")


@checker
def check_should_retry(fn: Any) -> Feedback:
    """Judge ``fn(outcome, method, idempotency_key) -> bool``: the lesson's retry rule.

    The rule (the lesson's ``denenirMi``): 429 and every 5xx are retried; other
    4xx, body errors and cancellations never; a network error only for GET,
    HEAD, OPTIONS, or any method with an idempotency key. Judged against
    :func:`retrylab.should_retry`, first on the lesson's cases.

    >>> def rule(o, method, key):
    ...     if o.kind == "http":
    ...         return o.status == 429 or o.status >= 500
    ...     return o.kind == "network" and (key or method in ("GET", "HEAD", "OPTIONS"))
    >>> check_should_retry(rule)
    Correct: ...
    >>> from retrylab import should_retry
    >>> check_should_retry(should_retry)
    Try again: ... calls retrylab's should_retry: the exercise is to write it yourself...
    >>> check_should_retry(lambda o, method, key: o.kind != "success")
    Try again: ... 422 is about the request itself...
    """
    if unanswered(fn):
        return prompt(
            _("your function {name}").format(name="should_retry(outcome, method, idempotency_key)")
        )
    if not callable(fn):
        return not_callable(
            fn,
            _("a function {signature}").format(
                signature="should_retry(outcome, method, idempotency_key)"
            ),
        )

    lesson, unseen = _rule_cases()
    # the references, before any answer runs
    lesson_wants = [should_retry(o, m, key) for _where, o, m, key in lesson]
    unseen_wants = [should_retry(o, m, key) for o, m, key in unseen]

    def battery(s: Session) -> Feedback:
        for (where, o, m, key), want in zip(lesson, lesson_wants, strict=True):
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = as_bool(s.call(what, fn, o, m, key), what)
            if got != want:
                return wrong(where.sentence(what, got, want) + _rule_hint(o, m, key, want))
        for (o, m, key), want in zip(unseen, unseen_wants, strict=True):
            what = f"should_retry({_show(o)}, {m!r}, {key})"
            got = as_bool(s.call(what, fn, o, m, key), what)
            if got != want:
                return wrong(
                    _(
                        "the lesson's cases match, but {call} returned {got}; the "
                        "lesson's rule says {want}."
                    ).format(call=what, got=got, want=want)
                    + _rule_hint(o, m, key, want)
                )

        return right(
            _(
                "the lesson's {lesson} cases and {unseen} unseen ones (every status "
                "from 100 to 599 with every method, network errors, body errors and "
                "cancellations with and without a key) match."
            ).format(lesson=len(lesson), unseen=len(unseen))
        )

    return run(
        battery,
        _("your function {signature}").format(
            signature="should_retry(outcome, method, idempotency_key)"
        ),
        pgettext("return value", "True or False"),
        forbidden=(should_retry, decide),
        answer=fn,
    )
