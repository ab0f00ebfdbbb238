"""The mobile lesson's Kotlin and Combine retry code in Python, flaws kept, and its strategies.

Use it (appendix A1 and notebook 05b) to run the mobile lesson's samples side by side with
:meth:`~retrylab.core.policy.RetryPolicy.run_async` on a virtual clock
(:mod:`retrylab.lab.virtualtime`), so that every run is instant and exactly
reproducible:

- :class:`MobileServer`: a server behind a phone's link, answering in turn;
- :func:`execute_with_retry`: the Kotlin ``executeWithRetry`` line for line
  (with the missing ``<T>`` declared), wait ``int(base * 2**n * (0.5 + r))``;
- :func:`retry_with_backoff`: the Combine ``retryWithBackoff``, waits
  ``base, 2 base, 4 base ...``; its four flaws kept (every error retried, no
  jitter, no cap, the main queue). It resubscribes to ``self``, as every
  Combine retry does (Apple's ``retry(_:)`` too), so it sends again over a
  :class:`ColdPublisher` (a new request per subscription) and not over a
  :class:`FuturePublisher` (one request, its result replayed): a property of
  the upstream, not a flaw of the sample;
- :func:`kotlin_run`, :func:`combine_run`, :func:`policy_run`: one call each,
  summed up as a :class:`Run` for :func:`runs_table`;
- :func:`strategy_backoff`: the lesson's fixed, incremental and exponential
  strategies as a :class:`~retrylab.core.backoff.Backoff`.

What the lesson's mistakes cost (the app lifecycle, an outage, a flaky batch)
is simulated in :mod:`retrylab.lessons.mobile_mistakes`.

>>> run = policy_run([Outcome.http(503), Outcome.success()], seed=20260114)
>>> run.requests, run.waits, run.result, run.elapsed
(2, (70,), 'success', 270)
"""

from __future__ import annotations

import ast
import asyncio
import inspect
import textwrap
from collections.abc import Awaitable, Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import pandas as pd

from ..core._check import check_choice, check_int
from ..core.backoff import Backoff, Random
from ..core.constants import SEED
from ..core.outcome import Outcome, decide
from ..core.policy import RetryPolicy, RetryResult
from ..core.rng import Mulberry32
from ..i18n import N_, _, pgettext
from ..lab.virtualtime import now_ms, run_virtual, sleep_ms

__all__ = [
    "LESSON_FAILURES",
    "LESSON_RETRIABLE_STATUSES",
    "STRATEGIES",
    "ColdPublisher",
    "FuturePublisher",
    "HttpError",
    "KResult",
    "MobileServer",
    "NetworkError",
    "Run",
    "as_exception",
    "classification_table",
    "code_of",
    "combine_run",
    "execute_with_retry",
    "kotlin_run",
    "kotlin_shl",
    "lesson_is_retriable",
    "policy_run",
    "result_text",
    "retry_with_backoff",
    "runs_table",
    "strategy_backoff",
]


# -- a server behind a mobile link --------------------------------------------------


class NetworkError(OSError):
    """No answer (Kotlin's ``IOException``/``SocketTimeoutException``, ``URLError``)."""


class HttpError(Exception):
    """An HTTP error status thrown as an exception (Retrofit's ``HttpException``)."""

    def __init__(self, status: int) -> None:
        self.status = status
        super().__init__(f"HTTP {status}")

    def __repr__(self) -> str:
        return f"HttpError({self.status})"


def as_exception(outcome: Outcome) -> Exception:
    """The exception a mobile HTTP client throws for a failed ``outcome``.

    >>> as_exception(Outcome.http(503)), as_exception(Outcome.network("timeout"))
    (HttpError(503), NetworkError('timeout'))
    """
    if outcome.kind == "http":
        return HttpError(outcome.status or 0)
    if outcome.kind == "network":
        return NetworkError(outcome.detail or "network error")
    return ValueError(f"{outcome.label()}: {outcome.detail}".rstrip(": "))


