"""An httpx transport that retries with a :class:`~retrylab.core.policy.RetryPolicy`.

Use it to give any ``httpx.Client`` or ``httpx.AsyncClient`` the lesson's loop:
``httpx.Client(transport=RetryTransport(policy))``. It wraps another transport
(by default httpx's own), buffers the request body so it can be sent again,
honours Retry-After (``max(backoff draw, Retry-After)``, as the policy says),
closes every answer it discards, and never retries a cancellation: an
``asyncio.CancelledError`` propagates at once and no request follows it.

How an exchange becomes an :class:`~retrylab.core.outcome.Outcome`:

- a status of 400-599 -> ``Outcome.http(status, retry_after)`` (a malformed
  Retry-After counts as absent); any other status -> a success, returned as is;
- ``ConnectError``, ``ConnectTimeout``, ``PoolTimeout``, ``UnsupportedProtocol``
  -> ``Outcome.network(sent=False)`` (the request never left);
- read and write errors and timeouts, ``RemoteProtocolError`` ->
  ``Outcome.network(sent=True)`` (it may have reached the server); other
  transport errors -> ``sent=None``.

A policy without a rule gets :func:`~retrylab.core.production.production_rule`
(the lesson's rule only when asked by name, ``rule=decide``). Each answer's
body is read inside the transport (unless the request is streamed, see
:class:`RetryTransport`), so a 2xx cut off mid-body is ``Outcome.network(sent=True)``
and retried as the rule says. A time budget is a deadline: each attempt's
timeouts are shortened to what is left of it. An ``httpx.LocalProtocolError``
(a request that can never be sent) is raised at once.

When the loop stops on an error the last exception is raised again; the
:class:`~retrylab.core.policy.RetryResult` rides on
``response.extensions["retry_result"]``.
"""

from __future__ import annotations

import asyncio
import random
import threading
import time
from collections.abc import Awaitable, Callable, Generator, Mapping
from typing import Any

import httpx

from ..core._check import ArgumentTypeError, check_bool
from ..core.backoff import Random
from ..core.outcome import Outcome, parse_retry_after
from ..core.policy import Clock, RetryBudgetLike, RetryPolicy, RetryResult
from ..core.production import production_rule
from .apart import retrieve, run_apart
from .client import check_headers

Sleep = Callable[[int], Any]
AsyncSleep = Callable[[int], Awaitable[Any]]
Loop = Generator[int | None, Outcome, RetryResult]

_NEVER_SENT = (
    httpx.ConnectError,
    httpx.ConnectTimeout,
    httpx.PoolTimeout,
    httpx.UnsupportedProtocol,
)
_PHASES = ("connect", "read", "write", "pool")
_MAYBE_SENT = (
    httpx.ReadError,
    httpx.WriteError,
    httpx.ReadTimeout,
    httpx.WriteTimeout,
    httpx.RemoteProtocolError,
)


def monotonic_ms() -> float:
    """Milliseconds from a monotonic clock (the transport's default for time budgets)."""
    return time.monotonic() * 1000


def error_outcome(error: httpx.TransportError) -> Outcome:
    """The Outcome of an httpx transport error, with ``sent`` filled in.

    >>> error_outcome(httpx.ConnectError("refused")).sent
    False
    >>> error_outcome(httpx.ReadTimeout("slow")).sent
    True
    """
    detail = f"{type(error).__name__}: {error}"
    if isinstance(error, _NEVER_SENT):
        return Outcome.network(detail, sent=False)
    if isinstance(error, _MAYBE_SENT):
        return Outcome.network(detail, sent=True)
    return Outcome.network(detail)


def response_outcome(response: httpx.Response, now: float) -> Outcome:
    """The Outcome of an answer from its status and Retry-After (the body is not read).

    >>> response_outcome(httpx.Response(429, headers={"Retry-After": "2"}), 0.0)
    Outcome(kind='http', status=429, retry_after=2)
    >>> response_outcome(httpx.Response(200), 0.0)
    Outcome(kind='success')
    """
    status = response.status_code
    if not 400 <= status <= 599:
        return Outcome.success()
    text = response.headers.get("Retry-After")
    seconds: float | None = None
    detail = ""
    if text is not None:
        try:
            seconds = parse_retry_after(text, now=now)
        except ValueError as e:
            detail = f"malformed Retry-After {text!r} ignored: {e}"
    return Outcome.http(status, retry_after=seconds, detail=detail)


def _default_sleep(ms: int) -> None:
    time.sleep(ms / 1000)


async def _default_async_sleep(ms: int) -> None:
    await asyncio.sleep(ms / 1000)


