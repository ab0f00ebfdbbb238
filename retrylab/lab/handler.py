"""The lab's HTTP plumbing: the listening server and the per-connection request handler.

:class:`~retrylab.lab.server.LabServer` owns one :class:`LabHTTPServer`; this
module reads requests, checks them against RFC 9112 (one ``Host``, a
``Content-Length`` of ASCII digits, no transfer coding it cannot decode), asks
the lab what to answer, applies the scripted faults and writes the answer.

Limits that keep a lab alive under load or abuse:

- a listen backlog of :data:`BACKLOG` (socketserver's default of 5 made 59 of
  200 simultaneous connections time out);
- at most ``max_connections`` open connections: one more is answered ``503``
  with ``Retry-After: 1`` and closed, without a thread;
- an idle timeout: a connection that sends nothing for ``idle_timeout``
  seconds is closed, so idle keep-alive clients do not hold threads forever;
- deadlines for a whole request, as nginx's ``client_header_timeout`` and
  ``client_body_timeout``: the request line and headers must have arrived
  ``header_timeout`` seconds after their first byte, the body
  ``body_timeout`` seconds after the headers, however slowly they drip (a
  byte every few seconds resets no clock), or the connection is closed;
- when ``accept()`` fails for lack of file descriptors the loop pauses 50 ms
  instead of spinning.

Requests it refuses with 400 (and closes, so nothing after them is read as a
request): a field name that is not an RFC 9110 token, such as
``Content-Length : 5`` with whitespace before the colon (RFC 9112 section
5.1: a server MUST reject it, or a body could be smuggled in as a second
request); a Content-Length that is not one short whole number; a request
line that is not HTTP/1.x (HTTP/2.0 gets 505); two ``Idempotency-Key``
headers, or one that is neither a key nor a valid sf-string. Every answer
has a status line, a garbage request line's too.
"""

from __future__ import annotations

import contextlib
import errno
import io
import json
import logging
import re
import socket
import socketserver
import time
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import TYPE_CHECKING, Any, cast
from urllib.parse import urlsplit

from .script import retry_after_header

if TYPE_CHECKING:
    from .server import LabServer

log = logging.getLogger("retrylab.lab.server")

BACKLOG = 1024               # pending connections the kernel queues (capped by somaxconn)
_DRAIN_LIMIT = 1024 * 1024   # an oversized body up to this is read and thrown away
MAX_KEY = 255                # characters an Idempotency-Key may have
_OUT_OF_FDS = {errno.EMFILE, errno.ENFILE, errno.ENOBUFS, errno.ENOMEM}
_PHRASES = {s.value for s in HTTPStatus}
Reply = tuple[int, Any, dict[str, str]]
_TOKEN = re.compile(r"[!#$%&'*+\-.^_`|~0-9A-Za-z]+")   # RFC 9110 5.6.2: a field name
_MAX_LENGTH_DIGITS = 15     # a Content-Length longer than this is no body the lab reads


class _DeadlineIO(io.RawIOBase):
    """The connection's reading side, with a deadline for a whole phase of a request.

    Every read waits at most ``idle`` seconds (the idle timeout), and never past
    the deadline of the phase in progress: :meth:`headers` arms one that starts
    with the first byte of a request, :meth:`body` one that starts now. Past
    it, a read raises ``TimeoutError``, as an idle timeout does.
    """

    def __init__(self, sock: socket.socket, idle: float) -> None:
        super().__init__()
        self._sock = sock
        self._idle = idle
        self._deadline: float | None = None
        self._pending: float | None = None   # armed at the next byte that arrives

    def readable(self) -> bool:
        return True

    def headers(self, seconds: float) -> None:
        self._deadline, self._pending = None, seconds

    def body(self, seconds: float) -> None:
        self._deadline, self._pending = time.monotonic() + seconds, None

    def clear(self) -> None:
        self._deadline = self._pending = None

    def readinto(self, buffer: Any) -> int:
        wait = self._idle
        if self._deadline is not None:
            left = self._deadline - time.monotonic()
            if left <= 0:
                raise TimeoutError("the request did not arrive within its deadline")
            wait = min(wait, left)
        self._sock.settimeout(wait)
        try:
            n = self._sock.recv_into(buffer)
        finally:
            self._sock.settimeout(self._idle)
        if n and self._pending is not None:
            self._deadline, self._pending = time.monotonic() + self._pending, None
        return n


