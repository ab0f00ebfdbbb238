"""The lab server over real loopback sockets: routes, scripts, faults, bad input, life cycle."""

from __future__ import annotations

import json
import socket
import threading
from datetime import datetime, timezone

import pytest
from _waiting import wait_until

from retrylab.lab.client import Connection, http_send
from retrylab.lab.server import FAULTS, LabServer, validate_measurement


@pytest.fixture
def lab():
    with LabServer() as server:
        yield server


@pytest.fixture
def store():
    with LabServer("store") as server:
        yield server


def raw_exchange(lab: LabServer, data: bytes) -> tuple[int, dict[str, str], bytes]:
    """Send raw bytes, read one answer: (status, lower-case headers, body)."""
    with socket.create_connection(lab.address, timeout=2) as s:
        s.sendall(data)
        buf = b""
        while b"\r\n\r\n" not in buf:
            chunk = s.recv(65536)
            assert chunk, f"connection closed early after {buf!r}"
            buf += chunk
        head, _, rest = buf.partition(b"\r\n\r\n")
        lines = head.decode("latin-1").split("\r\n")
        headers = {
            k.strip().lower(): v.strip() for k, _, v in (ln.partition(":") for ln in lines[1:])
        }
        n = int(headers["content-length"])
        while len(rest) < n:
            rest += s.recv(65536)
        return int(lines[0].split()[1]), headers, rest[:n]


# -- the lesson's routes -------------------------------------------------------------


def test_lesson_routes_answer_as_the_lesson_server(lab: LabServer) -> None:
    url = lab.url
    got = [http_send(url + "/measurements") for _ in range(3)]
    assert [o.label() for o in got] == ["http/503", "http/503", "success"]
    assert got[0].data == {
        "code": "unavailable",
        "message": "the station is not answering right now",
    }
    assert got[2].data == [{"id": "o-114", "value": -4.2}]
    post = http_send(url + "/measurements", "POST")
    assert (post.status, post.data["code"]) == (422, "validation")
    report = http_send(url + "/report")
    assert (report.status, report.retry_after, report.data["code"]) == (429, 2.0, "rate_limited")
    missing = http_send(url + "/missing", "DELETE")
    assert (missing.status, missing.data["code"]) == (404, "no_route")
    assert lab.measurement_requests == 3
    assert lab.requests == 6


def test_every_body_is_json_with_its_content_type(lab: LabServer) -> None:
    for path in ("/measurements", "/report", "/nowhere"):
        status, headers, body = raw_exchange(
            lab, f"GET {path} HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".encode()
        )
        assert headers["content-type"] == "application/json"
        assert isinstance(json.loads(body), (dict, list)), (status, body)


def test_log_is_a_dataframe_of_every_request(lab: LabServer) -> None:
    http_send(lab.url + "/measurements")
    http_send(lab.url + "/report", headers={"Idempotency-Key": "k-1"})
    log = lab.log
    assert list(log.columns) == ["time", "method", "path", "status", "key", "fault"]
    assert log["status"].tolist() == [503, 429]
    assert log["key"].isna().tolist() == [True, False] and log["key"].iloc[1] == "k-1"
    assert log["path"].tolist() == ["/measurements", "/report"]
    assert (log["time"].diff().dropna() >= 0).all()


def test_fail_first_is_the_lessons_counter(lab: LabServer) -> None:
    with LabServer(fail_first=0) as quick:
        assert http_send(quick.url + "/measurements").ok
    with LabServer(fail_first=4) as slow:
        labels = [http_send(slow.url + "/measurements").label() for _ in range(5)]
    assert labels == ["http/503"] * 4 + ["success"]


def test_head_has_no_body_but_counts(lab: LabServer) -> None:
    with Connection(lab.url) as conn:
        assert conn.request("HEAD", "/measurements").label() == "http/503"
        assert conn.request("GET", "/measurements").label() == "http/503"
    assert lab.measurement_requests == 2


def test_reset_forgets_everything_but_keeps_the_port(lab: LabServer) -> None:
    port = lab.port
    http_send(lab.url + "/measurements")
    lab.script("GET", "/report", statuses=[500])
    lab.reset()
    assert (lab.measurement_requests, lab.requests, lab.port) == (0, 0, port)
    assert http_send(lab.url + "/report").status == 429


# -- scripts and faults ---------------------------------------------------------------


