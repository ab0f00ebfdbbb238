"""The client side: one HTTP request in, one :class:`~retrylab.core.outcome.Outcome` out.

Use :func:`http_send` (or :func:`sender` for ``RetryPolicy.run``) to talk to
the lab server or any plain-HTTP service; :class:`Connection` keeps one
keep-alive connection for many requests, :func:`async_send` does the same
for asyncio, where a cancelled task stops at once. Both sides speak HTTP
through httpx (its ``Client`` and ``AsyncClient`` share one parser, h11), so
the blocking and the async client cannot disagree about an answer.

How an answer becomes an Outcome (the classes of the web lesson):

- no whole answer -> ``Outcome.network(detail, sent=...)``. ``sent=False``:
  the request never left the client (connection refused, name not resolved,
  connect timeout), so a retry is safe for any method; ``sent=True``: it was
  written, then the answer was lost (closed, reset, read timeout, or cut off
  mid-body), so the server may have acted; ``sent=None``: unknown (the
  connection failed while writing);
- a 2xx whose body is JSON (or empty) -> ``Outcome.success(data)``; a 2xx whose
  whole body arrived but is not JSON -> ``Outcome.body(detail)``;
- any other status -> ``Outcome.http(status, retry_after, data)``, where
  Retry-After (seconds or an HTTP-date) is parsed by
  :func:`~retrylab.core.outcome.parse_retry_after`; a malformed one is treated as
  absent and named in ``detail``.

A body cut off before its announced end (the connection closed mid-transfer)
is a **network** outcome with ``sent=True``, in both clients: the failure is
in the transfer, not in what the server meant to say. A fresh attempt
normally gets the whole answer, so a GET is retried; the status line did
arrive, so the server has acted and a keyless POST is not. Calling it a
``body`` error would stop a GET that one more attempt would fix.

Bad input never reaches the wire: a header name that is not an RFC 9110
token, or a value with CR, LF or another control character, or one that
is not Latin-1 text, is a ``ValueError`` before any connection is opened.
Cancelling a task raises ``CancelledError`` out of :func:`async_send`; it is
never turned into an Outcome.
"""

from __future__ import annotations

import json
import re
import socket
import ssl
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator, Mapping
from functools import partial
from typing import Any
from urllib.parse import urlsplit

import httpx
import numpy as np

from ..core._check import check_int, check_number
from ..core.outcome import Outcome, check_method, parse_retry_after
from ..i18n import _, seconds
from .apart import run_apart

Clock = Callable[[], float]
Body = Mapping[str, Any] | list[Any] | str | bytes | None
_MAX_RESPONSE = 8 * 1024 * 1024
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")  # RFC 9110 5.6.2
_FIELD_VALUE = re.compile(r"[\t\x20-\x7e\x80-\xff]*")  # RFC 9110 5.5 (with obs-text)
# Only plain http:// is spoken here; a TLS context that loads no certificates
# saves httpx from reading the CA bundle each time a client is made.
_NO_TLS = ssl.SSLContext(ssl.PROTOCOL_TLS_CLIENT)


def check_path(path: str) -> str:
    """Return ``path`` if it is a request path (``/`` first, no space or control).

    >>> check_path("/measurements")
    '/measurements'
    """
    if (
        not isinstance(path, str)
        or not path.startswith("/")
        or any(c.isspace() or not c.isprintable() for c in path)
    ):
        raise ValueError(
            f"path={path!r} is out of range: path must start with '/' and "
            "have no spaces or control characters"
        )
    return path


