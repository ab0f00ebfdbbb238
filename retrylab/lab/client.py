"""The client side: one HTTP request in, one :class:`~retrylab.outcome.Outcome` out.

Use :func:`http_send` (or :func:`sender` for ``RetryPolicy.run``) to talk to
the lab server or any plain-HTTP service; :class:`Connection` keeps one
keep-alive connection for many requests, :func:`async_send` does the same
with asyncio streams so a cancelled task stops at once.

How an answer becomes an Outcome (the classes of the web lesson):

- no answer (refused, reset, closed, timed out) -> ``Outcome.network(detail)``:
  the server may or may not have acted;
- a 2xx whose body is JSON (or empty) -> ``Outcome.success(data)``; a 2xx whose
  body is not JSON -> ``Outcome.body(detail)``;
- any other status -> ``Outcome.http(status, retry_after, data)``, where
  Retry-After (seconds or an HTTP-date) is parsed by
  :func:`~retrylab.outcome.parse_retry_after`; a malformed one is treated as
  absent and named in ``detail``.
"""

from __future__ import annotations

import asyncio
import http.client
import json
import socket
import time
import uuid
from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import numpy as np

from ..core._check import check_int, check_number
from ..core.outcome import Outcome, check_method, parse_retry_after

Clock = Callable[[], float]
Body = Mapping[str, Any] | list[Any] | str | bytes | None
_MAX_RESPONSE = 8 * 1024 * 1024



def check_path(path: str) -> str:
    """Return ``path`` if it is a request path (it starts with ``/``).

    >>> check_path("/measurements")
    '/measurements'
    """
    if not isinstance(path, str) or not path.startswith("/"):
        raise ValueError(f"path={path!r} is out of range: path must start with '/'")
    return path

def response_outcome(status: int, retry_after: str | None, raw: bytes,
                     now: float | None = None) -> Outcome:
    """Classify one HTTP answer (status, Retry-After header text, body bytes).

    ``now`` (POSIX seconds) turns an HTTP-date Retry-After into seconds.

    >>> response_outcome(200, None, b'[{"id": "o-114", "value": -4.2}]')
    Outcome(kind='success', data=[{'id': 'o-114', 'value': -4.2}])
    >>> response_outcome(429, "2", b'{"code": "rate_limited"}').retry_after
    2.0
    >>> response_outcome(503, "soon", b"{}").detail
    "malformed Retry-After 'soon' ignored: ..."
    >>> response_outcome(200, None, b"<html>").kind
    'body'
    """
    check_int("status", status, low=100, high=599)
    if 200 <= status < 300:
        if not raw.strip():
            return Outcome.success(None)
        try:
            return Outcome.success(json.loads(raw.decode("utf-8")))
        except (UnicodeDecodeError, ValueError) as e:
            return Outcome.body(f"{status} with a body that is not JSON ({e}); "
                                f"it starts {raw[:30]!r}")
    notes: list[str] = []
    data: Any = None
    if raw.strip():
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = raw.decode("utf-8", errors="replace")
            notes.append("the error body is not JSON")
    seconds: float | None = None
    if retry_after is not None:
        try:
            seconds = parse_retry_after(retry_after, now=now)
        except ValueError as e:
            notes.insert(0, f"malformed Retry-After {retry_after!r} ignored: {e}")
    return Outcome.http(status, retry_after=seconds, data=data, detail="; ".join(notes))


def network_outcome(error: BaseException, timeout: float) -> Outcome:
    """Name a network failure in words a student can read.

    >>> network_outcome(TimeoutError(), 0.2).detail
    'timed out after 0.2 s: the server may still act on the request'
    """
    if isinstance(error, (TimeoutError, socket.timeout, asyncio.TimeoutError)):
        text = f"timed out after {timeout:g} s: the server may still act on the request"
    elif isinstance(error, ConnectionRefusedError):
        text = "connection refused: nothing listens there"
    elif isinstance(error, (http.client.RemoteDisconnected, asyncio.IncompleteReadError,
                            _ClosedEarly)):
        text = ("the server closed the connection without an answer: "
                "it may have acted on the request")
    elif isinstance(error, ConnectionResetError):
        text = "connection reset: the server may have acted on the request"
    else:
        text = f"{type(error).__name__}: {error}"
    return Outcome.network(text)