def test_script_statuses_then_the_usual_answer(lab: LabServer) -> None:
    lab.script("GET", "/report", statuses=[500, None, 502], retry_after=1)
    got = [http_send(lab.url + "/report") for _ in range(4)]
    # the script's Retry-After goes on every error answer of the route, its own 429 too
    assert [(o.status, o.retry_after) for o in got] == [
        (500, 1.0),
        (429, 1.0),
        (502, 1.0),
        (429, 1.0),
    ]
    assert got[0].data == {"code": "scripted", "status": 500, "message": "Internal Server Error"}


def test_script_cycle_repeats(lab: LabServer) -> None:
    lab.script("GET", "/x", statuses=[503, 200], cycle=True)
    labels = [http_send(lab.url + "/x").label() for _ in range(4)]
    assert labels == ["http/503", "success", "http/503", "success"]


def test_unscript_restores_the_route(lab: LabServer) -> None:
    lab.script("GET", "/report", statuses=[500], cycle=True)
    assert http_send(lab.url + "/report").status == 500
    lab.unscript("GET", "/report")
    assert http_send(lab.url + "/report").status == 429


def test_close_fault_is_a_network_error_and_handles_nothing(store: LabServer) -> None:
    store.script("POST", "/measurements", faults=["close"])
    first = http_send(store.url + "/measurements", "POST", {"value": 1.5})
    assert first.kind == "network"
    assert "closed the connection" in first.detail
    assert store.record_count == 0
    second = http_send(store.url + "/measurements", "POST", {"value": 1.5})
    assert second.label() == "success" and store.record_count == 1
    assert store.log["fault"].isna().tolist() == [False, True]
    assert store.log["fault"].iloc[0] == "close"
    assert store.log["status"].isna().tolist() == [True, False]


def test_drop_fault_stores_then_loses_the_answer(store: LabServer) -> None:
    store.script("POST", "/measurements", faults=["drop"])
    out = http_send(store.url + "/measurements", "POST", {"value": -4.2, "ref": 1})
    assert out.kind == "network"
    assert store.record_count == 1, "the server acted although the client saw no answer"
    assert store.log.iloc[0][["status", "fault"]].tolist() == [201, "drop"]


def test_fail_after_acts_then_answers_500(store: LabServer) -> None:
    store.script("POST", "/measurements", faults=["fail_after", "fail_after"])
    url = store.url + "/measurements"
    out = http_send(url, "POST", {"value": 1}, {"Idempotency-Key": "k-1"})
    assert (out.status, out.data["code"]) == (500, "internal")
    assert store.record_count == 1
    # a retry with the same key is answered from the first result, even if it fails again
    assert http_send(url, "POST", {"value": 1}, {"Idempotency-Key": "k-1"}).status == 500
    again = http_send(url, "POST", {"value": 1}, {"Idempotency-Key": "k-1"})
    assert again.ok and again.data["id"] == "o-115"
    assert store.record_count == 1


def test_bad_retry_after_is_treated_as_absent_and_named(lab: LabServer) -> None:
    lab.script("GET", "/report", faults=["bad_retry_after"])
    out = http_send(lab.url + "/report")
    assert (out.status, out.retry_after) == (429, None)
    assert out.detail.startswith("malformed Retry-After 'soon' ignored: retry_after='soon'")


def test_raw_retry_after_string_is_sent_as_is(lab: LabServer) -> None:
    lab.script("GET", "/report", retry_after="-3")
    out = http_send(lab.url + "/report")
    assert out.retry_after is None and "'-3'" in out.detail


def test_http_date_retry_after(lab: LabServer) -> None:
    when = datetime(2026, 1, 14, 10, 0, 5, tzinfo=timezone.utc)
    lab.script("GET", "/report", retry_after=when)
    now = datetime(2026, 1, 14, 10, 0, 0, tzinfo=timezone.utc).timestamp()
    out = http_send(lab.url + "/report", now=lambda: now)
    assert out.retry_after == 5.0 and out.retry_after_ms == 5000
    past = http_send(lab.url + "/report", now=lambda: now + 60)
    assert past.retry_after == 0.0


def test_bad_json_fault_is_a_body_error(lab: LabServer) -> None:
    lab.script("GET", "/measurements", statuses=[200], faults=["bad_json"])
    out = http_send(lab.url + "/measurements")
    assert out.kind == "body"
    assert "not JSON" in out.detail
    assert 'b\'{"id": "o-114", "value": -4.\'' in out.detail


