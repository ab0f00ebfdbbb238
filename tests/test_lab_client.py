"""The client side: answers -> Outcomes, timeouts through the loop, keys, connections."""

from __future__ import annotations

import asyncio
import socket
import uuid

import pytest
from hypothesis import given
from hypothesis import strategies as st

from retrylab import Mulberry32, Outcome, RetryPolicy, StopReason
from retrylab.lab.client import (
    Connection,
    KeyMaker,
    async_send,
    async_sender,
    http_send,
    network_outcome,
    response_outcome,
    sender,
)
from retrylab.lab.server import LabServer


@pytest.fixture
def lab():
    with LabServer() as server:
        yield server


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# -- classifying an answer (no sockets) ------------------------------------------

def test_success_kinds() -> None:
    assert response_outcome(200, None, b"[1, 2]") == Outcome.success([1, 2])
    assert response_outcome(204, None, b"") == Outcome.success(None)
    body = response_outcome(201, None, b'{"id": ')
    assert body.kind == "body" and body.detail.startswith("201 with a body that is not JSON")


def test_error_body_that_is_not_json_is_kept_as_text() -> None:
    out = response_outcome(502, None, b"<html>bad gateway</html>")
    assert (out.status, out.data) == (502, "<html>bad gateway</html>")
    assert out.detail == "the error body is not JSON"


def test_http_date_needs_the_clock() -> None:
    out = response_outcome(503, "Wed, 14 Jan 2026 10:00:05 GMT", b"{}", now=1768384800.0)
    assert out.retry_after == 5.0
    unknown = response_outcome(503, "Wed, 14 Jan 2026 10:00:05 GMT", b"{}", now=None)
    assert unknown.retry_after is None and "current time" in unknown.detail


@given(st.integers(400, 599), st.integers(0, 100_000))
def test_any_whole_seconds_retry_after_is_kept(status: int, seconds: int) -> None:
    out = response_outcome(status, str(seconds), b"")
    assert out.status == status and out.retry_after == seconds and out.detail == ""


@given(st.text(min_size=1, max_size=20).filter(lambda t: not t.strip().isdigit()))
def test_a_malformed_retry_after_never_crashes(text: str) -> None:
    out = response_outcome(429, text, b"{}", now=1768384800.0)
    assert out.status == 429
    if out.retry_after is None:
        assert out.detail.startswith("malformed Retry-After")


def test_network_outcome_words() -> None:
    assert "refused" in network_outcome(ConnectionRefusedError(), 1).detail
    assert "reset" in network_outcome(ConnectionResetError(), 1).detail
    assert network_outcome(OSError("boom"), 1).detail == "OSError: boom"


def test_bad_urls_are_value_errors() -> None:
    with pytest.raises(ValueError, match=r"url='ftp://x' is out of range: url must be an http"):
        http_send("ftp://x")
    with pytest.raises(ValueError, match=r"url='127.0.0.1' is out of range"):
        sender("127.0.0.1")
    with pytest.raises(ValueError, match=r"method='GE T' is out of range"):
        async_sender("http://127.0.0.1:1/", "GE T")
    with pytest.raises(ValueError, match=r"timeout=0 is out of range"):
        Connection("http://127.0.0.1:1", timeout=0)


# -- real sockets --------------------------------------------------------------------

def test_refused_connection_is_a_network_outcome() -> None:
    out = http_send(f"http://127.0.0.1:{free_port()}/measurements", timeout=0.5)
    assert out.kind == "network" and out.detail.startswith("connection refused")


def test_connection_reconnects_after_a_dropped_answer() -> None:
    with LabServer("store") as lab, Connection(lab.url) as conn:
        lab.script("POST", "/measurements", faults=[None, "drop", None])
        kinds = [conn.request("POST", "/measurements", {"value": i}).kind for i in range(3)]
        assert kinds == ["success", "network", "success"]
        assert lab.record_count == 3


def test_timeout_is_retried_for_get_and_not_for_post(lab: LabServer) -> None:
    lab.script("GET", "/report", latency=0.3)
    lab.script("POST", "/report", latency=0.3)
    policy = RetryPolicy(max_attempts=3)
    slept: list[int] = []
    get = policy.run(sender(lab.url + "/report", timeout=0.08), "GET",
                     Mulberry32(20260114), slept.append)
    post = policy.run(sender(lab.url + "/report", "POST", timeout=0.08), "POST",
                      Mulberry32(20260114), slept.append)
    assert (get.attempts, get.reason, get.outcome.kind) == (3, StopReason.MAX_ATTEMPTS, "network")
    assert get.outcome.detail.startswith("timed out after 0.08 s")
    assert slept == [70, 184]
    assert (post.attempts, post.reason) == (1, StopReason.NOT_RETRYABLE)
    assert "without an idempotency key" in post.message


def test_malformed_retry_after_falls_back_to_the_backoff(lab: LabServer) -> None:
    lab.script("GET", "/report", faults=["bad_retry_after"], cycle=True)
    slept: list[int] = []
    r = RetryPolicy(max_attempts=3).run(sender(lab.url + "/report"), "GET",
                                        Mulberry32(20260114), slept.append)
    assert r.attempts == 3 and r.outcome.retry_after is None
    assert slept == [70, 184]  # not 2000: the malformed header is ignored
    assert "malformed Retry-After 'soon'" in r.outcome.detail


def test_async_send_matches_the_blocking_client(lab: LabServer) -> None:
    async def three() -> list[str]:
        return [(await async_send(lab.url + "/measurements")).label() for _ in range(3)]

    assert asyncio.run(three()) == ["http/503", "http/503", "success"]
    report = asyncio.run(async_send(lab.url + "/report", "POST", {"a": 1}))
    assert (report.status, report.retry_after) == (429, 2.0)


def test_async_send_faults(lab: LabServer) -> None:
    lab.script("GET", "/a", faults=["close", "slow", "bad_json"], statuses=[None, None, 200],
               slow=0.5)
    url = lab.url + "/a"
    closed = asyncio.run(async_send(url))
    slow = asyncio.run(async_send(url, timeout=0.1))
    bad = asyncio.run(async_send(url))
    assert closed.kind == "network" and "closed the connection" in closed.detail
    assert slow.kind == "network" and slow.detail.startswith("timed out after 0.1 s")
    assert bad.kind == "body"


def test_key_maker_is_uuid4_and_reproducible_when_seeded() -> None:
    a, b = KeyMaker(seed=3), KeyMaker(seed=3)
    seq = [a() for _ in range(5)]
    assert seq == [b() for _ in range(5)]
    assert len(set(seq)) == 5
    assert all(uuid.UUID(k).version == 4 for k in seq)
    assert KeyMaker()() != KeyMaker()()
    assert a.made == 5
    with pytest.raises(ValueError, match=r"seed=-1 is out of range"):
        KeyMaker(seed=-1)
