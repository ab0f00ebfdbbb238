"""The client side: answers -> Outcomes, timeouts through the loop, keys, connections."""

from __future__ import annotations

import asyncio
import random
import socket
import threading
import uuid
from collections.abc import Iterator

import httpx
import pytest
from _ports import refusing_port
from hypothesis import given
from hypothesis import strategies as st

from retrylab import Mulberry32, Outcome, RetryPolicy, StopReason, should_retry
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


@pytest.fixture
def port() -> Iterator[int]:
    """A port that refuses connections, held for the test (:func:`refusing_port`)."""
    with refusing_port() as number:
        yield number


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
    assert network_outcome(ConnectionRefusedError(), 1).sent is False
    assert network_outcome(TimeoutError(), 1).sent is True


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


def test_refused_connection_is_a_network_outcome(port: int) -> None:
    out = http_send(f"http://127.0.0.1:{port}/measurements", timeout=0.5)
    assert out.kind == "network" and out.detail.startswith("connection refused")


def test_a_refusing_port_cannot_be_given_to_a_lab(port: int) -> None:
    """A probe's port stays its own: a lab binding it (as the lab's Listener does, with
    SO_REUSEADDR) is refused, so a probe never lands in another process's lab."""
    with socket.socket() as other:
        other.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        with pytest.raises(OSError, match=r"in use"):
            other.bind(("127.0.0.1", port))


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
    get = policy.run(
        sender(lab.url + "/report", timeout=0.08), "GET", Mulberry32(20260114), slept.append
    )
    post = policy.run(
        sender(lab.url + "/report", "POST", timeout=0.08),
        "POST",
        Mulberry32(20260114),
        slept.append,
    )
    assert (get.attempts, get.reason, get.outcome.kind) == (3, StopReason.MAX_ATTEMPTS, "network")
    assert get.outcome.detail.startswith("timed out after 0.08 s")
    assert slept == [70, 184]
    assert (post.attempts, post.reason) == (1, StopReason.NOT_RETRYABLE)
    assert "without an idempotency key" in post.message


def test_malformed_retry_after_falls_back_to_the_backoff(lab: LabServer) -> None:
    lab.script("GET", "/report", faults=["bad_retry_after"], cycle=True)
    slept: list[int] = []
    r = RetryPolicy(max_attempts=3).run(
        sender(lab.url + "/report"), "GET", Mulberry32(20260114), slept.append
    )
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
    lab.script(
        "GET", "/a", faults=["close", "slow", "bad_json"], statuses=[None, None, 200], slow=0.5
    )
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


# -- one HTTP implementation for both clients (issue 11, item 2) -----------------------


class CannedServer:
    """A loopback server that answers every connection with the same raw bytes and
    keeps what it received, to test the clients against answers the lab never sends."""

    def __init__(self, answer: bytes, connections: int = 2) -> None:
        self.answer = answer
        self.connections = connections
        self.received: list[bytes] = []
        self.sock = socket.create_server(("127.0.0.1", 0))
        self.sock.settimeout(5)
        self.url = f"http://127.0.0.1:{self.sock.getsockname()[1]}"
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        for _ in range(self.connections):
            try:
                conn, _ = self.sock.accept()
            except OSError:
                return
            with conn:
                conn.settimeout(5)
                data = b""
                while b"\r\n\r\n" not in data:
                    chunk = conn.recv(65536)
                    if not chunk:
                        break
                    data += chunk
                self.received.append(data)
                conn.sendall(self.answer)

    def __enter__(self) -> CannedServer:
        return self

    def __exit__(self, *exc: object) -> None:
        self.sock.close()
        self.thread.join(timeout=5)


def both_clients(url: str, **kw) -> tuple[Outcome, Outcome]:
    """The same request through the blocking and the async client."""
    return http_send(url, **kw), asyncio.run(async_send(url, **kw))


CHUNKED = (
    b"HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n"
    b"Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
    b'10\r\n[{"id": "o-114",\r\n10\r\n "value": -4.2}]\r\n0\r\n\r\n'
)


def test_a_chunked_json_answer_is_a_success_in_both_clients() -> None:
    with CannedServer(CHUNKED) as canned:
        sync, async_ = both_clients(canned.url + "/measurements")
    assert sync == async_ == Outcome.success([{"id": "o-114", "value": -4.2}])