def check_headers(headers: Mapping[str, str] | None) -> dict[bytes, bytes]:
    """Request headers as Latin-1 bytes, checked before anything is sent.

    Names must be RFC 9110 tokens; values Latin-1 text without CR, LF, NUL or
    another control character (RFC 9110 section 5.5), so no header can be
    injected and none is lost in encoding.

    >>> check_headers({"Idempotency-Key": "k-1"})
    {b'Idempotency-Key': b'k-1'}
    >>> check_headers({"X": "a\\r\\nInjected: 1"})
    Traceback (most recent call last):
    ...
    ValueError: headers['X']='a\\r\\nInjected: 1' is out of range: ...
    """
    out: dict[bytes, bytes] = {}
    for name, value in (headers or {}).items():
        if not isinstance(name, str) or not _TOKEN.fullmatch(name):
            raise ValueError(
                f"headers: name {name!r} is out of range: a header name is "
                "a token of letters, digits and !#$%&'*+-.^_`|~"
            )
        if not isinstance(value, str):
            raise TypeError(f"headers[{name!r}]={value!r} is not text: header values must be str")
        if not _FIELD_VALUE.fullmatch(value):
            raise ValueError(
                f"headers[{name!r}]={value!r} is out of range: a header value "
                "must be Latin-1 text without CR, LF or other control "
                f"characters ({_first_bad(value)})"
            )
        out[name.encode("ascii")] = value.encode("latin-1")
    return out


def _first_bad(value: str) -> str:
    """Which character of a header value cannot be sent, and what to do instead.

    >>> print(_first_bad("Ayşe"))
    'ş' (U+015F) at position 2 is not Latin-1: percent-encode the value
    (urllib.parse.quote) or send it in the body
    >>> print(_first_bad("ab\\x7f"))
    '\\x7f' (U+007F) at position 2 is a control character
    """
    at = next(i for i, c in enumerate(value) if not _FIELD_VALUE.fullmatch(c))
    c = value[at]
    what = (
        "is not Latin-1: percent-encode the value (urllib.parse.quote) or send it in the body"
        if ord(c) > 0xFF
        else "is a control character"
    )
    return f"{c!r} (U+{ord(c):04X}) at position {at} {what}"


def response_outcome(
    status: int, retry_after: str | None, raw: bytes, now: float | None = None
) -> Outcome:
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
            return Outcome.body(
                _("{status} with a body that is not JSON ({error}); it starts {start}").format(
                    status=status, error=e, start=repr(raw[:30])
                )
            )
    notes: list[str] = []
    data: Any = None
    if raw.strip():
        try:
            data = json.loads(raw.decode("utf-8"))
        except (UnicodeDecodeError, ValueError):
            data = raw.decode("utf-8", errors="replace")
            notes.append(_("the error body is not JSON"))
    seconds: float | None = None
    if retry_after is not None:
        try:
            seconds = parse_retry_after(retry_after, now=now)
        except ValueError as e:
            notes.insert(
                0,
                _("malformed Retry-After {value} ignored: {error}").format(
                    value=repr(retry_after), error=e
                ),
            )
    return Outcome.http(status, retry_after=seconds, data=data, detail="; ".join(notes))


def _root(error: BaseException) -> BaseException:
    """The innermost cause of a wrapped error (httpx wraps httpcore wraps OSError)."""
    seen = {id(error)}
    while True:
        inner = error.__cause__ or error.__context__
        if inner is None or id(inner) in seen:
            return error
        seen.add(id(inner))
        error = inner


