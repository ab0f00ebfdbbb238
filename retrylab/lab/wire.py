"""The lab's sockets: HTTP/1.1 on loopback with h11, one thread per connection.

h11 (the sans-IO HTTP/1.1 library under httpx) reads and writes the messages, so
the framing is right by construction: a request's body is read to its end (or
the connection is closed) before the next request is parsed, and an answer that
has no body (to HEAD, 204, 304) is sent without one. This module moves bytes
between h11 and the sockets and does the faults that happen on the socket: no
answer, a cut answer, a reset. What to answer is the caller's: a function from
:class:`Request` to :class:`Answer` (:class:`~retrylab.lab.server.LabServer`).

Bounds, so that a test or a student cannot hang the lab: h11's limit on a
request's line and headers (16 KiB), a body cap (a larger body is read and
dropped up to :data:`DRAIN_LIMIT`, then answered 413; beyond it the connection
is closed), and an idle timeout on every read.
"""

from __future__ import annotations

import contextlib
import socket
import struct
import threading
from collections.abc import Callable
from dataclasses import dataclass, field
from http import HTTPStatus

import h11

DRAIN_LIMIT = 1024 * 1024  # an oversized body up to this is read and dropped
BACKLOG = 1024  # pending connections the kernel queues (capped by somaxconn)
#: What an answer may do on the socket instead of being written in full:
#: ``close`` writes nothing and closes; ``truncate`` writes the head and half the
#: body, then closes; ``reset`` writes nothing and resets the connection (RST).
ACTIONS = (None, "close", "truncate", "reset")


@dataclass(frozen=True)
class Request:
    """One request as read: ``body`` is ``None`` if the client left in its middle;
    ``error`` is (status, message) for a request h11 refused or a body too large."""

    method: str
    target: str
    headers: list[tuple[str, str]]
    body: bytes | None
    error: tuple[int, str] | None = None

    def header(self, name: str) -> list[str]:
        """Every value of the header ``name`` (lower case), in order."""
        return [v for k, v in self.headers if k == name]


@dataclass
class Answer:
    """What to send: status, headers, body, and what to do on the socket."""

    status: int
    headers: list[tuple[str, str]] = field(default_factory=list)
    body: bytes = b""
    action: str | None = None
    close: bool = False
    lost: Callable[[], None] | None = None  # called if the answer could not be written