def _read_failed(error: httpx.TransportError, status: int) -> Outcome:
    """The Outcome of an answer whose body could not be read to its end."""
    return Outcome.network(
        f"the answer ({status}) was cut off before its body ended "
        f"({type(error).__name__}: {error})",
        sent=True,
    )


async def _aclose_apart(response: httpx.Response) -> None:
    """Close a discarded answer in a task of its own, waiting on a plain future.

    httpcore closes a connection inside a shielded anyio scope, and on Python
    3.10 a cancel that lands there is swallowed: the loop would go on to the
    next attempt. Here the cancel reaches this task whatever the close does
    (the close itself finishes on its own).
    """
    closing = asyncio.ensure_future(response.aclose())
    closing.add_done_callback(retrieve)
    await asyncio.wait({closing})


Exchange = tuple[httpx.Response | None, httpx.TransportError | None, Outcome]


async def _abandon(exchange: Exchange) -> None:
    """Close the answer of an attempt whose caller was cancelled."""
    response = exchange[0]
    if response is not None:
        await response.aclose()


class RetryTransport(httpx.BaseTransport, httpx.AsyncBaseTransport):
    """An httpx transport (sync and async) that retries with ``policy``.

    - ``policy``: its ``rule`` decides; a policy without one (``rule=None``)
      gets :func:`~retrylab.core.production.production_rule` here, because this
      is the adapter a team copies into production and the lesson's rule would
      retry a keyless POST after a 500 (a duplicate write). Ask for the lesson's
      rule by name: ``RetryPolicy(rule=decide)``;
    - ``rng``: the generator for jitter (default: a ``random.Random()`` seeded by
      the system; pass ``Mulberry32(seed)`` for the lesson's numbers);
    - ``transport``: the transport to wrap, sync for ``httpx.Client`` and async
      for ``httpx.AsyncClient`` (default: ``httpx.HTTPTransport()`` /
      ``httpx.AsyncHTTPTransport()``, made when first needed);
    - ``sleep(ms)`` / ``async_sleep(ms)``: how to wait (default: really wait);
    - ``clock()``: ms for the time budget (default: a monotonic clock;
      ``None`` counts the waits only, as :meth:`RetryPolicy.run` does). With a
      clock the budget is a deadline: each attempt's timeouts (connect, read,
      write, pool) are shortened to the budget left;
    - ``now()``: POSIX seconds, to read an HTTP-date Retry-After;
    - ``key_header``: a request carrying it has an idempotency key;
    - ``retry_budget``: a budget shared by many requests (see ``retrylab.core.budget``);
    - ``read_body``: read each answer's body inside the transport (default
      True), so a 2xx whose body is cut off is a network error the rule can
      retry instead of an exception in the caller. A download that must be
      streamed passes ``extensions={"retrylab.stream": True}`` on its request
      (or the transport is made with ``read_body=False``): its body is then
      read by the caller and a cut-off body is not retried.

    A request that can never be sent (``httpx.LocalProtocolError``: a header
    value with a newline, say) is raised at once, never retried; with
    ``max_attempts=1`` the request body is not buffered (nothing is sent twice).

    A header value outside ASCII never reaches a transport: httpx encodes a
    ``str`` value as ASCII while it builds the request, so ``headers={"X-Name":
    "Ayşe"}`` is a ``UnicodeEncodeError`` raised by httpx in the caller, before
    this transport runs (a limit of httpx, not a failure to retry). Pass the
    headers through :func:`~retrylab.lab.client.check_headers`: Latin-1 text
    becomes the bytes HTTP/1.1 sends (``"café"`` arrives intact), and anything
    else is a ``ValueError`` that names the value, the character and what to do
    (percent-encode it, or send it in the body).

    >>> from retrylab.core.rng import Mulberry32
    >>> from retrylab.lab.server import LabServer
    >>> slept = []
    >>> t = RetryTransport(RetryPolicy(), Mulberry32(20260114), sleep=slept.append)
    >>> with LabServer() as lab, httpx.Client(transport=t) as client:
    ...     response = client.get(lab.url + "/measurements")
    >>> response.status_code, response.json(), slept
    (200, [{'id': 'o-114', 'value': -4.2}], [70, 184])
    >>> response.extensions["retry_result"].attempts
    3
    """

    def __init__(
        self,
        policy: RetryPolicy,
        rng: Random | None = None,
        *,
        transport: httpx.BaseTransport | httpx.AsyncBaseTransport | None = None,
        sleep: Sleep | None = None,
        async_sleep: AsyncSleep | None = None,
        clock: Clock | None = monotonic_ms,
        now: Callable[[], float] = time.time,
        key_header: str = "Idempotency-Key",
        retry_budget: RetryBudgetLike | None = None,
        read_body: bool = True,
    ) -> None:
        if not isinstance(policy, RetryPolicy):
            raise ArgumentTypeError(
                f"policy={policy!r} is out of range: policy must be a RetryPolicy"
            )
        #: The policy the transport runs: the one given, with production_rule when
        #: it has no rule of its own.
        self.policy = policy if policy.rule is not None else policy.with_(rule=production_rule)
        self.rng: Random = random.Random().random if rng is None else rng
        self._transport = transport
        self._own_sync: httpx.HTTPTransport | None = None
        self._own_async: httpx.AsyncHTTPTransport | None = None
        # threads sharing one httpx.Client make their first request together: the
        # transport made on first use is made once, under this lock
        self._own_lock = threading.Lock()
        self._sleep: Sleep = _default_sleep if sleep is None else sleep
        self._async_sleep: AsyncSleep = _default_async_sleep if async_sleep is None else async_sleep
        self.clock = clock
        self.now = now
        self.key_header = key_header
        self.retry_budget = retry_budget
        self.read_body = check_bool("read_body", read_body)

    # -- the wrapped transports ---------------------------------------------------

    def _sync(self) -> httpx.BaseTransport:
        if self._transport is None:
            with self._own_lock:
                if self._own_sync is None:
                    self._own_sync = httpx.HTTPTransport()
                return self._own_sync
        if not isinstance(self._transport, httpx.BaseTransport):
            raise TypeError(
                f"transport={self._transport!r} is async; httpx.Client needs a "
                "sync transport such as httpx.HTTPTransport()"
            )
        return self._transport

    def _async(self) -> httpx.AsyncBaseTransport:
        if self._transport is None:
            if self._own_async is None:
                self._own_async = httpx.AsyncHTTPTransport()
            return self._own_async
        if not isinstance(self._transport, httpx.AsyncBaseTransport):
            raise TypeError(
                f"transport={self._transport!r} is sync; httpx.AsyncClient needs "
                "an async transport such as httpx.AsyncHTTPTransport()"
            )
        return self._transport

    def _loop(self, request: httpx.Request) -> Loop:
        return self.policy.steps(
            request.method,
            self.rng,
            idempotency_key=self.key_header in request.headers,
            clock=self.clock,
            retry_budget=self.retry_budget,
        )

    def _reads(self, request: httpx.Request) -> bool:
        return self.read_body and not request.extensions.get("retrylab.stream", False)

    def _deadline(self, request: httpx.Request) -> Callable[[], None]:
        """A function that shortens the request's timeouts to the time budget left."""
        budget, clock = self.policy.time_budget, self.clock
        if budget is None or clock is None:
            return lambda: None
        start = clock()
        given: dict[str, float | None] = dict(request.extensions.get("timeout") or {})

        def shorten() -> None:
            left = max(0.001, (budget - (clock() - start)) / 1000)
            timeouts = {
                k: (left if v is None else min(float(v), left))
                for k, v in (given or dict.fromkeys(_PHASES)).items()
            }
            request.extensions = {**request.extensions, "timeout": timeouts}

        return shorten

    # -- sync -----------------------------------------------------------------------

    def _exchange(self, inner: httpx.BaseTransport, request: httpx.Request) -> Exchange:
        """One attempt: (the answer or None, the error or None, its Outcome)."""
        try:
            response = inner.handle_request(request)
        except httpx.LocalProtocolError:
            raise  # it can never be sent: not a failure to retry
        except httpx.TransportError as e:
            return None, e, error_outcome(e)
        if self._reads(request):
            try:
                response.read()
            except httpx.TransportError as e:
                response.close()
                return None, e, _read_failed(e, response.status_code)
            except BaseException:
                response.close()
                raise
        return response, None, response_outcome(response, self.now())

    def handle_request(self, request: httpx.Request) -> httpx.Response:
        """Send ``request``, retrying as the policy says; return the last answer."""
        inner = self._sync()
        if self.policy.max_attempts > 1:
            request.read()  # buffered, so it can be sent again
        loop = self._loop(request)
        shorten = self._deadline(request)
        response: httpx.Response | None = None
        error: httpx.TransportError | None = None
        try:
            step = next(loop)
            while True:
                if step is None:
                    if response is not None:
                        response.close()
                        response = None
                    shorten()
                    response, error, outcome = self._exchange(inner, request)
                    step = loop.send(outcome)
                else:
                    self._sleep(step)
                    step = next(loop)
        except StopIteration as stop:
            return self._finish(stop.value, response, error)
        except BaseException:
            if response is not None:
                response.close()
            raise
        finally:
            loop.close()

    # -- async ----------------------------------------------------------------------

    async def _async_exchange(
        self, inner: httpx.AsyncBaseTransport, request: httpx.Request
    ) -> Exchange:
        try:
            response = await inner.handle_async_request(request)
        except httpx.LocalProtocolError:
            raise
        except httpx.TransportError as e:
            return None, e, error_outcome(e)
        if self._reads(request):
            try:
                await response.aread()
            except httpx.TransportError as e:
                await response.aclose()
                return None, e, _read_failed(e, response.status_code)
            except BaseException:
                await response.aclose()
                raise
        return response, None, response_outcome(response, self.now())

    async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
        """The same loop for ``httpx.AsyncClient``; a cancellation stops it at once.

        Each attempt runs in a task of its own and this one waits on it
        (:func:`~retrylab.lab.apart.run_apart`, as
        :func:`~retrylab.lab.client.async_send` does): a cancel that lands as
        the answer arrives can be swallowed inside httpx's stack (anyio's
        cancel scopes on Python 3.10), but never here, so it always stops
        the loop; the attempt is cancelled and its answer, if any, closed. A
        cancel that lands after the loop has decided to send again, but before
        the attempt has begun, stops it from beginning (no request follows a
        cancel).
        """
        inner = self._async()
        if self.policy.max_attempts > 1:
            await request.aread()
        loop = self._loop(request)
        shorten = self._deadline(request)
        response: httpx.Response | None = None
        error: httpx.TransportError | None = None
        try:
            step = next(loop)
            while True:
                if step is None:
                    if response is not None:
                        discarded, response = response, None
                        await _aclose_apart(discarded)
                    shorten()
                    response, error, outcome = await run_apart(
                        lambda: self._async_exchange(inner, request), _abandon
                    )
                    step = loop.send(outcome)
                else:
                    await self._async_sleep(step)
                    step = next(loop)
        except StopIteration as stop:
            return self._finish(stop.value, response, error)
        except BaseException:  # CancelledError included: close, never retry
            if response is not None:
                await response.aclose()
            raise
        finally:
            loop.close()

    @staticmethod
    def _finish(
        result: RetryResult, response: httpx.Response | None, error: httpx.TransportError | None
    ) -> httpx.Response:
        if error is not None or response is None:
            assert error is not None
            raise error
        response.extensions["retry_result"] = result
        return response

    def close(self) -> None:
        """Close the wrapped sync transport (the one given, or the one made)."""
        with self._own_lock:
            own = self._own_sync
        for t in (self._transport, own):
            if isinstance(t, httpx.BaseTransport):
                t.close()

    async def aclose(self) -> None:
        """Close the wrapped async transport (the one given, or the one made)."""
        for t in (self._transport, self._own_async):
            if isinstance(t, httpx.AsyncBaseTransport):
                await t.aclose()