def test_a_truncated_body_is_the_same_network_outcome_in_both_clients() -> None:
    cut = b'HTTP/1.1 200 OK\r\nContent-Length: 40\r\nConnection: close\r\n\r\n[{"id": "o-114"'
    with CannedServer(cut) as canned:
        sync, async_ = both_clients(canned.url + "/measurements")
    assert (sync.kind, sync.sent) == (async_.kind, async_.sent) == ("network", True)
    assert sync.detail == async_.detail
    assert sync.detail.startswith("the answer (200) was cut off before its body ended")
    # the lesson's rule: a GET is retried after it, a keyless POST is not
    assert should_retry(sync, "GET") and not should_retry(sync, "POST")


@pytest.mark.parametrize(
    "value", ["k\r\nIdempotency-Key: injected", "k\ninjected: 1", "k\rx", "k\x00", "cl\u00e9\u2603"]
)
def test_bad_header_values_are_value_errors_before_anything_is_sent(
    lab: LabServer, value: str
) -> None:
    url = lab.url + "/measurements"
    headers = {"Idempotency-Key": value}
    with pytest.raises(ValueError, match=r"headers\['Idempotency-Key'\]=.* is out of range"):
        http_send(url, "POST", {"value": 1}, headers)
    with pytest.raises(ValueError, match=r"headers\['Idempotency-Key'\]=.* is out of range"):
        asyncio.run(async_send(url, "POST", {"value": 1}, headers))
    with pytest.raises(ValueError, match=r"is out of range"):
        async_sender(url, "POST", {"value": 1}, headers)
    with Connection(lab.url) as conn, pytest.raises(ValueError, match=r"is out of range"):
        conn.request("POST", "/measurements", {"value": 1}, headers)
    assert lab.requests == 0, lab.log


def test_bad_header_names_are_value_errors(lab: LabServer) -> None:
    for name in ("Bad Name", "X:Y", "", "Ключ"):
        with pytest.raises(ValueError, match=r"headers: name .* is out of range"):
            asyncio.run(async_send(lab.url + "/report", headers={name: "1"}))
    assert lab.requests == 0


def test_latin1_header_values_arrive_intact(lab: LabServer) -> None:
    sync, async_ = both_clients(lab.url + "/report", headers={"Idempotency-Key": "cl\u00e9"})
    assert sync.status == async_.status == 429
    assert lab.log["key"].tolist() == ["cl\u00e9", "cl\u00e9"]


def test_ipv6_loopback_urls_work_in_both_clients() -> None:
    if not socket.has_ipv6:
        pytest.skip("no IPv6 on this machine")
    try:
        lab = LabServer(host="::1")
    except OSError as e:  # pragma: no cover - a machine without ::1
        pytest.skip(f"cannot listen on ::1: {e}")
    with lab:
        assert lab.url == f"http://[::1]:{lab.port}" and lab.address[0] == "::1"
        sync, async_ = both_clients(lab.url + "/measurements")
        with Connection(lab.url) as conn:
            third = conn.request("GET", "/measurements")
    assert [sync.label(), async_.label(), third.label()] == ["http/503", "http/503", "success"]


def test_lab_listens_only_on_loopback() -> None:
    for host in ("0.0.0.0", "::", "192.168.1.1", "example.com"):
        with pytest.raises(ValueError, match=r"host=.* is out of range: .*loopback"):
            LabServer(host=host)


def test_network_outcomes_say_whether_the_request_was_sent(lab: LabServer, port: int) -> None:
    refused = both_clients(f"http://127.0.0.1:{port}/x", timeout=0.5)
    assert [(o.kind, o.sent) for o in refused] == [("network", False)] * 2
    lab.script("GET", "/slow", latency=0.5, cycle=True)
    timed_out = both_clients(lab.url + "/slow", timeout=0.05)
    assert [(o.kind, o.sent) for o in timed_out] == [("network", True)] * 2
    lab.script("GET", "/closed", faults=["close", "close"])
    closed = both_clients(lab.url + "/closed")
    assert [(o.kind, o.sent) for o in closed] == [("network", True)] * 2
    assert network_outcome(httpx.ConnectTimeout("slow"), 1).sent is False
    assert network_outcome(httpx.WriteError("broken"), 1).sent is None