class _ClosedEarly(ConnectionError):
    """The connection ended before a whole answer arrived."""


def _split(url: str) -> tuple[str, int, str]:
    parts = urlsplit(url) if isinstance(url, str) else None
    if parts is None or parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"url={url!r} is out of range: url must be an http:// URL "
                         "such as 'http://127.0.0.1:8000/measurements'")
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return parts.hostname, parts.port or 80, target


def _encode(body: Body, headers: Mapping[str, str] | None) -> tuple[bytes | None, dict[str, str]]:
    out = dict(headers or {})
    if body is None:
        return None, out
    if isinstance(body, bytes):
        payload = body
    elif isinstance(body, str):
        payload = body.encode("utf-8")
    else:
        payload = json.dumps(body).encode("utf-8")
        out.setdefault("Content-Type", "application/json")
    return payload, out


class Connection:
    """One keep-alive HTTP/1.1 connection to one server, reopened after a failure.

    Use it to send many requests quickly (the 1,000-write experiment);
    :func:`http_send` opens a fresh connection per request instead, as the
    lesson's ``fetch`` does.

    >>> from retrylab.lab.server import LabServer
    >>> with LabServer() as lab, Connection(lab.url) as conn:
    ...     [conn.request("GET", "/measurements").label() for _ in range(3)]
    ['http/503', 'http/503', 'success']
    """

    def __init__(self, base_url: str, timeout: float = 2.0, *, now: Clock = time.time) -> None:
        host, port, _ = _split(base_url)
        self.timeout = check_number("timeout", timeout, low=0, high=600, low_open=True)
        self.base_url = base_url.rstrip("/")
        self._now = now
        self._conn = http.client.HTTPConnection(host, port, timeout=self.timeout)

    def request(self, method: str, path: str, body: Body = None,
                headers: Mapping[str, str] | None = None) -> Outcome:
        """Send one request on the connection; never raises for network trouble."""
        m = check_method(method)
        check_path(path)
        payload, hdrs = _encode(body, headers)
        try:
            self._conn.request(m, path, body=payload, headers=hdrs)
            response = self._conn.getresponse()
            raw = response.read(_MAX_RESPONSE)
            retry_after = response.getheader("Retry-After")
            status = response.status
            if response.will_close:
                self._conn.close()
        except (OSError, http.client.HTTPException) as e:
            self._conn.close()
            return network_outcome(e, self.timeout)
        return response_outcome(status, retry_after, raw, now=self._now())

    def sender(self, method: str, path: str, body: Body = None,
               headers: Mapping[str, str] | None = None) -> Callable[[], Outcome]:
        """A zero-argument ``send`` for ``RetryPolicy.run``: the same request each call."""
        return partial(self.request, method, path, body, headers)

    def close(self) -> None:
        """Close the socket (a later request opens a new one)."""
        self._conn.close()

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def http_send(url: str, method: str = "GET", body: Body = None,
              headers: Mapping[str, str] | None = None, timeout: float = 2.0, *,
              now: Clock = time.time) -> Outcome:
    """Send one request on a new connection and classify the answer.

    ``body``: a dict or list (sent as JSON), text or bytes. ``timeout`` in
    seconds covers connecting and each wait for data. ``now()`` gives POSIX
    seconds for an HTTP-date Retry-After.

    >>> http_send("http://127.0.0.1:9/nothing-listens").label()
    'network'
    """
    host, port, target = _split(url)
    with Connection(f"http://{host}:{port}", timeout, now=now) as conn:
        hdrs = dict(headers or {})
        hdrs.setdefault("Connection", "close")
        return conn.request(method, target, body, hdrs)