def network_outcome(error: BaseException, timeout: float, status: int | None = None) -> Outcome:
    """Name a network failure in words a student can read, and whether it was sent.

    ``status``: the status line had arrived when the body was cut off.

    >>> network_outcome(TimeoutError(), 0.2).detail
    'timed out after 0.2 s: the server may still act on the request'
    >>> network_outcome(httpx.ConnectError("refused"), 1).sent
    False
    """
    root = _root(error)
    sent: bool | None = None
    if status is not None:
        text, sent = (
            _(
                "the answer ({status}) was cut off before its body ended ({error}): "
                "the server has acted on the request"
            ).format(status=status, error=error),
            True,
        )
    elif isinstance(error, httpx.ConnectTimeout):
        text, sent = (
            _("connecting timed out after {timeout} s: the request never left").format(
                timeout=seconds(timeout)
            ),
            False,
        )
    elif isinstance(error, httpx.PoolTimeout):
        text, sent = (
            _("no free connection within {timeout} s: the request never left").format(
                timeout=seconds(timeout)
            ),
            False,
        )
    elif isinstance(error, httpx.WriteTimeout):
        text = _(
            "sending timed out after {timeout} s: part of the request may have arrived"
        ).format(timeout=seconds(timeout))
    elif isinstance(error, (TimeoutError, socket.timeout, httpx.TimeoutException)):
        text, sent = (
            _("timed out after {timeout} s: the server may still act on the request").format(
                timeout=seconds(timeout)
            ),
            True,
        )
    elif isinstance(root, ConnectionRefusedError) or (
        isinstance(error, httpx.ConnectError) and "refused" in str(error).lower()
    ):
        text, sent = _("connection refused: nothing listens there"), False
    elif isinstance(root, socket.gaierror):
        text, sent = (
            _("the name was not resolved ({error}): the request never left").format(error=root),
            False,
        )
    elif isinstance(error, httpx.ConnectError):
        text, sent = (
            _("could not connect ({error}): the request never left").format(error=error),
            False,
        )
    elif isinstance(error, httpx.RemoteProtocolError) and "without sending" in str(error):
        text, sent = (
            _(
                "the server closed the connection without an answer: it may have "
                "acted on the request"
            ),
            True,
        )
    elif isinstance(error, httpx.RemoteProtocolError):
        text, sent = (
            _(
                "the answer is not valid HTTP ({error}): the server may have acted on the request"
            ).format(error=error),
            True,
        )
    elif isinstance(root, ConnectionResetError) or isinstance(error, httpx.ReadError):
        text, sent = _("connection reset: the server may have acted on the request"), True
    elif isinstance(error, httpx.WriteError):
        text = _("the connection failed while sending ({error})").format(error=error)
    else:
        text = f"{type(error).__name__}: {error}"
    return Outcome.network(text, sent=sent)


def _split(url: str) -> tuple[str, str]:
    """(origin, target) of an ``http://`` URL; a ValueError for anything else."""
    parts = None
    if isinstance(url, str) and not any(c.isspace() or not c.isprintable() for c in url):
        try:
            parts = urlsplit(url)
            _port = parts.port  # a port that is not a number raises here
        except ValueError:
            parts = None
    if parts is None or parts.scheme != "http" or not parts.hostname:
        raise ValueError(
            f"url={url!r} is out of range: url must be an http:// URL "
            "such as 'http://127.0.0.1:8000/measurements'"
        )
    target = (parts.path or "/") + (f"?{parts.query}" if parts.query else "")
    return f"http://{parts.netloc}", target


def _encode(
    body: Body, headers: Mapping[str, str] | None
) -> tuple[bytes | None, dict[bytes, bytes]]:
    out = check_headers(headers)
    if body is None:
        return None, out
    if isinstance(body, bytes):
        payload = body
    elif isinstance(body, str):
        payload = body.encode("utf-8")
    else:
        payload = json.dumps(body).encode("utf-8")
        if not any(k.lower() == b"content-type" for k in out):
            out[b"Content-Type"] = b"application/json"
    return payload, out


def _client_options(timeout: float, connections: int) -> dict[str, Any]:
    return {
        "timeout": httpx.Timeout(timeout),
        "verify": _NO_TLS,
        "trust_env": False,
        "limits": httpx.Limits(max_connections=connections, max_keepalive_connections=connections),
    }


def _read(chunks: Iterator[bytes]) -> bytes:
    data = bytearray()
    for chunk in chunks:
        data += chunk
        if len(data) > _MAX_RESPONSE:
            raise _TooLarge
    return bytes(data)


async def _aread(chunks: AsyncIterator[bytes]) -> bytes:
    data = bytearray()
    async for chunk in chunks:
        data += chunk
        if len(data) > _MAX_RESPONSE:
            raise _TooLarge
    return bytes(data)


class _TooLarge(Exception):
    """The answer's body is larger than the client reads."""


def _too_large(status: int) -> Outcome:
    return Outcome.body(f"{status} with a body over {_MAX_RESPONSE} bytes: not read")


