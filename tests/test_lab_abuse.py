"""The lab under attack (issue 21, items 5 and 6, and the lab's "Also"): smuggling, slow
drips, huge numbers, garbage request lines, doubled or quoted Idempotency-Keys.

Loopback only, small numbers, small timeouts: every test is bounded in time.
"""

from __future__ import annotations

import socket
import threading
import time

import pytest

from retrylab.lab.client import http_send
from retrylab.lab.server import LabServer


def exchange(lab: LabServer, raw: bytes, wait: float = 2.0) -> bytes:
    """Send ``raw`` on a fresh connection; everything the lab answers until it closes."""
    with socket.create_connection(lab.address, timeout=wait) as s:
        s.sendall(raw)
        s.shutdown(socket.SHUT_WR)
        chunks = []
        try:
            while chunk := s.recv(65536):
                chunks.append(chunk)
        except OSError:
            pass
    return b"".join(chunks)


def test_whitespace_before_the_colon_is_400_and_nothing_is_smuggled() -> None:
    """Before: the field was ignored, and the body was read as a second request that
    stored a measurement (RFC 9112 section 5.1: a server MUST answer 400)."""
    inner = (b'POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\n'
             b'Content-Length: 15\r\n\r\n{"value": -4.2}')
    raw = (b"GET /report HTTP/1.1\r\nHost: lab\r\nContent-Length : " + str(len(inner)).encode()
           + b"\r\n\r\n" + inner)
    with LabServer("store") as lab:
        answer = exchange(lab, raw)
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
        assert answer.count(b"HTTP/1.1 ") == 1       # one answer: no second request
        assert lab.record_count == 0


def test_slow_drips_are_closed_at_the_header_deadline() -> None:
    """Before: a byte every 0.2 s reset the idle timeout, so 4 drippers held all 4
    connections and every other client got 503 for as long as they dripped."""
    with LabServer(max_connections=4, idle_timeout=2.0, header_timeout=0.5) as lab:
        stop = threading.Event()
        cut: list[float] = []

        def drip() -> None:
            start = time.monotonic()
            with socket.create_connection(lab.address, timeout=2) as s:
                try:
                    for byte in b"GET /report HTTP/1.1\r\nHost: lab\r\nX-Slow: " + b"a" * 100:
                        if stop.is_set():
                            return
                        s.sendall(bytes([byte]))
                        time.sleep(0.1)
                except OSError:
                    cut.append(time.monotonic() - start)

        drippers = [threading.Thread(target=drip) for _ in range(4)]
        for t in drippers:
            t.start()
        time.sleep(0.9)      # past the 0.5 s deadline: the lab has closed the drippers
        try:
            answer = http_send(lab.url + "/report", timeout=2)
        finally:
            stop.set()
            for t in drippers:
                t.join(timeout=5)
        assert answer.status == 429, answer   # served, not refused with 503
        assert len(cut) == 4 and max(cut) < 1.5


def test_a_slow_body_is_closed_at_the_body_deadline() -> None:
    with LabServer("store", idle_timeout=2.0, body_timeout=0.4) as lab, \
            socket.create_connection(lab.address, timeout=3) as s:
        s.sendall(b"POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Length: 100\r\n\r\n")
        start = time.monotonic()
        closed = False
        try:
            for _ in range(30):
                s.sendall(b"x")
                time.sleep(0.1)
        except OSError:
            closed = True
        if not closed:
            closed = s.recv(1) == b""
        assert closed and time.monotonic() - start < 2.5
        assert lab.record_count == 0


def test_the_deadlines_are_configurable_and_checked() -> None:
    with LabServer() as lab:
        assert (lab.header_timeout, lab.body_timeout) == (10.0, 10.0)
    with pytest.raises(ValueError, match=r"header_timeout=0 is out of range"):
        LabServer(header_timeout=0)
    with pytest.raises(ValueError, match=r"body_timeout=nan is out of range"):
        LabServer(body_timeout=float("nan"))


def test_a_content_length_of_5000_digits_is_400_not_500() -> None:
    with LabServer() as lab:
        answer = exchange(lab, b"POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Length: "
                          + b"9" * 5000 + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]


@pytest.mark.parametrize(("line", "status"), [(b"GARBAGE", b"400"), (b"\x16\x03\x01 x y", b"400"),
                                              (b"PRI * HTTP/2.0", b"505")])
def test_a_garbage_request_line_gets_a_status_line(line: bytes, status: bytes) -> None:
    """Before: a JSON body without any status line (answered as HTTP/0.9)."""
    with LabServer() as lab:
        answer = exchange(lab, line + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 " + status + b" "), answer[:80]


def test_two_idempotency_keys_are_400() -> None:
    with LabServer("store") as lab:
        answer = exchange(lab, b'POST /measurements HTTP/1.1\r\nHost: lab\r\n'
                          b'Idempotency-Key: k-1\r\nIdempotency-Key: k-2\r\n'
                          b'Content-Length: 15\r\n\r\n{"value": -4.2}')
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
        assert lab.record_count == 0


def test_a_key_in_sf_string_form_is_stored_without_its_quotes() -> None:
    with LabServer("store") as lab:
        url = lab.url + "/measurements"
        first = http_send(url, "POST", {"value": 1}, {"Idempotency-Key": '"abc"'})
        again = http_send(url, "POST", {"value": 1}, {"Idempotency-Key": "abc"})
        assert first.ok and again.ok and again.data == first.data
        assert lab.records["key"].tolist() == ["abc"]
        bad = http_send(url, "POST", {"value": 1}, {"Idempotency-Key": '"abc'})
        assert bad.status == 400
