"""The lab under load and abuse (issue 11, items 9, 10, 11 and the load test).

Loopback only, bounded in count and time: a few seconds in all.
"""

from __future__ import annotations

import json
import socket
import threading
import time

import pandas as pd
import pytest
from _idle import idle_closes
from _waiting import wait_until
from test_lab import raw_exchange

from retrylab import Mulberry32, RetryPolicy
from retrylab.lab.client import KEEPALIVE, Connection, KeyMaker, http_send
from retrylab.lab.server import IDLE_TIMEOUT, LabServer


@pytest.fixture
def lab():
    with LabServer() as server:
        yield server


def one_shot_gets(lab: LabServer, n: int, timeout: float) -> list[str]:
    """``n`` threads connect at the same moment and send one GET each; the errors."""
    barrier = threading.Barrier(n)
    errors: list[str] = []

    def get() -> None:
        barrier.wait()
        try:
            with socket.create_connection(lab.address, timeout=timeout) as s:
                s.sendall(b"GET /report HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                data = b""
                while chunk := s.recv(65536):
                    data += chunk
            assert data.startswith(b"HTTP/1.1 429"), data[:40]
        except (OSError, AssertionError) as e:
            errors.append(type(e).__name__)

    threads = [threading.Thread(target=get) for _ in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout + 5)
    return errors


# -- item 9: the listen backlog ----------------------------------------------------


def test_200_simultaneous_one_shot_gets_all_get_answers(lab: LabServer) -> None:
    """With socketserver's backlog of 5, 59 of 200 timed out after 10 s (before)."""
    errors = one_shot_gets(lab, 200, timeout=10)
    assert errors == []
    assert lab.requests == 200


# -- item 10: idle connections are timed out ------------------------------------------


def test_idle_connections_are_closed_after_the_idle_timeout() -> None:
    """Before: idle sockets held their threads, and none was ever closed."""
    with LabServer(idle_timeout=0.3) as lab:
        idle = [socket.create_connection(lab.address, timeout=5) for _ in range(20)]
        half = socket.create_connection(lab.address, timeout=5)  # stops mid-request
        half.sendall(b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{")
        closed = 0
        for s in [*idle, half]:  # closed by the server once idle 0.3 s
            with s:
                try:
                    closed += s.recv(1) == b""
                except OSError:
                    closed += 1
        wait_until(lambda: lab.requests == 1)
        log = lab.log
    assert closed == 21
    assert log[["status", "fault"]].astype(object).values.tolist() == [[pd.NA, "client gone"]]


def test_idle_timeout_is_configurable_and_checked() -> None:
    with LabServer() as lab:
        assert lab.idle_timeout == IDLE_TIMEOUT == 5.0
    with pytest.raises(ValueError, match=r"idle_timeout=0 is out of range"):
        LabServer(idle_timeout=0)


def test_a_keep_alive_connection_survives_the_servers_idle_timeout() -> None:
    with LabServer(idle_timeout=0.2) as lab, Connection(lab.url) as conn:
        assert conn.request("GET", "/report").status == 429
        time.sleep(0.4)  # the server has closed the idle connection; the client reconnects
        assert conn.request("GET", "/report").status == 429


def test_a_request_on_a_connection_the_server_is_closing_never_arrives() -> None:
    """The hazard that ``keepalive`` avoids: the lab's idle timeout has fired, and the
    request written just then is lost, though the client cannot tell it from an answer
    lost after storing (its outcome says the server may have acted)."""
    clock = [0.0]
    with (
        idle_closes() as idle,
        LabServer("store", idle_timeout=60) as lab,
        Connection(lab.url, keepalive=120, clock=lambda: clock[0]) as conn,
    ):
        assert conn.request("POST", "/measurements", {"value": 1}).kind == "success"
        clock[0] = 60.0
        idle.fire()
        lost = conn.request("POST", "/measurements", {"value": 2})  # reused: within keepalive
        assert (lost.kind, lost.sent) == ("network", True)
        assert (lab.requests, lab.record_count) == (1, 1)  # it never reached the server


def test_a_connection_rested_past_keepalive_is_not_reused() -> None:
    """Counted from when the previous request began (before the server began to wait),
    so a keepalive below the server's idle timeout never writes on a closing connection;
    before keepalive, this second write was lost as above."""
    clock = [0.0]
    with (
        idle_closes() as idle,
        LabServer("store", idle_timeout=60) as lab,
        Connection(lab.url, keepalive=30, clock=lambda: clock[0]) as conn,
    ):
        assert conn.request("POST", "/measurements", {"value": 1}).kind == "success"
        clock[0] = 60.0  # the client rested as long as the lab waits
        idle.fire()
        assert conn.request("POST", "/measurements", {"value": 2}).kind == "success"
        assert (lab.requests, lab.record_count) == (2, 2)
    assert KEEPALIVE < IDLE_TIMEOUT
    with pytest.raises(ValueError, match=r"keepalive=-1 is out of range"):
        Connection("http://127.0.0.1:1", keepalive=-1)


def test_keepalive_zero_opens_a_connection_per_request() -> None:
    with (
        idle_closes() as idle,
        LabServer("store", idle_timeout=60) as lab,
        Connection(lab.url, keepalive=0, clock=lambda: 0.0) as conn,
    ):
        assert conn.request("POST", "/measurements", {"value": 1}).kind == "success"
        idle.fire()
        assert conn.request("POST", "/measurements", {"value": 2}).kind == "success"
        assert (lab.requests, lab.record_count) == (2, 2)


# -- item 11: bad requests get answers and log entries --------------------------------


@pytest.mark.parametrize(
    ("data", "status", "code"),
    [
        (
            b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: \xb2\r\n\r\nxx",
            400,
            "bad_request",
        ),
        (b"GET /report HTTP/1.1\r\nConnection: close\r\n\r\n", 400, "bad_request"),
        (b"GET /report HTTP/1.1\r\nHost: a\r\nHost: b\r\n\r\n", 400, "bad_request"),
        (
            b"POST /measurements HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nxx",
            501,
            "bad_request",
        ),
        (
            b"POST /measurements HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n"
            b"0\r\n\r\n",
            501,
            "bad_request",
        ),
    ],
    ids=["superscript-two", "no-host", "two-hosts", "gzip", "gzip-chunked"],
)
def test_bad_framing_gets_an_answer_and_a_log_entry(
    lab: LabServer, data: bytes, status: int, code: str
) -> None:
    got, headers, body = raw_exchange(lab, data)
    assert (got, json.loads(body)["code"]) == (status, code)
    assert headers["content-type"] == "application/json"
    assert lab.log["status"].tolist() == [status]
    assert http_send(lab.url + "/report").status == 429


def test_http_1_0_without_host_is_served(lab: LabServer) -> None:
    got, _, _ = raw_exchange(lab, b"GET /report HTTP/1.0\r\n\r\n")
    assert got == 429


def test_a_raw_retry_after_cannot_split_the_labs_answer(lab: LabServer) -> None:
    for bad in ("2\r\nSet-Cookie: x=1", "2\nX: y", "2\r", "zwei\u00e9"):
        with pytest.raises(ValueError, match=r"retry_after=.* is out of range: a raw"):
            lab.script("GET", "/report", retry_after=bad)
    lab.script("GET", "/report", retry_after="soon")  # malformed but harmless: sent as is
    assert "malformed Retry-After 'soon'" in http_send(lab.url + "/report").detail


def test_an_unexpected_error_in_a_route_is_a_500_and_logged(lab: LabServer) -> None:
    def broken(*args: object) -> None:
        raise RuntimeError("bug")

    lab._route = broken  # type: ignore[method-assign]
    out = http_send(lab.url + "/report")
    assert (out.status, out.data["code"]) == (500, "internal")
    assert lab.log[["status", "fault"]].values.tolist() == [[500, "server error"]]


def test_truncate_fault_is_the_same_network_outcome_in_both_clients(lab: LabServer) -> None:
    import asyncio

    from retrylab.lab.client import async_send

    lab.script("GET", "/report", faults=["truncate", "truncate"])
    sync = http_send(lab.url + "/report")
    async_ = asyncio.run(async_send(lab.url + "/report"))
    assert (sync.kind, sync.sent) == (async_.kind, async_.sent) == ("network", True)
    assert sync.detail.startswith("the answer (429) was cut off")


# -- the load and fault test ------------------------------------------------------------


def test_200_concurrent_keep_alive_clients_lose_no_request() -> None:
    """200 threads, one keep-alive connection each, 10 GETs each: 2,000 answers, 0
    failures; then 200 x 3 keyed writes while the server drops 10% of its answers
    after storing: every write acknowledged, none lost, none doubled."""
    clients, gets, writes = 200, 10, 3
    failures: list[str] = []
    acknowledged = [0]
    lock = threading.Lock()
    with LabServer("store", fail_first=0, seed=3) as lab:
        lab.script("POST", "/measurements", fault_rate=0.1, fault="drop", seed=3)
        barrier = threading.Barrier(clients)

        def client(i: int) -> None:
            keys, rng = KeyMaker(seed=i), Mulberry32(i)
            policy = RetryPolicy(max_attempts=8)
            with Connection(lab.url, timeout=10) as conn:
                barrier.wait()
                for _ in range(gets):
                    out = conn.request("GET", "/measurements")
                    if not out.ok:
                        failures.append(out.label() + " " + out.detail)
                for j in range(writes):
                    send = conn.sender(
                        "POST",
                        "/measurements",
                        {"value": float(j), "ref": f"{i}-{j}"},
                        {"Idempotency-Key": keys()},
                    )
                    r = policy.run(send, "POST", rng, None, idempotency_key=True)
                    with lock:
                        acknowledged[0] += r.ok

        threads = [threading.Thread(target=client, args=(i,)) for i in range(clients)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        records = lab.records
        drops = int(lab.log["fault"].eq("drop").sum())
    assert failures == []
    assert acknowledged[0] == clients * writes
    assert len(records) == records["ref"].nunique() == clients * writes
    assert drops > 0
