"""RetryPolicy: the retry loop, its three limits and the server's Retry-After.

The loop (the lesson's ``yenidenDene``) sends, classifies the outcome, and
either stops or waits and sends again. It stops on:

- success, or a failure the policy's ``rule`` refuses (by default the
  lesson's :func:`~retrylab.core.outcome.decide`);
- the attempt limit (``max_attempts``), which prevents an endless loop;
- the total time budget (``time_budget``): if the next wait would end past it,
  the loop stops now and says so, rather than make the user wait for nothing;
- a Retry-After longer than ``max_retry_after``: telling the user beats waiting;
- a retry budget shared by many requests (:mod:`retrylab.core.budget`) running dry.

The wait before retry ``n`` is ``max(backoff wait, Retry-After)``: the server
knows its own recovery time, so its suggestion is a lower bound. The backoff
draw is taken even when Retry-After wins, as in the lesson.

The loop itself is a generator that asks for "send" and "sleep" and never does
either, so :meth:`RetryPolicy.run` (plain functions) and
:meth:`RetryPolicy.run_async` (asyncio) share every decision.
"""

from __future__ import annotations

import asyncio
import enum
import logging
from collections.abc import Awaitable, Callable, Generator
from dataclasses import dataclass, field, replace
from typing import Any, Protocol

from ..i18n import _
from ._check import ArgumentTypeError, check_bool, check_int
from ._compat import StrEnum
from .backoff import Backoff, Random
from .outcome import (
    LESSON_SAFE_METHODS,
    Decision,
    Outcome,
    Rule,
    check_method,
    check_methods,
    decide,
)

log = logging.getLogger("retrylab")


class StopReason(StrEnum):
    """Why the loop stopped."""

    SUCCESS = "success"
    NOT_RETRYABLE = "not_retryable"
    MAX_ATTEMPTS = "max_attempts"
    TIME_BUDGET = "time_budget"
    RETRY_AFTER_TOO_LONG = "retry_after_too_long"
    RETRY_BUDGET = "retry_budget"


class RetryBudgetLike(Protocol):
    """A budget shared by many requests: may this request retry now?"""

    def can_retry(self) -> bool: ...

    def on_request(self, first_try: bool) -> None: ...

    def on_outcome(self, success: bool) -> None:
        """Called for a success, and for a failure only if the rule would retry it."""


class MetricsLike(Protocol):
    """Receives every finished run (see :class:`retrylab.core.metrics.RetryMetrics`)."""

    def record(self, result: RetryResult, method: str = "GET") -> None: ...


@dataclass(frozen=True)
class Attempt:
    """One attempt of a run: when it started (ms since the run began), what came back."""

    number: int
    started: int
    outcome: Outcome
    wait_after: int | None = None


@dataclass(frozen=True)
class RetryResult:
    """What :meth:`RetryPolicy.run` returns.

    ``waits`` is a tuple (a result does not change); to print it as the
    lessons do, ``list(r.waits)`` gives ``[70, 184]``.
    """

    outcome: Outcome
    attempts: int
    waits: tuple[int, ...]
    reason: StopReason
    message: str
    elapsed: int
    history: tuple[Attempt, ...] = ()

    def __post_init__(self) -> None:
        object.__setattr__(self, "waits", tuple(self.waits))

    @property
    def ok(self) -> bool:
        """True if the last attempt succeeded."""
        return self.outcome.ok

    def line(self, name: str) -> str:
        """One line in the lesson's format (English labels).

        >>> r = RetryResult(Outcome.http(422), 1, (), StopReason.NOT_RETRYABLE, "", 0)
        >>> r.line("422 (not retried)")
        '422 (not retried)        attempts=1 outcome=http/422  waits=[]'
        """
        return (
            f"{name:<24} "
            + f"attempts={self.attempts}".ljust(10)
            + " "
            + f"outcome={self.outcome.label()}".ljust(17)
            + " "
            + f"waits=[{', '.join(str(w) for w in self.waits)}]"
        ).rstrip()


Clock = Callable[[], float]
Send = Callable[[], Outcome]
Sleep = Callable[[int], Any]


class _Unset(enum.Enum):
    """The default of ``RetryPolicy.run``'s ``sleep``: not given, refused."""

    SLEEP = "sleep"


#: What :meth:`RetryPolicy.run` says when it is not told how to wait.
SLEEP_REQUIRED = (
    "RetryPolicy.run needs sleep=, the function that waits between attempts (it is "
    "called with ms): sleep=lambda ms: time.sleep(ms / 1000) to wait for real (with "
    "clock=lambda: time.monotonic() * 1000 if the time budget must count the requests "
    "too), or a recorder such as sleep=waits.append for a lesson, a simulation or a "
    "test; sleep=None skips waiting, said explicitly. Without it the retries would "
    "follow each other at once: the storm backoff exists to prevent"
)