def test_bad_json_on_the_seeds_route_cuts_the_seeds_record(lab: LabServer) -> None:
    """On /olcumler the cut-off record is the seed's, {kimlik, deger}, as 01 shows it."""
    lab.script("GET", "/olcumler", statuses=[200], faults=["bad_json"])
    out = http_send(lab.url + "/olcumler")
    assert out.kind == "body"
    assert 'b\'{"kimlik": "o-114", "deger": -' in out.detail, out.detail


def test_slow_fault_times_the_client_out(lab: LabServer) -> None:
    lab.script("GET", "/measurements", faults=["slow"], slow=10)
    out = http_send(lab.url + "/measurements", timeout=0.1)
    # the client's 0.1 s, not the server's 10 s (which would end in the slow answer's
    # data): the outcome says which, not the clock
    assert out.kind == "network" and out.detail.startswith("timed out after 0.1 s")


def test_fault_rate_is_reproducible_from_the_seed() -> None:
    """The seed picks which requests are dropped, and only those fail.

    The client waits 30 s, not the lab's 2 s: on a loaded machine an answered
    request once took longer than 2 s, and its timeout read as a 24th drop.
    """
    patterns = []
    for _ in range(2):
        with LabServer("store", seed=11) as lab, Connection(lab.url, timeout=30) as conn:
            lab.script("POST", "/measurements", fault_rate=0.3, fault="drop")
            outcomes = [conn.request("POST", "/measurements", {"value": i}) for i in range(60)]
            kinds = [o.kind for o in outcomes]
            patterns.append(kinds)
            assert lab.record_count == 60
            # one connection, one request at a time: the log is in the client's order
            dropped = lab.log["fault"].eq("drop").tolist()
            wrong = [
                (i, o.label(), o.detail)
                for i, (o, drop) in enumerate(zip(outcomes, dropped, strict=True))
                if (o.kind == "network") != drop
            ]
            assert not wrong, f"requests whose outcome disagrees with the log's drops: {wrong}"
    assert patterns[0] == patterns[1]
    assert 8 <= patterns[0].count("network") <= 30


def test_script_arguments_are_checked(lab: LabServer) -> None:
    with pytest.raises(ValueError, match=r"fault='lost' is out of range: fault must be one of"):
        lab.script("GET", "/x", faults=["lost"])
    with pytest.raises(ValueError, match=r"statuses=700 is out of range"):
        lab.script("GET", "/x", statuses=[700])
    with pytest.raises(ValueError, match=r"fault_rate=1.5 is out of range"):
        lab.script("GET", "/x", fault_rate=1.5)
    with pytest.raises(ValueError, match=r"path='x' is out of range"):
        lab.script("GET", "x")
    with pytest.raises(ValueError, match=r"timezone-aware"):
        lab.script("GET", "/x", retry_after=datetime(2026, 1, 14))
    with pytest.raises(ValueError, match=r"mode='shop' is out of range"):
        LabServer("shop")  # type: ignore[arg-type]
    assert set(FAULTS) == {
        "close",
        "drop",
        "slow",
        "bad_retry_after",
        "bad_json",
        "fail_after",
        "truncate",
        "reset",
    }


# -- store mode and idempotency keys ------------------------------------------------


def test_store_mode_stores_a_measurement(store: LabServer) -> None:
    out = http_send(
        store.url + "/measurements", "POST", {"value": -4.2, "station": "north-slope", "ref": "a"}
    )
    assert out.ok
    assert out.data == {"id": "o-115", "value": -4.2, "station": "north-slope", "ref": "a"}
    rec = store.records
    assert rec[["id", "value", "ref"]].values.tolist() == [["o-115", -4.2, "a"]]