def parse_key(raw: str) -> str:
    """The Idempotency-Key's value: an sf-string (the draft's form) unquoted, else as sent.

    The IETF draft defines the field as an RFC 8941 sf-string (``"abc"``, with
    ``\\`` and ``\"`` escapes); a bare value (``abc``) is taken as it is, as
    the lab always has. A quoted value that is not a valid sf-string is a
    ValueError.

    >>> parse_key('"8e03978e-40d5"'), parse_key("k-1"), parse_key('"a\\\\"b"')
    ('8e03978e-40d5', 'k-1', 'a"b')
    """
    text = raw.strip(" \t")
    if not text.startswith('"'):
        return text
    out: list[str] = []
    i = 1
    while i < len(text):
        c = text[i]
        if c == "\\" and i + 1 < len(text) and text[i + 1] in '"\\':
            out.append(text[i + 1])
            i += 2
        elif c == '"':
            if i != len(text) - 1:
                break
            return "".join(out)
        elif c == "\\" or not " " <= c <= "~":
            break
        else:
            out.append(c)
            i += 1
    raise ValueError(f"Idempotency-Key {raw[:40]!r} is not a valid sf-string")


class LabHTTPServer(ThreadingHTTPServer):
    """ThreadingHTTPServer with a deep backlog and a connection limit; never prints."""

    daemon_threads = True
    block_on_close = False
    request_queue_size = BACKLOG
    lab: LabServer

    def __init__(self, lab: LabServer, host: str) -> None:
        self.lab = lab
        self.address_family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self.out_of_fds = False
        super().__init__((host, 0), LabHandler)

    def server_bind(self) -> None:
        """Bind without ``socket.getfqdn`` (a name lookup the lab does not need)."""
        socketserver.TCPServer.server_bind(self)
        host, port = self.server_address[:2]
        self.server_name, self.server_port = str(host), int(port)

    def get_request(self) -> tuple[socket.socket, Any]:
        try:
            return super().get_request()
        except OSError as e:
            if e.errno in _OUT_OF_FDS:
                self.out_of_fds = True  # the serve loop pauses instead of spinning
            raise

    def process_request(self, request: Any, client_address: Any) -> None:
        lab = self.lab
        with lab._lock:
            full = len(lab._conns) >= lab.max_connections
            if not full:
                lab._conns.add(request)
        if full:
            self._refuse(request)
            return
        super().process_request(request, client_address)

    def _refuse(self, request: socket.socket) -> None:
        """Answer 503 on the accept thread and close: no thread for this one."""
        n = self.lab.max_connections
        body = json.dumps({"code": "too_many_connections",
                           "message": f"the lab serves at most {n} connections at once; "
                                      "retry later"}).encode()
        head = ("HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\n"
                f"Content-Length: {len(body)}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n")
        self.lab._record("?", "?", 503, None, "too many connections")
        with contextlib.suppress(OSError):
            request.setblocking(False)
            request.send(head.encode("ascii") + body)
        socketserver.TCPServer.shutdown_request(self, request)

    def shutdown_request(self, request: Any) -> None:
        with self.lab._lock:
            self.lab._conns.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        log.debug("lab: error while handling a request from %s", client_address,
                  exc_info=True)


