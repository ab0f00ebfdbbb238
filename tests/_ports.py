"""A loopback port that refuses connections, and that no server can be given meanwhile.

A port found by binding and closing a socket (``bind(0)``, ``getsockname``, ``close``)
is free for anyone the moment it is closed: the system may hand it to a lab that
another process (a notebook built alongside, another test worker) starts just then,
and the probe that expected "connection refused" lands in that lab, which counts it
among its requests. :func:`refusing_port` keeps the port bound, without listening,
for as long as it is used: a connection is refused, and a server's ``bind`` fails.
"""

from __future__ import annotations

import socket
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def refusing_port(host: str = "127.0.0.1") -> Iterator[int]:
    """A port on ``host`` that refuses every connection until the block ends."""
    with socket.socket() as sock:
        sock.bind((host, 0))
        yield int(sock.getsockname()[1])
