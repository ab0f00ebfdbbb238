"""The worst moment for a lab's idle timeout, on demand: after it fired, before the close.

A lab closes a keep-alive connection that has rested ``idle_timeout`` seconds. A
client that writes its next request just then loses it: the server has decided to
close and never reads it. :func:`idle_closes_held` makes that moment last: once a
connection's idle timeout has fired, its thread waits until the client's next bytes
arrive on it, and only then closes. A client that reuses a connection the server is
closing therefore always loses its request; no wall-clock window is involved.
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


@contextmanager
def idle_closes_held() -> Iterator[threading.Semaphore]:
    """Hold every lab connection whose idle timeout fires until the client writes on it
    (or the block ends); yields a semaphore released each time an idle timeout fires
    (``fired.acquire(timeout=10)`` waits for one; a fire is never missed)."""
    fired = threading.Semaphore(0)
    wake, woken = socket.socketpair()
    real = wire._next
    lock = threading.Lock()
    state = {"holding": 0, "over": False}

    def held(conn: h11.Connection, sock: socket.socket) -> object:
        event = real(conn, sock)
        # between requests (h11's IDLE) and not the client's own close (that is CLOSED)
        if not isinstance(event, h11.ConnectionClosed) or conn.their_state is not h11.IDLE:
            return event
        with lock:
            if state["over"]:
                return event
            state["holding"] += 1
        fired.release()
        try:
            select.select([sock, woken], [], [])
        finally:
            with lock:
                state["holding"] -= 1
        return event

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(wire, "_next", held)
        try:
            yield fired
        finally:
            with lock:
                state["over"] = True
            wake.send(b"x")  # every thread still held closes its connection now
            wait_until(lambda: state["holding"] == 0, what="the held connections to close")
            wake.close()
            woken.close()
