"""The lab under attack (issue 21, items 5 and 6; issue 39, items 1 to 3): smuggling,
answers without a body, huge numbers and deep JSON, garbage request lines, doubled,
quoted or refused Idempotency-Keys.

Loopback only, small numbers, small timeouts: every test is bounded in time.
"""

from __future__ import annotations

import json
import re
import socket

import pytest

from retrylab.lab.client import Connection, http_send
from retrylab.lab.server import LabServer, validate_measurement


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
    inner = (
        b"POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Type: application/json\r\n"
        b'Content-Length: 15\r\n\r\n{"value": -4.2}'
    )
    raw = (
        b"GET /report HTTP/1.1\r\nHost: lab\r\nContent-Length : "
        + str(len(inner)).encode()
        + b"\r\n\r\n"
        + inner
    )
    with LabServer("store") as lab:
        answer = exchange(lab, raw)
        assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]
        assert answer.count(b"HTTP/1.1 ") == 1  # one answer: no second request
        assert lab.record_count == 0


def test_a_content_length_of_5000_digits_is_400_not_500() -> None:
    with LabServer() as lab:
        answer = exchange(
            lab,
            b"POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Length: "
            + b"9" * 5000
            + b"\r\n\r\n",
        )
    assert answer.startswith(b"HTTP/1.1 400 "), answer[:80]


@pytest.mark.parametrize(("line", "status"), [(b"GARBAGE", b"400"), (b"\x16\x03\x01 x y", b"400")])
def test_a_garbage_request_line_gets_a_status_line(line: bytes, status: bytes) -> None:
    """Before: a JSON body without any status line (answered as HTTP/0.9)."""
    with LabServer() as lab:
        answer = exchange(lab, line + b"\r\n\r\n")
    assert answer.startswith(b"HTTP/1.1 " + status + b" "), answer[:80]


def test_two_idempotency_keys_are_400() -> None:
    with LabServer("store") as lab:
        answer = exchange(
            lab,
            b"POST /measurements HTTP/1.1\r\nHost: lab\r\n"
            b"Idempotency-Key: k-1\r\nIdempotency-Key: k-2\r\n"
            b'Content-Length: 15\r\n\r\n{"value": -4.2}',
        )
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


def keyed_post(key: bytes, body: bytes) -> bytes:
    return (
        b"POST /measurements HTTP/1.1\r\nHost: lab\r\nIdempotency-Key: "
        + key
        + b"\r\nContent-Length: "
        + str(len(body)).encode()
        + b"\r\n\r\n"
        + body
    )


@pytest.mark.parametrize("key", [b'"abc', b"k" * 300], ids=["unterminated", "too-long"])
def test_a_refused_key_does_not_smuggle_its_body(key: bytes) -> None:
    """Issue 39, item 1. Before: the 400 left the body unread, so the POST hidden in it
    was run and stored, and a second, unasked-for answer came on the connection."""
    hidden = (
        b"POST /measurements HTTP/1.1\r\nHost: lab\r\nContent-Length: 34\r\n\r\n"
        b'{"value": 66.6, "ref": "smuggled"}'
    )
    with LabServer("store") as lab:
        answer = exchange(
            lab,
            keyed_post(key, hidden)
            + b"GET /report HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n",
        )
        statuses = re.findall(rb"HTTP/1\.1 (\d{3}) ", answer)
        assert statuses == [b"400", b"429"], answer[:300]  # in sync: the next request's
        assert lab.record_count == 0
        assert lab.log["status"].tolist() == [400, 429]


@pytest.mark.parametrize("status", [204, 304])
def test_a_scripted_answer_without_a_body_keeps_the_connection_in_sync(status: int) -> None:
    """Issue 39, item 2. Before: the 204/304 carried a JSON body, which the keep-alive
    client read as the next status line: the next POST was stored but reported failed."""
    with LabServer("store") as lab, Connection(lab.url) as conn:
        lab.script("GET", "/report", statuses=[status, status])
        assert conn.request("GET", "/report").label() in ("success", f"http/{status}")
        post = conn.request("POST", "/measurements", {"value": 1})
        assert post.label() == "success" and lab.record_count == 1
        raw = exchange(lab, b"GET /report HTTP/1.1\r\nHost: lab\r\nConnection: close\r\n\r\n")
        assert raw.startswith(f"HTTP/1.1 {status} ".encode()) and raw.endswith(b"\r\n\r\n")


@pytest.mark.parametrize("status", [100, 101, 103])
def test_a_scripted_1xx_is_refused_at_script_time(status: int) -> None:
    """Issue 39, item 2: a 1xx is no final answer (101 broke the client, 103 hung it)."""
    with LabServer() as lab, pytest.raises(ValueError, match=rf"statuses={status} is out"):
        lab.script("GET", "/report", statuses=[status])


def test_deep_json_and_a_huge_integer_are_422_keyed_or_not() -> None:
    """Issue 39, item 3. Before: keyed 900-deep JSON was a 500 (the fingerprint's
    recursion), and a 400-digit value a 500 keyed or not, which a keyed client retried."""
    deep = '{"value": 1, "ref": ' + "[" * 900 + "]" * 900 + "}"
    huge = '{"value": ' + "9" * 400 + "}"
    with LabServer("store") as lab:
        for i, body in enumerate([deep, huge] * 2):
            headers = {"Idempotency-Key": f"k-{i}"} if i >= 2 else None
            out = http_send(lab.url + "/measurements", "POST", body, headers)
            assert (out.status, out.data["code"]) == (422, "validation"), (i, out)
        assert lab.record_count == 0
    assert validate_measurement(json.loads(huge)) == {"value": "must be a finite number"}


def test_a_reset_fault_acts_then_resets_the_connection() -> None:
    with LabServer("store") as lab:
        lab.script("POST", "/measurements", faults=["reset"])
        out = http_send(lab.url + "/measurements", "POST", {"value": 1})
        assert (out.kind, out.sent) == ("network", True), out
        assert lab.record_count == 1
        assert lab.log[["status", "fault"]].values.tolist() == [[201, "reset"]]


def test_the_turkish_seeds_routes_share_the_english_state() -> None:
    """/olcumler is /measurements with the seed's field names; /rapor is /report."""
    with LabServer("store") as lab:
        url = lab.url
        got = [http_send(url + p).label() for p in ("/olcumler", "/measurements", "/olcumler")]
        assert got == ["http/503", "http/503", "success"] and lab.measurement_requests == 3
        assert http_send(url + "/olcumler").data == [{"kimlik": "o-114", "deger": -4.2}]
        assert (http_send(url + "/rapor").status, http_send(url + "/rapor").retry_after) == (
            429,
            2.0,
        )
        key = {"Idempotency-Key": "k-tr"}
        first = http_send(url + "/olcumler", "POST", {"deger": 1.5, "istasyon": "kuzey"}, key)
        again = http_send(url + "/olcumler", "POST", {"deger": 1.5, "istasyon": "kuzey"}, key)
        assert (
            first.data
            == again.data
            == {"kimlik": "o-115", "deger": 1.5, "istasyon": "kuzey", "ref": None}
        )
        wrong = http_send(url + "/olcumler", "POST", {"value": 1})
        assert wrong.data["errors"] == {"deger": "is required", "value": "unknown field"}
        lab.script("GET", "/istasyonlar", statuses=[503])
        assert http_send(url + "/stations").status == 503
        assert lab.records[["id", "value", "station", "key"]].values.tolist() == [
            ["o-115", 1.5, "kuzey", "k-tr"]
        ]
        assert lab.log["path"].tolist()[:2] == ["/olcumler", "/measurements"]