def outcome_sender(
    client: httpx.Client,
    method: str,
    url: str,
    *,
    now: Callable[[], float] = time.time,
    **kwargs: Any,
) -> Callable[[], Outcome]:
    """A zero-argument ``send`` for ``RetryPolicy.run`` or ``to_tenacity`` over httpx.

    Each call sends one request with ``client`` (give it no retrying transport)
    and classifies the answer as :class:`RetryTransport` does; a 2xx body is
    decoded as JSON when it is JSON. Text ``headers`` are checked here, once,
    by :func:`~retrylab.lab.client.check_headers` (Latin-1 is sent as such; a
    value that HTTP/1.1 cannot carry is a ``ValueError`` naming it, before any
    request).

    >>> from retrylab.lab.server import LabServer
    >>> with LabServer() as lab, httpx.Client() as client:
    ...     send = outcome_sender(client, "GET", lab.url + "/measurements")
    ...     [send().label() for _ in range(3)]
    ['http/503', 'http/503', 'success']
    """
    headers = kwargs.get("headers")
    if isinstance(headers, Mapping) and all(isinstance(v, str) for v in headers.values()):
        kwargs["headers"] = check_headers(headers)

    def send() -> Outcome:
        try:
            response = client.request(method, url, **kwargs)
        except httpx.TransportError as e:
            return error_outcome(e)
        outcome = response_outcome(response, now())
        if outcome.ok and response.content.strip():
            try:
                return Outcome.success(response.json())
            except ValueError:
                return Outcome.body(f"{response.status_code} with a body that is not JSON")
        return outcome

    return send


__all__ = ["RetryTransport", "error_outcome", "monotonic_ms", "outcome_sender", "response_outcome"]