@dataclass(frozen=True)
class RetryPolicy:
    """How one request is retried: an immutable value, safe to share.

    - ``max_attempts``: attempts in all, first included, >= 1 (1 = never retry).
    - ``backoff``: the waits; see :class:`~retrylab.core.backoff.Backoff`.
    - ``time_budget``: ms for the whole run, waits included; ``None`` = no budget.
    - ``max_retry_after``: ms; a longer Retry-After ends the run at once;
      ``None`` = always obey the server.
    - ``safe_methods``: methods the default rule retries after a network error,
      a set of names (any case; stored upper-case); a bare string is refused.
    - ``rule``: which failures are retried, a function ``(outcome, method,
      idempotency_key) -> Decision`` asked after every failed attempt (a
      success always stops the loop first); ``None`` = the lesson's
      :func:`~retrylab.core.outcome.decide` with ``safe_methods``. Swap it to show
      the mistake of retrying everything
      (:func:`~retrylab.core.outcome.retry_everything_rule`), or for a team's own
      list of statuses (:func:`~retrylab.core.outcome.retry_statuses`: the mobile
      lesson's "always configure the list of codes to retry explicitly").

    The lesson's first scenario (503, 503, then success):

    ``sleep`` is required: here ``slept.append`` records each wait instead of
    sleeping, so the example is instant (production code passes a real
    sleep, ``lambda ms: time.sleep(ms / 1000)``):

    >>> from retrylab.core.rng import Mulberry32
    >>> answers = iter([Outcome.http(503), Outcome.http(503), Outcome.success([1])])
    >>> slept = []
    >>> r = RetryPolicy().run(lambda: next(answers), "GET", Mulberry32(20260114), slept.append)
    >>> r.attempts, r.waits, slept, r.reason
    (3, (70, 184), [70, 184], <StopReason.SUCCESS: 'success'>)

    A 422 under the lesson's rule, then under "retry everything":

    >>> from retrylab.core.outcome import retry_everything_rule, retry_statuses
    >>> invalid = lambda: Outcome.http(422)
    >>> RetryPolicy().run(invalid, "POST", Mulberry32(20260114), slept.append).attempts
    1
    >>> r = RetryPolicy(rule=retry_everything_rule).run(invalid, "POST", Mulberry32(20260114),
    ...                                                 slept.append)
    >>> r.attempts, r.waits, r.outcome.status
    (4, (70, 184, 592), 422)

    A team's own list, which leaves 500 out:

    >>> only = RetryPolicy(rule=retry_statuses([502, 503]))
    >>> only.run(lambda: Outcome.http(500), "GET", Mulberry32(20260114), slept.append).message
    '500: not on the list of statuses to retry (502, 503)'
    """

    max_attempts: int = 4
    backoff: Backoff = field(default_factory=lambda: Backoff(200, 2, 5000, jitter="full"))
    time_budget: int | None = None
    max_retry_after: int | None = None
    safe_methods: frozenset[str] = LESSON_SAFE_METHODS
    rule: Rule | None = None

    def __post_init__(self) -> None:
        check_int("max_attempts", self.max_attempts, low=1, high=1000)
        if not isinstance(self.backoff, Backoff):
            raise ArgumentTypeError(
                f"backoff={self.backoff!r} is out of range: backoff "
                "must be a Backoff(base, factor, cap, jitter=...)"
            )
        if self.time_budget is not None:
            check_int("time_budget", self.time_budget, low=0, high=86_400_000)
        if self.max_retry_after is not None:
            check_int("max_retry_after", self.max_retry_after, low=0, high=86_400_000)
        methods = check_methods("safe_methods", self.safe_methods)
        if not (isinstance(self.safe_methods, frozenset) and methods == self.safe_methods):
            object.__setattr__(self, "safe_methods", methods)
        if self.rule is not None and not callable(self.rule):
            raise ArgumentTypeError(
                f"rule={self.rule!r} is out of range: rule must be None "
                "or a function (outcome, method, idempotency_key) -> "
                "Decision, such as retry_everything_rule"
            )

    # -- presets ------------------------------------------------------------------

    @classmethod
    def user_triggered(cls, **changes: Any) -> RetryPolicy:
        """A person pressed a button and is waiting: few attempts, short budget.

        Three attempts within 3 s, waits of at most 1 s, and a Retry-After
        over 3 s is reported to the user instead of waited out.
        """
        base = cls(
            max_attempts=3,
            backoff=Backoff(200, 2, 1000, jitter="full"),
            time_budget=3000,
            max_retry_after=3000,
        )
        return replace(base, **changes)

    @classmethod
    def background(cls, **changes: Any) -> RetryPolicy:
        """A background refresh nobody watches: more attempts, longer waits.

        Five attempts (the mobile lesson: 3-5) within 5 minutes, waits of at
        most 60 s (full jitter),
        and any Retry-After up to 10 minutes is obeyed.
        """
        base = cls(
            max_attempts=5,
            backoff=Backoff(1000, 2, 60_000, jitter="full"),
            time_budget=300_000,
            max_retry_after=600_000,
        )
        return replace(base, **changes)

    def with_(self, **changes: Any) -> RetryPolicy:
        """A copy with some fields changed (the policy itself never changes)."""
        return replace(self, **changes)

    # -- the loop -----------------------------------------------------------------

    def decide(self, outcome: Outcome, method: str, idempotency_key: bool = False) -> Decision:
        """This policy's verdict on one failed attempt: its ``rule``, or the lesson's.

        >>> RetryPolicy().decide(Outcome.network(), "PUT").retry
        False
        >>> from retrylab.core.outcome import IDEMPOTENT_METHODS
        >>> RetryPolicy(safe_methods=IDEMPOTENT_METHODS).decide(Outcome.network(), "PUT").retry
        True
        """
        if self.rule is None:
            return decide(outcome, method, idempotency_key, safe_methods=self.safe_methods)
        decision = self.rule(outcome, method, idempotency_key)
        if not isinstance(decision, Decision):
            raise TypeError(f"rule returned {decision!r}; it must return a Decision(retry, reason)")
        return decision

    def steps(
        self,
        method: str = "GET",
        rng: Random | None = None,
        *,
        idempotency_key: bool = False,
        clock: Clock | None = None,
        retry_budget: RetryBudgetLike | None = None,
    ) -> Generator[int | None, Outcome, RetryResult]:
        """The loop as a generator: yields ``None`` for "send now" (answer it
        with ``.send(outcome)``) and an int for "sleep this many ms"; returns
        the :class:`RetryResult`. Drive it with :meth:`run` or :meth:`run_async`.
        """
        m = check_method(method)
        idempotency_key = check_bool("idempotency_key", idempotency_key)
        waits_iter = self.backoff.waits(rng)
        start = clock() if clock is not None else 0.0
        slept = 0
        waits: list[int] = []
        history: list[Attempt] = []

        def elapsed() -> int:
            return round(clock() - start) if clock is not None else slept

        def finish(outcome: Outcome, reason: StopReason, message: str) -> RetryResult:
            result = RetryResult(
                outcome, len(history), tuple(waits), reason, message, elapsed(), tuple(history)
            )
            log.info(_("%s stopped after %d attempt(s): %s"), m, result.attempts, message)
            return result

        attempt = 0
        while True:
            attempt += 1
            if retry_budget is not None:
                retry_budget.on_request(first_try=attempt == 1)
            started = elapsed()
            outcome = yield None
            history.append(Attempt(attempt, started, outcome))
            if outcome.ok:
                if retry_budget is not None:
                    retry_budget.on_outcome(True)
                return finish(
                    outcome,
                    StopReason.SUCCESS,
                    _("success on attempt {attempt}").format(attempt=attempt),
                )
            decision = self.decide(outcome, m, idempotency_key)
            if retry_budget is not None and decision.retry:
                # gRPC A6: only a failure that would be retried drains the budget
                retry_budget.on_outcome(False)
            if not decision.retry:
                return finish(outcome, StopReason.NOT_RETRYABLE, decision.reason)
            if attempt >= self.max_attempts:
                return finish(
                    outcome,
                    StopReason.MAX_ATTEMPTS,
                    _("gave up: attempt limit {limit} reached").format(limit=self.max_attempts),
                )
            suggested = outcome.retry_after_ms
            if self.max_retry_after is not None and suggested > self.max_retry_after:
                return finish(
                    outcome,
                    StopReason.RETRY_AFTER_TOO_LONG,
                    _(
                        "gave up: the server asked for {suggested} ms, more than "
                        "max_retry_after={limit} ms; tell the user"
                    ).format(suggested=suggested, limit=self.max_retry_after),
                )
            wait = max(next(waits_iter), suggested)
            if self.time_budget is not None and elapsed() + wait > self.time_budget:
                return finish(
                    outcome,
                    StopReason.TIME_BUDGET,
                    _(
                        "gave up: waiting {wait} ms more would pass the time "
                        "budget of {budget} ms ({used} ms used)"
                    ).format(wait=wait, budget=self.time_budget, used=elapsed()),
                )
            if retry_budget is not None and not retry_budget.can_retry():
                return finish(
                    outcome, StopReason.RETRY_BUDGET, _("gave up: the shared retry budget is spent")
                )
            log.debug(
                _("%s attempt %d: %s; retrying in %d ms (%s)"),
                m,
                attempt,
                outcome.label(),
                wait,
                decision.reason,
            )
            history[-1] = replace(history[-1], wait_after=wait)
            waits.append(wait)
            yield wait
            slept += wait

    def run(
        self,
        send: Send,
        method: str = "GET",
        rng: Random | None = None,
        sleep: Sleep | _Unset | None = _Unset.SLEEP,
        *,
        idempotency_key: bool = False,
        clock: Clock | None = None,
        retry_budget: RetryBudgetLike | None = None,
        metrics: MetricsLike | None = None,
    ) -> RetryResult:
        """Run the loop: ``send()`` returns an Outcome; ``sleep(ms)`` waits.

        ``sleep`` is required, so that nobody copies a loop that never waits:
        ``sleep=lambda ms: time.sleep(ms / 1000)`` waits for real; a recorder
        such as ``sleep=waits.append`` keeps a lesson, a simulation or a test
        instant and reproducible; ``sleep=None`` skips waiting, said explicitly.
        Without it the call is a TypeError that says so.

        The time budget is counted on ``clock()`` (ms) when it is given: the
        requests' time and the waits. Without a clock it counts the waits
        only, which keeps runs deterministic, and is right only when the
        requests take no time (a recording, a simulation): a real client with
        a ``time_budget`` passes ``clock=lambda: time.monotonic() * 1000``.

        >>> RetryPolicy().run(lambda: Outcome.http(503))
        Traceback (most recent call last):
        ...
        TypeError: RetryPolicy.run needs sleep=, the function that waits between attempts ...
        """
        if sleep is _Unset.SLEEP:
            raise TypeError(SLEEP_REQUIRED)
        if sleep is not None and not callable(sleep):
            raise ArgumentTypeError(f"sleep={sleep!r} is out of range: " + SLEEP_REQUIRED)
        loop = self.steps(
            method, rng, idempotency_key=idempotency_key, clock=clock, retry_budget=retry_budget
        )
        try:
            request = next(loop)
            while True:
                if request is None:
                    request = loop.send(_checked(send()))
                else:
                    if sleep is not None:
                        sleep(request)
                    request = next(loop)
        except StopIteration as stop:
            result: RetryResult = stop.value
        if metrics is not None:
            metrics.record(result, method)
        return result

    async def run_async(
        self,
        send: Callable[[], Awaitable[Outcome]],
        method: str = "GET",
        rng: Random | None = None,
        sleep: Callable[[float], Awaitable[Any]] | None = None,
        *,
        idempotency_key: bool = False,
        clock: Clock | None = None,
        retry_budget: RetryBudgetLike | None = None,
        metrics: MetricsLike | None = None,
    ) -> RetryResult:
        """The same loop for asyncio: ``await send()``, ``await sleep(ms)``.

        Without an injected ``sleep`` it awaits ``asyncio.sleep(ms / 1000)``: it
        waits for real, on the running loop's clock (virtual under
        :func:`~retrylab.lab.virtualtime.run_virtual`, so a lesson stays
        instant and exact). The time budget is counted as in :meth:`run`.
        Cancelling the task (the app went to the background) raises
        ``CancelledError`` out of the send or the sleep at once: the loop
        stops there and never retries a cancellation.
        """
        loop = self.steps(
            method, rng, idempotency_key=idempotency_key, clock=clock, retry_budget=retry_budget
        )
        try:
            request = next(loop)
            while True:
                if request is None:
                    request = loop.send(_checked(await send()))
                else:
                    if sleep is None:
                        await asyncio.sleep(request / 1000)
                    else:
                        await sleep(request)
                    request = next(loop)
        except StopIteration as stop:
            result: RetryResult = stop.value
        finally:
            loop.close()
        if metrics is not None:
            metrics.record(result, method)
        return result


def _checked(outcome: object) -> Outcome:
    if not isinstance(outcome, Outcome):
        raise TypeError(
            f"send() returned {outcome!r}; it must return an Outcome "
            "(Outcome.success(...), Outcome.http(status), ...)"
        )
    return outcome