def sender(url: str, method: str = "GET", body: Body = None,
           headers: Mapping[str, str] | None = None, timeout: float = 2.0, *,
           now: Clock = time.time) -> Callable[[], Outcome]:
    """A zero-argument ``send`` for ``RetryPolicy.run``: each call is one attempt.

    >>> from retrylab import Mulberry32, RetryPolicy
    >>> from retrylab.lab.server import LabServer
    >>> with LabServer() as lab:
    ...     r = RetryPolicy().run(sender(lab.url + "/measurements"), "GET",
    ...                           Mulberry32(20260114), sleep=None)
    >>> r.attempts, r.waits, r.outcome.data
    (3, [70, 184], [{'id': 'o-114', 'value': -4.2}])
    """
    _split(url)
    check_method(method)
    return partial(http_send, url, method, body, headers, timeout, now=now)


async def async_send(url: str, method: str = "GET", body: Body = None,
                     headers: Mapping[str, str] | None = None, timeout: float = 2.0, *,
                     now: Clock = time.time) -> Outcome:
    """:func:`http_send` with asyncio streams: cancelling the task closes the socket.

    >>> asyncio.run(async_send("http://127.0.0.1:9/")).label()
    'network'
    """
    host, port, target = _split(url)
    m = check_method(method)
    check_number("timeout", timeout, low=0, high=600, low_open=True)
    payload, hdrs = _encode(body, headers)
    try:
        status, retry_after, raw = await asyncio.wait_for(
            _exchange(host, port, m, target, payload or b"", hdrs), timeout)
    except (OSError, asyncio.TimeoutError, asyncio.IncompleteReadError, ValueError) as e:
        return network_outcome(e, timeout)
    return response_outcome(status, retry_after, raw, now=now())


async def _exchange(host: str, port: int, method: str, target: str, payload: bytes,
                    headers: dict[str, str]) -> tuple[int, str | None, bytes]:
    """One HTTP/1.1 request with ``Connection: close``; (status, Retry-After, body)."""
    reader, writer = await asyncio.open_connection(host, port)
    try:
        lines = [f"{method} {target} HTTP/1.1", f"Host: {host}:{port}",
                 "Connection: close", f"Content-Length: {len(payload)}"]
        lines += [f"{k}: {v}" for k, v in headers.items()
                  if k.lower() not in ("host", "connection", "content-length")]
        writer.write(("\r\n".join(lines) + "\r\n\r\n").encode("latin-1") + payload)
        await writer.drain()
        status_line = await reader.readline()
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise _ClosedEarly("no status line") if not status_line else \
                ValueError(f"bad status line {status_line[:40]!r}")
        found: dict[str, str] = {}
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b"\n"):
                break
            if not line:
                raise _ClosedEarly("the headers did not end")
            name, _, value = line.decode("latin-1").partition(":")
            found[name.strip().lower()] = value.strip()
        length = found.get("content-length")
        raw = (await reader.readexactly(int(length)) if length and length.isdigit()
               else await reader.read(_MAX_RESPONSE))
        return int(parts[1]), found.get("retry-after"), raw
    finally:
        writer.close()


def async_sender(url: str, method: str = "GET", body: Body = None,
                 headers: Mapping[str, str] | None = None, timeout: float = 2.0, *,
                 now: Clock = time.time) -> Callable[[], Awaitable[Outcome]]:
    """A zero-argument async ``send`` for ``RetryPolicy.run_async``."""
    _split(url)
    check_method(method)
    return partial(async_send, url, method, body, headers, timeout, now=now)


class KeyMaker:
    """Idempotency keys: one per logical write, reused by all its retries.

    ``KeyMaker()`` gives random uuid4 keys (production); ``KeyMaker(seed)``
    gives the same uuid4-shaped keys on every run (notebooks, tests).

    >>> keys = KeyMaker(seed=7)
    >>> keys() == KeyMaker(seed=7)(), len(keys())
    (True, 36)
    """

    def __init__(self, seed: int | None = None) -> None:
        self.seed = None if seed is None else check_int("seed", seed, low=0, high=2**63 - 1)
        self._rng = None if seed is None else np.random.default_rng(self.seed)
        self.made = 0

    def __call__(self) -> str:
        self.made += 1
        if self._rng is None:
            return str(uuid.uuid4())
        return str(uuid.UUID(bytes=self._rng.bytes(16), version=4))