@dataclass
class MobileServer:
    """A server seen through a phone's link, on the running loop's clock.

    Every request takes ``latency_ms`` (a request in a tunnel hangs until its
    timeout) and gets ``answer(index, start_ms)``. The server records when
    each request was sent, so a demonstration can count what reached it.
    """

    answer: Callable[[int, int], Outcome]
    latency_ms: int = 100
    sent: list[int] = field(default_factory=list)
    in_flight: int = 0

    def __post_init__(self) -> None:
        check_int("latency_ms", self.latency_ms, low=0, high=3_600_000)

    @classmethod
    def scripted(cls, outcomes: Sequence[Outcome], latency_ms: int = 100) -> MobileServer:
        """Answer with ``outcomes`` in order; the last one repeats."""
        if not outcomes:
            raise ValueError("outcomes=[] is out of range: outcomes must hold at least one Outcome")
        answers = list(outcomes)
        return cls(lambda i, t: answers[min(i, len(answers) - 1)], latency_ms)

    @classmethod
    def down_until(
        cls, until_ms: int, failure: Outcome | None = None, latency_ms: int = 300
    ) -> MobileServer:
        """Fail every request sent before ``until_ms`` (503 by default), then succeed."""
        until = check_int("until_ms", until_ms, low=0)
        bad = Outcome.http(503) if failure is None else failure
        return cls(lambda i, t: bad if t < until else Outcome.success(), latency_ms)

    @property
    def requests(self) -> int:
        """How many requests were sent."""
        return len(self.sent)

    async def send(self) -> Outcome:
        """One request, as ``RetryPolicy.run_async`` wants it."""
        start = now_ms()
        self.sent.append(start)
        self.in_flight += 1
        try:
            await asyncio.sleep(self.latency_ms / 1000)
        finally:
            self.in_flight -= 1
        return self.answer(len(self.sent) - 1, start)

    async def kotlin_block(self) -> KResult:
        """The request as the lesson's ``block`` (Retrofit style): a failure is *thrown*."""
        outcome = await self.send()
        if outcome.ok:
            return KResult.success(outcome.data)
        raise as_exception(outcome)

    async def kotlin_block_run_catching(self) -> KResult:
        """The request wrapped in ``runCatching``: a failure is *returned*, never thrown."""
        outcome = await self.send()
        if outcome.ok:
            return KResult.success(outcome.data)
        return KResult.failure(as_exception(outcome))

    async def fetch(self) -> Any:
        """The request as a Combine upstream: the data, or the failure raised."""
        outcome = await self.send()
        if outcome.ok:
            return outcome.data
        raise as_exception(outcome)


# -- Kotlin: executeWithRetry ----------------------------------------------------------


@dataclass(frozen=True)
class KResult:
    """Kotlin's ``Result<T>``: a value, or the exception that ended the call."""

    value: Any = None
    error: BaseException | None = None

    @classmethod
    def success(cls, value: Any = None) -> KResult:
        return cls(value=value)

    @classmethod
    def failure(cls, error: BaseException) -> KResult:
        return cls(error=error)

    @property
    def is_success(self) -> bool:
        return self.error is None

    def __str__(self) -> str:
        if self.error is None:
            return "success"
        return f"failure({self.error!r})"


#: The statuses the lesson names as transient ("HTTP 503, 502").
LESSON_RETRIABLE_STATUSES = frozenset({502, 503})


def lesson_is_retriable(error: BaseException) -> bool:
    """The lesson's classification: timeouts, DNS errors, HTTP 502 and 503.

    >>> [lesson_is_retriable(e) for e in (NetworkError(), HttpError(503), HttpError(400))]
    [True, True, False]
    >>> lesson_is_retriable(asyncio.CancelledError())
    False
    """
    if isinstance(error, NetworkError):
        return True
    return isinstance(error, HttpError) and error.status in LESSON_RETRIABLE_STATUSES


#: The failures the lesson names, plus the ones it leaves out (429, 500, 504).
LESSON_FAILURES: dict[str, Outcome] = {
    "timeout (SocketTimeoutException)": Outcome.network("timeout"),
    "DNS error": Outcome.network("dns"),
    "502": Outcome.http(502),
    "503": Outcome.http(503),
    "400": Outcome.http(400),
    "401": Outcome.http(401),
    "403": Outcome.http(403),
    "404": Outcome.http(404),
    "429": Outcome.http(429),
    "500": Outcome.http(500),
    "504": Outcome.http(504),
}