class Connection:
    """One keep-alive HTTP/1.1 connection to one server, reopened after a failure.

    Use it to send many requests quickly (the 1,000-write experiment);
    :func:`http_send` opens a fresh connection per request instead, as the
    lesson's ``fetch`` does. A path in ``base_url`` is kept, as httpx's
    ``base_url`` does: ``Connection("http://host/api").request("GET",
    "/measurements")`` asks for ``/api/measurements``.

    >>> from retrylab.lab.server import LabServer
    >>> with LabServer() as lab, Connection(lab.url) as conn:
    ...     [conn.request("GET", "/measurements").label() for _ in range(3)]
    ['http/503', 'http/503', 'success']
    """

    def __init__(self, base_url: str, timeout: float = 2.0, *, now: Clock = time.time) -> None:
        origin, target = _split(base_url)
        if "?" in target:
            raise ValueError(
                f"base_url={base_url!r} is out of range: base_url must have no "
                "query (give it with each request's path)"
            )
        self.timeout = check_number("timeout", timeout, low=0, high=600, low_open=True)
        self.base_url = base_url.rstrip("/")
        # httpx's base_url: the base's path is kept, each request's path goes after it
        self._prefix = origin + target.rstrip("/")
        self._now = now
        self._client: httpx.Client | None = None

    def request(
        self, method: str, path: str, body: Body = None, headers: Mapping[str, str] | None = None
    ) -> Outcome:
        """Send one request on the connection; never raises for network trouble
        (a ValueError for a bad method, path or header, before sending)."""
        m = check_method(method)
        check_path(path)
        payload, hdrs = _encode(body, headers)
        status: int | None = None
        if self._client is None:
            self._client = httpx.Client(**_client_options(self.timeout, 1))
        try:
            with self._client.stream(
                m, self._prefix + path, content=payload, headers=hdrs
            ) as response:
                status = response.status_code
                raw = _read(response.iter_bytes())
                retry_after = response.headers.get("Retry-After")
        except _TooLarge:
            return _too_large(int(status or 200))
        except httpx.DecodingError as e:
            return Outcome.body(f"{status} with a body that cannot be decoded ({e})")
        except (httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.InvalidURL) as e:
            raise ValueError(f"the request cannot be sent: {e}") from e
        except (httpx.TransportError, OSError) as e:
            return network_outcome(e, self.timeout, status)
        return response_outcome(status, retry_after, raw, now=self._now())

    def sender(
        self, method: str, path: str, body: Body = None, headers: Mapping[str, str] | None = None
    ) -> Callable[[], Outcome]:
        """A zero-argument ``send`` for ``RetryPolicy.run``: the same request each call."""
        return partial(self.request, method, path, body, headers)

    def close(self) -> None:
        """Close the socket (a later request opens a new one)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> Connection:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def http_send(
    url: str,
    method: str = "GET",
    body: Body = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 2.0,
    *,
    now: Clock = time.time,
) -> Outcome:
    """Send one request on a new connection and classify the answer.

    ``body``: a dict or list (sent as JSON), text or bytes. ``timeout`` in
    seconds covers connecting and each wait for data. ``now()`` gives POSIX
    seconds for an HTTP-date Retry-After.

    >>> http_send("http://127.0.0.1:9/nothing-listens").label()
    'network'
    """
    origin, target = _split(url)
    hdrs = dict(headers or {})
    if not any(k.lower() == "connection" for k in hdrs):
        hdrs["Connection"] = "close"
    with Connection(origin, timeout, now=now) as conn:
        return conn.request(method, target, body, hdrs)


def sender(
    url: str,
    method: str = "GET",
    body: Body = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 2.0,
    *,
    now: Clock = time.time,
) -> Callable[[], Outcome]:
    """A zero-argument ``send`` for ``RetryPolicy.run``: each call is one attempt.

    >>> from retrylab import Mulberry32, RetryPolicy
    >>> from retrylab.lab.server import LabServer
    >>> with LabServer() as lab:
    ...     r = RetryPolicy().run(sender(lab.url + "/measurements"), "GET",
    ...                           Mulberry32(20260114), sleep=None)
    >>> r.attempts, r.waits, r.outcome.data
    (3, (70, 184), [{'id': 'o-114', 'value': -4.2}])
    """
    _split(url)
    check_method(method)
    _encode(body, headers)
    return partial(http_send, url, method, body, headers, timeout, now=now)


async def async_send(
    url: str,
    method: str = "GET",
    body: Body = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 2.0,
    *,
    now: Clock = time.time,
) -> Outcome:
    """:func:`http_send` for asyncio: the same answers give the same Outcomes.

    Cancelling the task raises ``CancelledError`` here, always, and stops the
    exchange (its socket is closed). Two libraries can lose a cancel that lands
    as the answer arrives: ``asyncio.wait_for`` on Python 3.10 and 3.11 (it
    returns the answer instead), and anyio's cancel scopes on 3.10 (httpx's
    connect). So the exchange runs in a task of its own, and this one waits
    on a plain future that a cancel always reaches
    (:func:`~retrylab.lab.apart.run_apart`); a cancel that lands before the
    exchange has begun stops it from beginning.

    >>> import asyncio
    >>> asyncio.run(async_send("http://127.0.0.1:9/")).label()
    'network'
    """
    origin, target = _split(url)
    m = check_method(method)
    check_number("timeout", timeout, low=0, high=600, low_open=True)
    payload, hdrs = _encode(body, headers)
    if not any(k.lower() == b"connection" for k in hdrs):
        hdrs[b"Connection"] = b"close"
    status, retry_after, raw, failed = await run_apart(
        lambda: _async_exchange(origin + target, m, payload, hdrs, timeout)
    )
    if failed is not None:
        return failed
    return response_outcome(int(status or 200), retry_after, raw, now=now())


async def _async_exchange(
    url: str, method: str, payload: bytes | None, headers: dict[bytes, bytes], timeout: float
) -> tuple[int | None, str | None, bytes, Outcome | None]:
    """One request with httpx.AsyncClient: (status, Retry-After, body, or a failure)."""
    status: int | None = None
    try:
        async with (
            httpx.AsyncClient(**_client_options(timeout, 1)) as client,
            client.stream(method, url, content=payload, headers=headers) as response,
        ):
            status = response.status_code
            raw = await _aread(response.aiter_bytes())
            return status, response.headers.get("Retry-After"), raw, None
    except _TooLarge:
        return status, None, b"", _too_large(int(status or 200))
    except httpx.DecodingError as e:
        return status, None, b"", Outcome.body(f"{status} with a body that cannot be decoded ({e})")
    except (httpx.LocalProtocolError, httpx.UnsupportedProtocol, httpx.InvalidURL) as e:
        raise ValueError(f"the request cannot be sent: {e}") from e
    except (httpx.TransportError, OSError) as e:
        return status, None, b"", network_outcome(e, timeout, status)


def async_sender(
    url: str,
    method: str = "GET",
    body: Body = None,
    headers: Mapping[str, str] | None = None,
    timeout: float = 2.0,
    *,
    now: Clock = time.time,
) -> Callable[[], Awaitable[Outcome]]:
    """A zero-argument async ``send`` for ``RetryPolicy.run_async``."""
    _split(url)
    check_method(method)
    _encode(body, headers)
    return partial(async_send, url, method, body, headers, timeout, now=now)


class KeyMaker:
    """Idempotency keys: one per logical write, reused by all its retries.

    ``KeyMaker()`` gives random uuid4 keys (production); ``KeyMaker(seed)``
    gives the same uuid4-shaped keys on every run (notebooks, tests).
    ``stream`` (>= 0) picks another sequence for the same seed, for a second
    run against a server that remembers the first run's keys; stream 0 is the
    seed's own sequence.

    >>> keys = KeyMaker(seed=7)
    >>> keys() == KeyMaker(seed=7)(), len(keys())
    (True, 36)
    >>> KeyMaker(seed=7, stream=1)() == KeyMaker(seed=7)()
    False
    """

    def __init__(self, seed: int | None = None, stream: int = 0) -> None:
        self.seed = None if seed is None else check_int("seed", seed, low=0, high=2**63 - 1)
        self.stream = check_int("stream", stream, low=0, high=2**63 - 1)
        # [seed, stream] with stream >= 1 never mixes to the same state as [seed'] alone
        self._rng = (
            None
            if self.seed is None
            else np.random.default_rng(self.seed if self.stream == 0 else [self.seed, self.stream])
        )
        self.made = 0

    def __call__(self) -> str:
        self.made += 1
        if self._rng is None:
            return str(uuid.uuid4())
        return str(uuid.UUID(bytes=self._rng.bytes(16), version=4))