def test_same_key_replays_the_first_answer_and_stores_nothing(store: LabServer) -> None:
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-7"}
    first = http_send(url, "POST", {"value": 3}, key)
    again = http_send(url, "POST", {"value": 3}, key)
    other = http_send(url, "POST", {"value": 3}, {"Idempotency-Key": "k-8"})
    assert first.ok and again.ok and other.ok
    assert (
        again.data
        == first.data
        == {"id": "o-115", "value": 3.0, "station": "north-slope", "ref": None}
    )
    assert other.data["id"] == "o-116"
    assert store.record_count == 2
    assert store.records["key"].tolist() == ["k-7", "k-8"]
    status, headers, body = raw_exchange(
        store,
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nIdempotency-Key: k-7\r\n"
        b'Content-Length: 12\r\nConnection: close\r\n\r\n{"value": 3}',
    )
    assert (status, headers["idempotent-replayed"], json.loads(body)["id"]) == (
        201,
        "true",
        "o-115",
    )


def test_same_key_different_body_is_422(store: LabServer) -> None:
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-9"}
    assert http_send(url, "POST", {"value": 1}, key).ok
    clash = http_send(url, "POST", {"value": 2}, key)
    assert clash.status == 422  # the IETF draft's status (the lab answered 409 before)
    assert clash.data["code"] == "idempotency_key_reused"
    assert "was first used with a different body" in clash.data["message"]
    assert store.record_count == 1
    # the same JSON with other spacing or key order is the same body
    assert http_send(url, "POST", '{ "value" : 1 }', key).ok


def test_validation_errors_are_422_and_store_nothing(store: LabServer) -> None:
    out = http_send(store.url + "/measurements", "POST", {"station": "", "colour": 1})
    assert out.status == 422
    assert out.data == {
        "code": "validation",
        "errors": {
            "value": "is required",
            "station": "must be text of 1 to 64 characters",
            "colour": "unknown field",
        },
    }
    assert store.record_count == 0
    assert validate_measurement([1]) == {"body": 'must be a JSON object such as {"value": -4.2}'}
    assert validate_measurement({"value": True}) == {"value": "must be a finite number"}
    assert validate_measurement({"value": 1, "ref": 2.5}) == {"ref": "must be an integer or text"}


# -- bad input never stops the server -------------------------------------------------

BAD_INPUTS = [
    (
        b'POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 9\r\n\r\n{"value":',
        400,
        "malformed_json",
    ),
    (b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: abc\r\n\r\n", 400, "bad_request"),
    (
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n"
        b"Content-Length: 3\r\n\r\n{}",
        400,
        "bad_request",
    ),
    (
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 20000\r\n\r\n" + b"x" * 20000,
        413,
        "too_large",
    ),
    (
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nIdempotency-Key: "
        + b"k" * 300
        + b"\r\nContent-Length: 2\r\n\r\n{}",
        400,
        "bad_header",
    ),
    (
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 4\r\n\r\n\xff\xfe{}",
        400,
        "malformed_json",
    ),
    (b"GET /a b HTTP/1.1\r\n\r\n", 400, "bad_request"),
    (
        b"POST /measurements HTTP/1.1\r\nHost: x\r\nContent-Length: 9000\r\n\r\n" + b"[" * 9000,
        400,
        "malformed_json",
    ),
    (
        b"GET /measurements HTTP/1.1\r\nHost: x\r\nX-Long: " + b"y" * 20000 + b"\r\n",
        431,
        "bad_request",
    ),  # h11's bound: 16 KiB of request line and headers
]


@pytest.mark.parametrize(
    ("data", "status", "code"),
    BAD_INPUTS,
    ids=[
        "json",
        "length-text",
        "length-twice",
        "oversized",
        "long-key",
        "not-utf8",
        "request-line",
        "deep-json",
        "long-header",
    ],
)
def test_bad_input_gets_a_4xx_json_error_and_the_server_keeps_serving(
    store: LabServer, data: bytes, status: int, code: str
) -> None:
    got, headers, body = raw_exchange(store, data)
    assert got == status
    assert headers["content-type"] == "application/json"
    doc = json.loads(body)
    assert doc["code"] == code and doc["message"]
    assert store.record_count == 0
    assert http_send(store.url + "/measurements", "POST", {"value": 1}).ok
    assert http_send(store.url + "/missing").status == 404


def test_oversized_body_keeps_a_keep_alive_connection_usable(store: LabServer) -> None:
    with Connection(store.url) as conn:
        big = conn.request("POST", "/measurements", b"x" * 20_000)
        assert big.status == 413
        assert "at most 16384" in big.data["message"]
        assert conn.request("POST", "/measurements", {"value": 2}).ok


# -- life cycle ---------------------------------------------------------------------


def test_binds_only_loopback(lab: LabServer) -> None:
    assert lab.address[0] == "127.0.0.1"
    assert lab.url == f"http://127.0.0.1:{lab.port}"
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))
            own_ip = probe.getsockname()[0]
        except OSError:
            own_ip = "0.0.0.0"
    if own_ip not in ("0.0.0.0", "127.0.0.1"):
        with pytest.raises(OSError):
            socket.create_connection((own_ip, lab.port), timeout=0.5).close()