def classification_table(failures: Mapping[str, Outcome] | None = None) -> pd.DataFrame:
    """Retry or not, per failure: the lesson's ``isRetriable`` against ``decide`` (GET, POST).

    >>> classification_table().loc["429"].tolist()[:3]
    ['no', 'yes', 'yes']
    """
    cases = LESSON_FAILURES if failures is None else failures
    yes = {True: pgettext("value", "yes"), False: pgettext("value", "no")}
    return pd.DataFrame(
        {
            pgettext("column", "lesson's isRetriable"): [
                yes[lesson_is_retriable(as_exception(o))] for o in cases.values()
            ],
            pgettext("column", "retrylab GET"): [
                yes[decide(o, "GET").retry] for o in cases.values()
            ],
            pgettext("column", "retrylab POST"): [
                yes[decide(o, "POST").retry] for o in cases.values()
            ],
            pgettext("column", "why (POST)"): [
                decide(o, "POST").reason.split(":", 1)[1].strip() for o in cases.values()
            ],
        },
        index=pd.Index([_failure_name(k) for k in cases], name=pgettext("column", "failure")),
    )


#: The lesson's failures that are named in words (the others are status codes).
_FAILURE_NAMES: dict[str, str] = {
    "timeout (SocketTimeoutException)": N_("timeout (SocketTimeoutException)"),
    "DNS error": N_("DNS error"),
}


def _failure_name(key: str) -> str:
    """A failure's row label in the current language (a status code stays as it is)."""
    name = _FAILURE_NAMES.get(key)
    return key if name is None else _(name)


def kotlin_shl(value: int, bits: int) -> int:
    """Kotlin's ``Int.shl``: the shift count is taken mod 32 and the result wraps to 32 bits.

    The lesson's ``1 shl attempt`` therefore turns negative at attempt 31 and
    is back to 1 at attempt 32:

    >>> [kotlin_shl(1, n) for n in (3, 30, 31, 32, 33)]
    [8, 1073741824, -2147483648, 1, 2]
    """
    raw = (value << (bits & 31)) & 0xFFFFFFFF
    return raw - (1 << 32) if raw >= 1 << 31 else raw