def test_a_refused_post_is_known_never_to_have_left(port: int) -> None:
    # a rule may retry it even for POST; the lesson's rule treats every network error alike
    out = http_send(f"http://127.0.0.1:{port}/measurements", "POST", {"value": 1}, timeout=0.5)
    assert out.sent is False and out.detail.startswith("connection refused")


# -- a cancellation is never retried (issue 11, item 1) --------------------------------


def test_a_cancel_as_the_answer_arrives_is_never_swallowed_nor_retried(lab: LabServer) -> None:
    """A 503 comes after 20 ms; the task is cancelled 19 to 23 ms after it starts, so
    many cancels land as the answer arrives. Python 3.10/3.11's ``asyncio.wait_for``
    returned the answer then, and the loop sent more requests (before: 13 to 34 of
    120 on this machine); now every task raises CancelledError and nothing more is
    sent. Each task has its own path, so the log tells whose request is whose, and
    the loop's sleep (50 ms) keeps any retry after the cancel."""
    rnd = random.Random(11)
    runs = 120
    policy = RetryPolicy(max_attempts=4)

    async def run_all() -> list[bool]:
        raised = []
        for i in range(runs):
            path = f"/cancel/{i}"
            lab.script("GET", path, statuses=[503], cycle=True, latency=0.02)
            task = asyncio.ensure_future(
                policy.run_async(
                    async_sender(lab.url + path),
                    "GET",
                    Mulberry32(i),
                    sleep=lambda ms: asyncio.sleep(0.05),
                )
            )
            await asyncio.sleep(rnd.uniform(0.019, 0.023))
            task.cancel()
            try:
                await task
            except asyncio.CancelledError:
                raised.append(True)
            else:
                raised.append(False)
        await asyncio.sleep(0.1)  # a swallowed cancel would send its retry by now
        return raised

    raised = asyncio.run(run_all())
    per_path = lab.log.groupby("path").size()
    extra = int((per_path - 1).clip(lower=0).sum())
    assert (raised.count(False), extra) == (0, 0)
    assert per_path.max() <= 1 and len(per_path) >= runs // 2


def test_proxy_settings_in_the_environment_are_ignored(
    lab: LabServer, port: int, monkeypatch
) -> None:
    """The lab's traffic stays on loopback: httpx would otherwise honour HTTP_PROXY."""
    for name in ("HTTP_PROXY", "http_proxy", "ALL_PROXY", "all_proxy"):
        monkeypatch.setenv(name, f"http://127.0.0.1:{port}")
    sync, async_ = both_clients(lab.url + "/report")
    assert sync.status == async_.status == 429


def test_a_connection_keeps_the_path_of_its_base_url() -> None:
    ok = b"HTTP/1.1 200 OK\r\nContent-Length: 2\r\nConnection: close\r\n\r\n[]"
    with CannedServer(ok, connections=2) as canned:
        for base in (canned.url + "/api", canned.url + "/api/"):
            with Connection(base) as conn:
                assert conn.request("GET", "/measurements") == Outcome.success([])
    # before: both went to /measurements, the base's /api dropped
    assert [r.split(b"\r\n")[0] for r in canned.received] == [b"GET /api/measurements HTTP/1.1"] * 2
    with pytest.raises(ValueError, match=r"base_url='http://h/api\?x=1' is out of range"):
        Connection("http://h/api?x=1")


def test_timeout_detail_writes_seconds_the_notebooks_way() -> None:
    """A timeout's seconds in a Turkish detail take the decimal comma, like every number."""
    from retrylab.i18n import language
    from retrylab.lab.client import network_outcome

    with language("tr"):
        turkish = network_outcome(TimeoutError(), 0.1).detail
        whole = network_outcome(TimeoutError(), 2.0).detail
    assert turkish.startswith("0,1 s sonra zaman aşımı"), turkish
    assert whole.startswith("2 s sonra"), whole
    assert network_outcome(TimeoutError(), 0.1).detail.startswith("timed out after 0.1 s")
