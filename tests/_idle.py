"""A lab's idle timeout, fired on demand and at its worst moment for the client.

A lab closes a keep-alive connection that has rested ``idle_timeout`` seconds. A
client that writes its next request just then loses it: the server has decided to
close and never reads it. With :class:`IdleCloses` the test decides when a
connection's idle timeout fires (:meth:`IdleCloses.fire`, for a lab whose own
``idle_timeout`` is far off), and the connection's thread then waits until the
client's next bytes arrive on it, and only then closes. A client that reuses a
connection the server is closing therefore always loses its request, and no
wall-clock window is involved: a test that also gives the client a clock of its own
(``Connection(clock=...)``) advances it by the idle timeout before it fires.
"""

from __future__ import annotations

import select
import socket
import threading
from collections.abc import Iterator
from contextlib import contextmanager

import h11
import pytest
from _waiting import wait_until

from retrylab.lab import wire


class IdleCloses:
    """Fires the idle timeout of the lab connection that waits for a request."""

    def __init__(self) -> None:
        self._fire, self._fired_by = socket.socketpair()
        self._fired_by.setblocking(False)
        self._release, self._released_by = socket.socketpair()
        self._taken = threading.Semaphore(0)
        self._lock = threading.Lock()
        self._inside = 0
        self._over = False

    def fire(self) -> None:
        """The waiting connection's idle timeout fires now; return once its thread
        took it (it closes the connection when the client next writes on it)."""
        self._fire.send(b"x")
        assert self._taken.acquire(timeout=10), "no lab connection was waiting"

    def _next(self, conn: h11.Connection, sock: socket.socket) -> object:
        """``wire._next``, but between requests a fire may end the wait instead."""
        with self._lock:
            if self._over or conn.their_state is not h11.IDLE or conn.trailing_data[0]:
                return wire_next(conn, sock)
            self._inside += 1
        try:
            while True:
                ready, _, _ = select.select([sock, self._fired_by, self._released_by], [], [])
                if sock in ready or self._released_by in ready:  # a request, a close, the end
                    return wire_next(conn, sock)
                try:
                    self._fired_by.recv(1)
                except BlockingIOError:  # another connection took this fire
                    continue
                self._taken.release()
                select.select([sock, self._released_by], [], [])
                return h11.ConnectionClosed()  # as wire._next at its idle timeout
        finally:
            with self._lock:
                self._inside -= 1

    def _end(self) -> None:
        with self._lock:
            self._over = True
        self._release.send(b"x")  # every thread still held closes its connection now
        wait_until(lambda: self._inside == 0, what="the held connections to close")
        for s in (self._fire, self._fired_by, self._release, self._released_by):
            s.close()


wire_next = wire._next


@contextmanager
def idle_closes() -> Iterator[IdleCloses]:
    """Within the block, lab connections time out for idleness when the test fires."""
    idle = IdleCloses()
    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "_next", idle._next)
        try:
            yield idle
        finally:
            idle._end()