# The ports keep the Kotlin and Swift they copy in a column beside each line, as
# code_of prints them for notebook A1: the formatter leaves them as written.
# fmt: off
async def execute_with_retry(
        block: Callable[[], Awaitable[KResult]], *, max_retries: int = 3,
        base_delay_ms: int = 1000,
        is_retriable: Callable[[BaseException], bool] = lesson_is_retriable,
        random: Random, delay: Callable[[int], Awaitable[Any]] | None = None,
        delay_checks_cancellation: bool = True) -> KResult:
    """The lesson's Kotlin ``executeWithRetry``, line for line, its flaws kept.

    Use it to compare with :meth:`RetryPolicy.run_async`; do not use it in an
    app. The Kotlin (``<T>`` added so that it compiles) is quoted in the
    comments. Its behaviour, flaws included:

    - wait before retry ``n`` (0-based): ``int(base * (1 shl n) * (0.5 + r))``,
      proportional jitter, truncated like ``toLong()``; no cap, and ``1 shl n``
      wraps at ``n = 31`` (:func:`kotlin_shl`);
    - only a *thrown* exception is retried: a ``Result.failure`` returned by
      ``block`` goes straight back to the caller;
    - ``catch (e: Exception)`` also catches a cancellation (Kotlin's
      ``CancellationException`` is an ``Exception``; here
      ``asyncio.CancelledError`` is caught to match). If ``is_retriable``
      rejects it, the cancellation is returned as an ordinary failure; if it
      accepts it, Kotlin's ``delay`` notices that the coroutine is cancelled
      and throws again, unless the wait is 0 (kotlinx's ``delay(0)`` returns
      without checking). ``delay_checks_cancellation=False`` shows what an
      asyncio port that swallows ``CancelledError`` does: it keeps retrying.

    ``max_retries`` must be >= 0: with -1 the Kotlin loop never runs and
    ``lastError!!`` throws a NullPointerException.

    >>> server = MobileServer.scripted([Outcome.network(), Outcome.success("data")])
    >>> slept = []
    >>> async def record(ms):
    ...     slept.append(ms)
    >>> result = run_virtual(execute_with_retry(server.kotlin_block, random=Mulberry32(1),
    ...                                         delay=record))
    >>> str(result), server.requests, slept          # 1000 * (0.5 + 0.627...)
    ('success', 2, [1127])
    """
    max_retries = check_int("max_retries", max_retries, low=0, high=10_000)
    base_delay_ms = check_int("base_delay_ms", base_delay_ms, low=0, high=86_400_000)
    sleep = sleep_ms if delay is None else delay
    last_error: BaseException | None = None              # var lastError: Throwable? = null
    cancelled = False
    for attempt in range(max_retries + 1):                # repeat(maxRetries + 1) { attempt ->
        try:
            return await block()                          # return block()
        except (Exception, asyncio.CancelledError) as e:  # catch (e: Exception)
            cancelled = cancelled or isinstance(e, asyncio.CancelledError)
            if not is_retriable(e) or attempt == max_retries:
                return KResult.failure(e)                 # return Result.failure(e)
            wait = base_delay_ms * kotlin_shl(1, attempt)  # (baseDelayMs * (1 shl attempt))
            jittered = int(wait * (0.5 + random()))       # (delay * (0.5 + nextDouble())).toLong()
            if delay_checks_cancellation and cancelled and jittered > 0:
                # kotlinx's delay() throws at once in a cancelled coroutine (not for 0 ms)
                raise asyncio.CancelledError("delay() in a cancelled coroutine") from e
            await sleep(jittered)                         # delay(jitteredDelay)
            last_error = e                                # lastError = e
    assert last_error is not None  # unreachable for max_retries >= 0
    return KResult.failure(last_error)                    # return Result.failure(lastError!!)
# fmt: on


# -- Combine: retryWithBackoff ---------------------------------------------------------


class ColdPublisher:
    """A publisher that does its work anew for every subscriber (``dataTaskPublisher``)."""

    def __init__(self, work: Callable[[], Awaitable[Any]]) -> None:
        self.work = work
        self.subscriptions = 0

    async def subscribe(self) -> Any:
        """Subscribe: run the work (send a request) and deliver its value or failure."""
        self.subscriptions += 1
        return await self.work()


class FuturePublisher:
    """Combine's ``Future``: the work runs once; every subscriber gets the same result."""

    def __init__(self, work: Callable[[], Awaitable[Any]]) -> None:
        self.work = work
        self.subscriptions = 0
        self._done = False
        self._value: Any = None
        self._error: BaseException | None = None

    async def subscribe(self) -> Any:
        """Subscribe: the first time run the work; afterwards replay what it produced."""
        self.subscriptions += 1
        if not self._done:
            self._done = True
            try:
                self._value = await self.work()
            except Exception as e:
                self._error = e
        if self._error is not None:
            raise self._error
        return self._value


Publisher = ColdPublisher | FuturePublisher