class LabHandler(BaseHTTPRequestHandler):
    """Reads one request, asks the lab what to do, applies the faults."""

    protocol_version = "HTTP/1.1"
    server_version = "retrylab-lab/0.1"
    sys_version = ""
    disable_nagle_algorithm = True

    @property
    def lab(self) -> LabServer:
        return cast(LabHTTPServer, self.server).lab

    def setup(self) -> None:
        super().setup()
        self.connection.settimeout(self.lab.idle_timeout)  # each read or write waits this
        self._io = _DeadlineIO(self.connection, self.lab.idle_timeout)
        self.rfile = io.BufferedReader(self._io)

    def handle_one_request(self) -> None:
        """One request: its line and headers must arrive within ``header_timeout``."""
        self._io.headers(self.lab.header_timeout)
        super().handle_one_request()

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the lab keeps its own log (``lab.log``)."""

    def do_GET(self) -> None:
        self._dispatch()

    do_HEAD = do_POST = do_PUT = do_DELETE = do_PATCH = do_OPTIONS = do_GET

    def send_error(self, code: int, message: str | None = None,
                   explain: str | None = None) -> None:
        """Errors found while parsing the request line or headers, as JSON."""
        self.close_connection = True
        if self.request_version == "HTTP/0.9":  # a garbage line: still a status line
            self.request_version = "HTTP/1.0"
        text = message or HTTPStatus(code).phrase
        self.lab._record(self.command or "?", getattr(self, "path", "?") or "?", code,
                         None, None)
        self._reply(code, {"code": "bad_request", "message": text}, {})

    # -- one request ----------------------------------------------------------------

    def _dispatch(self) -> None:
        self.lab._count_in_flight(1)  # LabServer.in_flight: from its headers to its answer
        try:
            self._dispatch_request()
        finally:
            self.lab._count_in_flight(-1)

    def _dispatch_request(self) -> None:
        self._io.clear()  # the headers are in
        if self.request_version == "HTTP/0.9":
            self.request_version = "HTTP/1.0"  # answered with a status line all the same
        method = self.command.upper()
        path = urlsplit(self.path).path
        raw_key = self.headers.get("Idempotency-Key")
        key: str | None = raw_key
        try:
            if raw_key is not None:
                with contextlib.suppress(ValueError):
                    key = parse_key(raw_key)  # a bad one is refused by _check_headers
            self._handle(method, path, key)
        except TimeoutError:
            raise  # handle_one_request closes the connection
        except Exception:  # a safety net: every request gets an answer and a log entry
            log.debug("lab: %s %s failed", method, path, exc_info=True)
            self.close_connection = True
            self.lab._record(method, path, 500, key, "server error")
            with contextlib.suppress(OSError):
                self._reply(500, {"code": "internal",
                                  "message": "the lab failed while handling the request"},
                            {})

    def _handle(self, method: str, path: str, key: str | None) -> None:
        lab = self.lab
        error = self._check_headers(key)
        body: bytes | None = b""
        if error is None:
            body, error = self._read_body()
        if body is None:  # the client went away mid-body: nothing to answer
            self.close_connection = True
            lab._record(method, path, None, key, "client gone")
            return
        if error is not None:
            status, payload, headers = error
            lab._record(method, path, status, key, None)
            self._reply(status, payload, headers)
            return
        scripted, fault, script = lab._next_step(method, path)
        if fault == "close":
            self.close_connection = True
            lab._record(method, path, None, key, fault)
            return
        claimed, early = lab._claim(method, path, body, key)
        try:
            delay = (script.latency if script else 0.0) + \
                (script.slow if script and fault == "slow" else 0.0)
            if delay and lab._stopping.wait(delay):
                self.close_connection = True
                lab._record(method, path, None, key, "server closed")
                return
            if scripted is not None:
                status, payload, headers = scripted, {
                    "code": "scripted", "status": scripted,
                    "message": HTTPStatus(scripted).phrase if scripted in _PHRASES
                    else ""}, {}
            elif early is not None:
                status, payload, headers = early
            else:
                status, payload, headers = lab._route(method, path, body, key)
        finally:
            if claimed and key is not None:
                lab._keys.abandon(key)  # does nothing once the answer is remembered
        self._answer(method, path, key, fault, script.retry_after if script else None,
                     (status, payload, dict(headers)))

    def _answer(self, method: str, path: str, key: str | None, fault: str | None,
                retry_after: Any, reply: Reply) -> None:
        """Apply the answer-side faults, log, write."""
        lab = self.lab
        status, payload, headers = reply
        if fault == "fail_after":
            status, payload, headers = 500, {
                "code": "internal", "message": "the server failed after handling the "
                                               "request"}, {}
        if status >= 400:
            text = retry_after_header(retry_after)
            if text is not None:
                headers["Retry-After"] = text
        if fault == "drop":
            self.close_connection = True
            lab._record(method, path, status, key, fault)
            return
        if fault == "bad_retry_after":
            headers["Retry-After"] = "soon"
        raw = b'{"id": "o-114", "value": -4.' if fault == "bad_json" else None
        row = lab._record(method, path, status, key, fault)
        try:
            self._reply(status, payload, headers, raw=raw, cut=fault == "truncate")
        except OSError:
            self.close_connection = True
            lab._amend(row, "client gone")

    def _check_headers(self, key: str | None) -> Reply | None:
        """RFC 9112 section 3.2: an HTTP/1.1 request has exactly one Host; a valid key."""
        bad = [name for name in self.headers if not _TOKEN.fullmatch(name)]
        if self.headers.defects or self.headers.get_payload():
            # the parser stopped at a line that is not "name: value" (such as
            # "Content-Length : 5") and kept the rest aside: that line is refused
            text = str(self.headers.get_payload()).split("\n", 1)[0]
            bad = [text.split(":", 1)[0] or text]
        if bad:
            self.close_connection = True  # the rest of the stream is not read as a request
            return 400, {"code": "bad_header",
                         "message": f"the field name {bad[0][:40]!r} is not a token; RFC 9112 "
                                    "section 5.1 allows no whitespace before the colon"}, {}
        keys = self.headers.get_all("Idempotency-Key") or []
        if len(keys) > 1:
            self.close_connection = True
            return 400, {"code": "bad_header",
                         "message": f"{len(keys)} Idempotency-Key headers: a request has one "
                                    "key, or none"}, {}
        if keys:
            try:
                parse_key(keys[0])
            except ValueError as e:
                return 400, {"code": "bad_header", "message": str(e)}, {}
        hosts = self.headers.get_all("Host") or []
        if len(hosts) > 1 or (self.request_version == "HTTP/1.1" and not hosts):
            self.close_connection = True
            return 400, {"code": "bad_header",
                         "message": f"an HTTP/1.1 request needs exactly one Host header "
                                    f"(RFC 9112 section 3.2); this one has {len(hosts)}"}, {}
        if key is not None and (not 0 < len(key) <= MAX_KEY or not key.isprintable()):
            return 400, {"code": "bad_header",
                         "message": f"Idempotency-Key {key[:40]!r} is not 1 to {MAX_KEY} "
                                    "printable characters"}, {}
        return None

    def _read_body(self) -> tuple[bytes | None, Reply | None]:
        """The request body, or an error answer; ``None`` if the client left."""
        coding = self.headers.get("Transfer-Encoding")
        if coding is not None:
            self.close_connection = True
            codings = [c.strip().lower() for c in coding.split(",")]
            if codings != ["chunked"]:
                return b"", (501, {"code": "not_implemented",
                                   "message": f"Transfer-Encoding {coding!r} is not "
                                              "supported; send the body with a "
                                              "Content-Length"}, {})
            return b"", (411, {"code": "length_required",
                               "message": "send the body with a Content-Length"}, {})
        lengths = self.headers.get_all("Content-Length") or []
        if not lengths:
            return b"", None
        text = lengths[0].strip()
        # isdigit() alone accepts '²' and '٣'; RFC 9110 8.6 allows ASCII digits only
        if len(set(lengths)) > 1 or not (text.isascii() and text.isdigit()) \
                or len(text) > _MAX_LENGTH_DIGITS:  # and int() of 5,000 digits raises
            self.close_connection = True
            shown = lengths[0] if len(lengths) == 1 else ", ".join(lengths)
            return b"", (400, {"code": "bad_header",
                               "message": f"Content-Length {shown!r} is not one whole "
                                          "number of bytes"}, {})
        n = int(text)
        limit = self.lab.max_body
        self._io.body(self.lab.body_timeout)
        try:
            if n > limit:
                if n <= _DRAIN_LIMIT:
                    _ = self.rfile.read(n)  # read it so the connection stays usable
                else:
                    self.close_connection = True
                return b"", (413, {"code": "too_large",
                                   "message": f"the body has {n} bytes; at most {limit} "
                                              "are accepted"}, {})
            data = self.rfile.read(n)
        except TimeoutError:
            return None, None  # the client stopped sending: treated as gone
        finally:
            self._io.clear()
        if len(data) < n:
            return None, None
        return data, None

    def _reply(self, status: int, payload: Any, headers: dict[str, str],
               raw: bytes | None = None, cut: bool = False) -> None:
        body = raw if raw is not None else json.dumps(payload).encode("utf-8")
        if cut:
            self.close_connection = True
        self.send_response(status)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        for name, value in headers.items():
            self.send_header(name, value)
        if self.close_connection:
            self.send_header("Connection", "close")
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body[:len(body) // 2] if cut else body)