class Listener:
    """Accepts connections on ``host`` and a free port; each is served by ``answer``.

    :attr:`in_flight` counts the requests from their headers read until their
    answer is written. :meth:`close` stops accepting and shuts every open
    connection down at once.
    """

    def __init__(
        self, host: str, answer: Callable[[Request], Answer], *, max_body: int, idle_timeout: float
    ) -> None:
        self._answer = answer
        self._max_body = max_body
        self._idle = idle_timeout
        self._lock = threading.Lock()
        self._conns: set[socket.socket] = set()
        self._closing = False
        self.in_flight = 0
        family = socket.AF_INET6 if ":" in host else socket.AF_INET
        self._sock = socket.socket(family, socket.SOCK_STREAM)
        self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        self._sock.bind((host, 0))
        self._sock.listen(BACKLOG)
        bound = self._sock.getsockname()
        self.address: tuple[str, int] = (str(bound[0]), int(bound[1]))
        self._thread = threading.Thread(
            target=self._accept, daemon=True, name=f"retrylab-lab-{self.address[1]}"
        )
        self._thread.start()

    def close(self) -> None:
        """Stop accepting, free the port, shut down every open connection."""
        with self._lock:
            if self._closing:
                return
            self._closing = True
            conns = list(self._conns)
        with contextlib.suppress(OSError):  # wake the accept loop at once
            socket.create_connection(self.address, timeout=1.0).close()
        self._thread.join(timeout=2.0)
        self._sock.close()
        for conn in conns:
            with contextlib.suppress(OSError):
                conn.shutdown(socket.SHUT_RDWR)

    def _accept(self) -> None:
        while not self._closing:
            try:
                conn, _ = self._sock.accept()
            except OSError:  # out of descriptors, say: wait a little, never spin
                threading.Event().wait(0.05)
                continue
            with self._lock:
                if self._closing:
                    conn.close()
                    return
                self._conns.add(conn)
            threading.Thread(target=self._serve, args=(conn,), daemon=True).start()

    def _count(self, change: int) -> None:
        with self._lock:
            self.in_flight += change

    # -- one connection -------------------------------------------------------------

    def _serve(self, sock: socket.socket) -> None:
        sock.settimeout(self._idle)
        sock.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
        conn = h11.Connection(h11.SERVER)
        try:
            while self._exchange(conn, sock):
                conn.start_next_cycle()
        except (OSError, h11.ProtocolError):  # the client went away, or the idle timeout
            pass
        finally:
            with self._lock:
                self._conns.discard(sock)
            with contextlib.suppress(OSError):
                sock.close()

    def _exchange(self, conn: h11.Connection, sock: socket.socket) -> bool:
        """Read one request, answer it; True if the connection can serve another."""
        try:
            event = _next(conn, sock)
        except h11.RemoteProtocolError as e:  # answered with its status, then closed
            event = Request("?", "?", [], b"", (e.error_status_hint, str(e)))
        if not isinstance(event, (h11.Request, Request)):
            return False  # closed, or idle too long
        self._count(1)
        try:
            request = self._read(conn, sock, event) if isinstance(event, h11.Request) else event
            answer = self._answer(request)
            written = self._write(conn, sock, request, answer)
        finally:
            self._count(-1)
        return (
            written
            and not answer.close
            and conn.our_state is h11.DONE
            and conn.their_state is h11.DONE
        )

    def _read(self, conn: h11.Connection, sock: socket.socket, head: h11.Request) -> Request:
        """The whole request: its body read to the end, or dropped when too large."""
        headers = [(k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in head.headers]
        method, target = head.method.decode("ascii"), head.target.decode("latin-1")
        lengths = [int(v) for k, v in headers if k == "content-length"]
        if lengths and lengths[0] > DRAIN_LIMIT:  # not worth reading: refused, closed
            return Request(method, target, headers, b"", _too_large(lengths[0], self._max_body))
        parts: list[bytes] = []
        size = 0
        try:
            if conn.they_are_waiting_for_100_continue:
                sock.sendall(
                    conn.send(
                        h11.InformationalResponse(status_code=100, headers=[], reason=b"Continue")
                    )
                    or b""
                )
            while True:
                event = _next(conn, sock)
                if isinstance(event, h11.Data):
                    size += len(event.data)
                    if size > DRAIN_LIMIT:
                        return Request(
                            method, target, headers, b"", _too_large(size, self._max_body)
                        )
                    if size <= self._max_body:
                        parts.append(event.data)
                elif isinstance(event, h11.EndOfMessage):
                    break
                else:  # closed, or idle too long, in the middle of the body
                    return Request(method, target, headers, None)
        except h11.RemoteProtocolError as e:
            return Request(method, target, headers, b"", (e.error_status_hint, str(e)))
        except OSError:
            return Request(method, target, headers, None)
        if size > self._max_body:
            return Request(method, target, headers, b"", _too_large(size, self._max_body))
        return Request(method, target, headers, b"".join(parts))

    def _write(
        self, conn: h11.Connection, sock: socket.socket, request: Request, answer: Answer
    ) -> bool:
        """Send ``answer`` as it says; False if the connection is done with."""
        if answer.action in ("close", "reset"):
            if answer.action == "reset":  # SO_LINGER 0: close() sends RST, not FIN
                sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
            return False
        status = answer.status
        empty = request.method == "HEAD" or status in (204, 304)
        headers = list(answer.headers)
        if status not in (204, 304):
            headers.append(("Content-Length", str(len(answer.body))))
        if answer.close or answer.action == "truncate" or conn.their_state is not h11.DONE:
            headers.append(("Connection", "close"))
        phrase = HTTPStatus(status).phrase if status in _PHRASES else ""
        try:
            data = conn.send(
                h11.Response(status_code=status, headers=headers, reason=phrase.encode("ascii"))
            )
            body = b"" if empty else answer.body
            if answer.action == "truncate":
                data += conn.send(h11.Data(data=body[: len(body) // 2])) if body else b""
            else:
                if body:
                    data += conn.send(h11.Data(data=body))
                data += conn.send(h11.EndOfMessage())
        except h11.LocalProtocolError:  # h11 refuses to send this answer: close instead
            return False
        try:
            sock.sendall(data or b"")
        except OSError:
            if answer.lost is not None:
                answer.lost()
            return False
        return answer.action != "truncate"


def _next(conn: h11.Connection, sock: socket.socket) -> object:
    """h11's next event, reading from the socket as it needs; closed at the idle timeout."""
    while True:
        event = conn.next_event()
        if event is not h11.NEED_DATA:
            return event
        try:
            data = sock.recv(65536)
        except TimeoutError:
            return h11.ConnectionClosed()
        conn.receive_data(data)


def _too_large(size: int, limit: int) -> tuple[int, str]:
    return 413, f"the body has {size} bytes; at most {limit} are accepted"


_PHRASES = {s.value for s in HTTPStatus}