# fmt: off
async def retry_with_backoff(publisher: Publisher, retries: int = 3, base_delay: float = 1.0,
                             sleep: Callable[[int], Awaitable[Any]] | None = None) -> Any:
    """The lesson's Combine ``retryWithBackoff``, its four flaws kept.

    The flaws: *any* error is retried (no classification); the waits have no
    jitter and no cap; the wait is scheduled on the main queue (in Swift). It
    waits ``base_delay`` seconds, then subscribes to the same publisher again
    with ``retries - 1`` and ``base_delay * 2``: waits 1, 2, 4 s. Subscribing
    again to ``self`` is not a flaw: it is how every Combine retry works,
    Apple's ``retry(_:)`` included. Over a :class:`FuturePublisher` (with
    either) nothing is sent again, because a ``Future`` replays its result.

    >>> server = MobileServer.scripted([Outcome.http(404)])
    >>> slept = []
    >>> async def record(ms):
    ...     slept.append(ms)
    >>> async def go():
    ...     try:
    ...         await retry_with_backoff(ColdPublisher(server.fetch), sleep=record)
    ...     except HttpError as e:
    ...         return e
    >>> run_virtual(go()), server.requests, slept    # a 404, retried three times
    (HttpError(404), 4, [1000, 2000, 4000])
    """
    check_int("retries", retries, low=0, high=10_000)
    wait = sleep_ms if sleep is None else sleep
    try:
        return await publisher.subscribe()                     # self.catch { error -> ...
    except Exception:
        if retries <= 0:                                       # guard retries > 0 else {
            raise                                              #   return Fail(error) }
        await wait(round(base_delay * 1000))                   # Just(()).delay(baseDelay, .main)
        return await retry_with_backoff(publisher, retries - 1,  # .flatMap { self.retryWith...
                                        base_delay * 2, sleep)   #   retries - 1, baseDelay * 2
# fmt: on


def code_of(fn: Callable[..., Any]) -> str:
    """The source of ``fn`` without its docstring, to read beside the Kotlin or Swift.

    >>> print(code_of(now_ms))
    def now_ms() -> int:
        return round(asyncio.get_running_loop().time() * 1000)
    """
    src = textwrap.dedent(inspect.getsource(fn))
    node = ast.parse(src).body[0]
    body = getattr(node, "body", [])
    first = body[0] if body else None
    if (
        isinstance(first, ast.Expr)
        and isinstance(first.value, ast.Constant)
        and isinstance(first.value.value, str)
        and first.end_lineno is not None
    ):
        lines = src.splitlines()
        del lines[first.lineno - 1 : first.end_lineno]
        src = "\n".join(lines)
    return src.rstrip()


# -- runs side by side -------------------------------------------------------------------


@dataclass(frozen=True)
class Run:
    """What one retrying call did: requests that reached the server, waits, result, time."""

    requests: int
    waits: tuple[int, ...]
    result: str
    elapsed: int


def _recorder(waits: list[int]) -> Callable[[float], Awaitable[None]]:
    async def sleep(ms: float) -> None:
        waits.append(int(ms))
        await asyncio.sleep(max(0, ms) / 1000)

    return sleep


def kotlin_run(
    outcomes: Sequence[Outcome],
    *,
    style: Literal["throw", "result"] = "throw",
    max_retries: int = 3,
    base_delay_ms: int = 1000,
    seed: int = SEED,
    latency_ms: int = 100,
    is_retriable: Callable[[BaseException], bool] = lesson_is_retriable,
) -> Run:
    """Run :func:`execute_with_retry` against answers ``outcomes`` (last one repeats).

    ``style="throw"``: the block throws failures (Retrofit); ``"result"``: it
    returns them as ``Result.failure`` (``runCatching``), so nothing is retried.

    >>> answers = [Outcome.http(503), Outcome.http(503), Outcome.success()]
    >>> kotlin_run(answers)
    Run(requests=3, waits=(850, 1918), result='success', elapsed=3068)
    >>> kotlin_run(answers, style="result").requests
    1
    """
    check_choice("style", style, ("throw", "result"))

    async def go() -> Run:
        server = MobileServer.scripted(outcomes, latency_ms)
        waits: list[int] = []
        block = server.kotlin_block if style == "throw" else server.kotlin_block_run_catching
        result = await execute_with_retry(
            block,
            max_retries=max_retries,
            base_delay_ms=base_delay_ms,
            is_retriable=is_retriable,
            random=Mulberry32(seed),
            delay=_recorder(waits),
        )
        return Run(server.requests, tuple(waits), str(result), now_ms())

    return run_virtual(go())