def test_many_servers_start_and_stop_promptly_in_one_process() -> None:
    ports = set()
    for _ in range(20):
        with LabServer() as lab:
            ports.add(lab.port)
            assert http_send(lab.url + "/report").status == 429
        # close() woke its accept loop and joined it, not waited out the join's 2 s
        # timeout with the loop still blocked in accept() (an event, not a clock)
        assert f"retrylab-lab-{lab.port}" not in {t.name for t in threading.enumerate()}
    assert len(ports) >= 2


def test_servers_run_side_by_side_and_close_all() -> None:
    labs = [LabServer() for _ in range(3)]
    assert len({lab.port for lab in labs}) == 3
    for i, lab in enumerate(labs):
        for _ in range(i):
            http_send(lab.url + "/measurements")
    assert [lab.measurement_requests for lab in labs] == [0, 1, 2]
    assert LabServer.close_all() >= 3
    assert all(lab.closed for lab in labs)


def test_close_is_idempotent_and_frees_the_port() -> None:
    lab = LabServer()
    port = lab.port
    lab.close()
    lab.close()
    assert lab.closed
    assert "closed" in repr(lab)
    out = http_send(f"http://127.0.0.1:{port}/report", timeout=0.5)
    assert out.kind == "network" and "refused" in out.detail


def test_in_flight_counts_a_request_from_its_headers_to_its_answer(lab: LabServer) -> None:
    lab.script("GET", "/measurements", latency=0.5)
    assert lab.in_flight == 0
    out = http_send(lab.url + "/measurements", timeout=0.1)
    assert out.kind == "network"  # the client gave up; the server is still on it
    wait_until(lambda: lab.in_flight == 1)
    wait_until(lambda: lab.in_flight == 0)  # done when its latency is over
    assert lab.requests == 1
    with Connection(lab.url) as conn:  # a kept-alive connection holds no request: the
        assert conn.request("GET", "/report").status == 429  # count drops just after the
        wait_until(lambda: lab.in_flight == 0)  # answer, the socket still open


def test_close_is_prompt_with_open_and_busy_connections() -> None:
    lab = LabServer()
    conn = Connection(lab.url)
    assert conn.request("GET", "/report").status == 429  # a keep-alive connection stays open
    lab.script("GET", "/measurements", latency=30)
    waiting = threading.Thread(
        target=http_send, args=(lab.url + "/measurements",), kwargs={"timeout": 30}, daemon=True
    )
    waiting.start()
    wait_until(lambda: lab.in_flight == 1)  # inside its latency (a fixed 0.1 s sleep was
    closer = threading.Thread(target=lab.close, daemon=True)  # too short on a loaded
    closer.start()  # machine once)
    # close() returns while the request still holds its 30 s: waited for, bounded
    wait_until(lambda: not closer.is_alive(), what="close() with a request holding 30 s")
    waiting.join(timeout=2)
    conn.close()
    assert not waiting.is_alive()
    # the handler writes the request's row as it wakes, just after close() returns
    wait_until(lambda: lab.in_flight == 0, what="the closed request's handler ending")
    assert lab.log["fault"].tolist()[-1] == "server closed"


def test_a_server_left_open_is_closed_when_python_exits() -> None:
    import subprocess
    import sys

    # atexit runs hooks last-in first-out: this check, registered before the lab
    # module is imported, runs after the lab's own hook
    code = (
        "import atexit\n"
        "atexit.register(lambda: print('closed at exit:', lab.closed))\n"
        "from retrylab.lab.server import LabServer\n"
        "lab = LabServer()\n"
        "print(lab.port, flush=True)\n"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=30)
    port, last = done.stdout.split("\n")[:2]
    assert done.returncode == 0 and done.stderr == ""
    assert last == "closed at exit: True"
    out = http_send(f"http://127.0.0.1:{int(port)}/report", timeout=0.5)
    assert out.kind == "network"
