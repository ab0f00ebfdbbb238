"""The lab's Idempotency-Key contract against the IETF draft (issue 11, item 12)."""

from __future__ import annotations

import threading
import time

import pytest

from retrylab.lab.client import http_send
from retrylab.lab.idempotency import KeyStore, fingerprint
from retrylab.lab.server import LabServer


@pytest.fixture
def store():
    with LabServer("store") as server:
        yield server


def test_another_payload_under_a_used_key_is_422(store: LabServer) -> None:
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-1"}
    assert http_send(url, "POST", {"value": 1}, key).ok
    clash = http_send(url, "POST", {"value": 2, "ref": "x"}, key)
    assert (clash.status, clash.data["code"]) == (422, "idempotency_key_reused")
    assert store.record_count == 1


def test_the_same_value_written_differently_is_the_same_payload(store: LabServer) -> None:
    """The fingerprint compares parsed JSON, not text: 1 and 1.0, 1e0, key order and
    spacing are one payload (before: 409 for {"value": 1.0} after {"value": 1})."""
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-2"}
    first = http_send(url, "POST", {"value": 1, "ref": "a"}, key)
    again = [
        http_send(url, "POST", body, key)
        for body in (
            {"value": 1.0, "ref": "a"},
            '{"ref":"a","value":1e0}',
            '{ "value" : 1.00, "ref" : "a" }',
        )
    ]
    assert first.ok and first.data["id"] == "o-115"
    assert [(o.ok, o.data) for o in again] == [(True, first.data)] * 3
    assert store.record_count == 1
    assert http_send(url, "POST", {"value": 1, "ref": "b"}, key).status == 422


def test_a_duplicate_while_the_first_is_in_flight_is_409(store: LabServer) -> None:
    """Draft: a retry while the original is still being processed gets 409. Before,
    the duplicate waited for the first and got the replayed 201."""
    store.script("POST", "/measurements", latency=0.4, cycle=True, statuses=[None])
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-3"}
    got: dict[str, object] = {}
    first = threading.Thread(
        target=lambda: got.setdefault("first", http_send(url, "POST", {"value": 3}, key))
    )
    first.start()
    time.sleep(0.15)  # the first is now waiting in the server's latency
    duplicate = http_send(url, "POST", {"value": 3}, key)
    first.join(timeout=5)
    assert (duplicate.status, duplicate.data["code"]) == (409, "idempotency_key_in_flight")
    assert duplicate.retry_after == 1.0
    assert got["first"].ok  # type: ignore[attr-defined]
    later = http_send(url, "POST", {"value": 3}, key)
    assert (later.ok, later.data) == (True, got["first"].data)  # type: ignore[attr-defined]
    assert store.record_count == 1


def test_a_key_is_free_again_when_its_request_was_not_handled(store: LabServer) -> None:
    store.script("POST", "/measurements", statuses=[503])
    url, key = store.url + "/measurements", {"Idempotency-Key": "k-4"}
    assert http_send(url, "POST", {"value": 4}, key).status == 503
    assert http_send(url, "POST", {"value": 4}, key).ok
    invalid = http_send(url, "POST", {"value": "warm"}, {"Idempotency-Key": "k-5"})
    assert invalid.status == 422 and invalid.data["code"] == "validation"
    assert http_send(url, "POST", {"value": 5}, {"Idempotency-Key": "k-5"}).ok
    assert store.record_count == 2


def test_fingerprints() -> None:
    assert fingerprint({"a": [1, 2.0]}) == fingerprint({"a": [1.0, 2]})
    assert fingerprint([1, 2]) != fingerprint([2, 1])
    assert fingerprint({"v": True}) != fingerprint({"v": 1})
    assert fingerprint({"v": None}) != fingerprint({"v": 0})
    assert fingerprint({"v": "1"}) != fingerprint({"v": 1})
    assert fingerprint(2**53 + 1) != fingerprint(float(2**53))
    assert fingerprint(float("nan")) == fingerprint(float("nan"))


def test_key_store_is_safe_across_threads() -> None:
    keys = KeyStore()
    winners: list[int] = []
    barrier = threading.Barrier(16)

    def race(i: int) -> None:
        barrier.wait()
        if keys.begin("k", {"value": 1}) is None:
            winners.append(i)

    threads = [threading.Thread(target=race, args=(i,)) for i in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(winners) == 1