def policy_run(
    outcomes: Sequence[Outcome],
    policy: RetryPolicy | None = None,
    *,
    method: str = "GET",
    seed: int = SEED,
    latency_ms: int = 100,
    idempotency_key: bool = False,
) -> Run:
    """Run :meth:`RetryPolicy.run_async` against answers ``outcomes`` (last one repeats).

    The default policy is the web lesson's: 4 attempts, base 200 ms x 2, cap 5 s,
    full jitter.

    >>> policy = RetryPolicy(4, Backoff(1000, 2, None, jitter="proportional"))
    >>> policy_run([Outcome.http(503), Outcome.http(503), Outcome.success()], policy)
    Run(requests=3, waits=(850, 1918), result='success', elapsed=3068)
    """
    pol = RetryPolicy() if policy is None else policy

    async def go() -> Run:
        server = MobileServer.scripted(outcomes, latency_ms)
        waits: list[int] = []
        r = await pol.run_async(
            server.send, method, Mulberry32(seed), _recorder(waits), idempotency_key=idempotency_key
        )
        return Run(server.requests, tuple(waits), result_text(r), now_ms())

    return run_virtual(go())


def result_text(r: RetryResult) -> str:
    """A :class:`RetryResult` in a table cell: ``success``, or the last outcome and why.

    >>> result_text(RetryPolicy(2).run(lambda: Outcome.http(404), rng=Mulberry32(1),
    ...                          sleep=None))
    'http/404 (not_retryable)'
    """
    return "success" if r.ok else f"{r.outcome.label()} ({r.reason})"


def combine_run(
    outcomes: Sequence[Outcome],
    *,
    publisher: Literal["cold", "future"] = "cold",
    retries: int = 3,
    base_delay: float = 1.0,
    latency_ms: int = 100,
) -> Run:
    """Run :func:`retry_with_backoff` over a cold publisher or a ``Future``.

    >>> combine_run([Outcome.network()]).requests, combine_run([Outcome.network()],
    ...     publisher="future").requests
    (4, 1)
    """
    check_choice("publisher", publisher, ("cold", "future"))

    async def go() -> Run:
        server = MobileServer.scripted(outcomes, latency_ms)
        pub: Publisher = (
            ColdPublisher(server.fetch) if publisher == "cold" else FuturePublisher(server.fetch)
        )
        waits: list[int] = []
        try:
            await retry_with_backoff(pub, retries, base_delay, _recorder(waits))
            text = "success"
        except Exception as e:
            text = f"failure({e!r})"
        return Run(server.requests, tuple(waits), text, now_ms())

    return run_virtual(go())


def runs_table(runs: Mapping[str, Run]) -> pd.DataFrame:
    """Runs side by side, one row each: requests, waits (ms), result, elapsed (ms).

    The headers, and a result that is a plain ``"success"``, are in the current
    language; the row labels are the keys given.
    """
    return pd.DataFrame(
        {
            pgettext("column", "requests"): [r.requests for r in runs.values()],
            pgettext("column", "waits (ms)"): [list(r.waits) for r in runs.values()],
            pgettext("column", "result"): [
                pgettext("value", "success") if r.result == "success" else r.result
                for r in runs.values()
            ],
            pgettext("column", "elapsed (ms)"): [r.elapsed for r in runs.values()],
        },
        index=pd.Index(list(runs), name=pgettext("column", "loop")),
    )


# -- the lesson's strategies -------------------------------------------------------------

#: The lesson's three strategies, as Backoff growths.
STRATEGIES: dict[str, str] = {
    "fixed": "constant",
    "incremental": "linear",
    "exponential": "exponential",
}


def strategy_backoff(
    strategy: str, base: int, cap: int | None = None, jitter: str = "none"
) -> Backoff:
    """The lesson's strategy by name: ``"fixed"``, ``"incremental"`` or ``"exponential"``.

    Use it to write the lesson's words as a :class:`~retrylab.core.backoff.Backoff`:
    fixed is ``growth="constant"``, incremental ``"linear"`` (step = base) and
    exponential doubles (factor 2).

    >>> [strategy_backoff(s, 1000).ceiling(2) for s in STRATEGIES]
    [1000, 3000, 4000]
    """
    check_choice("strategy", strategy, tuple(STRATEGIES))
    return Backoff(
        base,
        2,
        cap,
        jitter=jitter,  # type: ignore[arg-type]
        growth=STRATEGIES[strategy],  # type: ignore[arg-type]
    )
