"""RetryTransport with a scripted inner transport: body buffering, Retry-After, closing
discarded answers, network errors, the time budget, async and cancellation."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator, Iterator

import httpx
import pytest
from _ports import refusing_port

from retrylab import (
    Backoff,
    Mulberry32,
    RetryPolicy,
    RetryTransport,
    decide,
    production_rule,
)
from retrylab.lab.transport import error_outcome

FIXED = RetryPolicy(max_attempts=4, backoff=Backoff(100, 2, 5000, jitter="none"))


class Tracked(httpx.SyncByteStream, httpx.AsyncByteStream):
    def __init__(self) -> None:
        self.closed = False

    def __iter__(self) -> Iterator[bytes]:
        yield b"{}"

    async def __aiter__(self) -> AsyncIterator[bytes]:
        yield b"{}"

    def close(self) -> None:
        self.closed = True

    async def aclose(self) -> None:
        self.closed = True


class Script:
    """An inner transport answering a list of statuses (or raising errors), in order."""

    def __init__(self, *steps: int | Exception, headers: dict[str, str] | None = None) -> None:
        self.steps = list(steps)
        self.headers = headers or {}
        self.bodies: list[bytes] = []
        self.streams: list[Tracked] = []

    def __call__(self, request: httpx.Request) -> httpx.Response:
        self.bodies.append(request.read())
        step = self.steps.pop(0)
        if isinstance(step, Exception):
            raise step
        stream = Tracked()
        self.streams.append(stream)
        return httpx.Response(step, headers=self.headers if step >= 400 else {}, stream=stream)


def client(policy: RetryPolicy, script: Script, **kw: object) -> tuple[httpx.Client, list[int]]:
    slept: list[int] = []
    t = RetryTransport(
        policy,
        Mulberry32(20260114),
        transport=httpx.MockTransport(script),
        sleep=slept.append,
        **kw,
    )  # type: ignore[arg-type]
    return httpx.Client(transport=t), slept


def test_the_body_is_buffered_and_sent_again() -> None:
    script = Script(503, 503, 200)

    def chunks() -> Iterator[bytes]:
        yield b'{"value": '
        yield b"-4.2}"

    c, slept = client(FIXED, script)
    response = c.put("http://lab/measurements", content=chunks())
    assert response.status_code == 200 and slept == [100, 200]
    assert script.bodies == [b'{"value": -4.2}'] * 3


def test_retry_after_is_a_lower_bound() -> None:
    c, slept = client(FIXED, Script(429, 200, headers={"Retry-After": "2"}))
    assert c.get("http://lab/report").status_code == 200 and slept == [2000]
    c, slept = client(FIXED, Script(503, 200, headers={"Retry-After": "soon"}))
    assert c.get("http://lab/report").status_code == 200 and slept == [100]


def test_discarded_answers_are_closed_and_the_last_is_returned_open() -> None:
    script = Script(503, 502, 500, 504)
    c, slept = client(FIXED, script)
    response = c.get("http://lab/x")
    assert response.status_code == 504 and slept == [100, 200, 400]
    assert [s.closed for s in script.streams[:3]] == [True, True, True]
    result = response.extensions["retry_result"]
    assert (result.attempts, result.reason) == (4, "max_attempts")


def test_network_errors_and_the_production_rule() -> None:
    policy = FIXED.with_(rule=production_rule)
    refused = httpx.ConnectError("refused")
    c, slept = client(policy, Script(refused, refused, 201))
    assert c.post("http://lab/m", json={}).status_code == 201 and slept == [100, 200]
    script = Script(httpx.ReadTimeout("slow"), 201)
    c, slept = client(policy, script)
    with pytest.raises(httpx.ReadTimeout):
        c.post("http://lab/m", json={})
    assert len(script.bodies) == 1 and slept == []
    # ... but with an idempotency key the POST is retried
    c, slept = client(policy, Script(httpx.ReadTimeout("slow"), 500, 201))
    response = c.post("http://lab/m", json={}, headers={"Idempotency-Key": "k-1"})
    assert response.status_code == 201 and slept == [100, 200]
    # the last error is raised again when the attempts run out
    c, _ = client(FIXED, Script(*[httpx.ConnectError("refused")] * 4))
    with pytest.raises(httpx.ConnectError):
        c.get("http://lab/m")
    assert error_outcome(httpx.RemoteProtocolError("x")).sent is True
    assert error_outcome(httpx.ProxyError("x")).sent is None


def test_the_time_budget_runs_on_the_injected_clock() -> None:
    now = [0.0]
    policy = FIXED.with_(time_budget=1000)

    def sleep(ms: int) -> None:
        slept.append(ms)
        now[0] += ms

    script = Script(503, 503, 503, 200)
    slept: list[int] = []
    t = RetryTransport(
        policy,
        transport=httpx.MockTransport(script),
        sleep=sleep,
        clock=lambda: now[0] + 350 * len(script.bodies),
    )
    response = httpx.Client(transport=t).get("http://lab/x")
    # 350 ms per attempt: after attempt 3, 1050 + 100 + 200 ms are used; 400 more passes 1000
    assert response.status_code == 503 and slept == [100, 200]
    assert response.extensions["retry_result"].reason == "time_budget"


def test_async_matches_sync() -> None:
    script = Script(503, 503, 200)
    slept: list[int] = []

    async def sleep(ms: int) -> None:
        slept.append(ms)

    t = RetryTransport(
        RetryPolicy(),
        Mulberry32(20260114),
        transport=httpx.MockTransport(script),
        async_sleep=sleep,
    )

    async def main() -> int:
        async with httpx.AsyncClient(transport=t) as c:
            return (await c.get("http://lab/m")).status_code

    assert asyncio.run(main()) == 200 and slept == [70, 184]
    assert all(s.closed for s in script.streams[:2])


def test_a_cancellation_is_never_retried() -> None:
    script = Script(503, 503, 200)
    asleep = asyncio.Event()

    async def sleep(ms: int) -> None:
        asleep.set()
        await asyncio.Event().wait()  # forever, until cancelled

    t = RetryTransport(FIXED, transport=httpx.MockTransport(script), async_sleep=sleep)

    async def main() -> None:
        async with httpx.AsyncClient(transport=t) as c:
            task = asyncio.create_task(c.get("http://lab/m"))
            await asleep.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    assert len(script.bodies) == 1 and script.streams[0].closed


def test_wrong_transport_kind_and_bad_policy() -> None:
    t = RetryTransport(FIXED, transport=httpx.AsyncHTTPTransport())
    with pytest.raises(TypeError, match="is async"):
        httpx.Client(transport=t).get("http://127.0.0.1:9/")
    with pytest.raises(ValueError, match="policy="):
        RetryTransport("policy")  # type: ignore[arg-type]


def test_a_cancellation_during_the_send_stops_at_once() -> None:
    started = asyncio.Event()
    calls: list[int] = []

    async def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        started.set()
        await asyncio.Event().wait()
        return httpx.Response(200)  # pragma: no cover

    t = RetryTransport(FIXED, transport=httpx.MockTransport(handler))

    async def main() -> None:
        async with httpx.AsyncClient(transport=t) as c:
            task = asyncio.create_task(c.get("http://lab/m"))
            await started.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    assert calls == [1]


def test_a_refused_post_over_real_sockets() -> None:
    # a port held without listening, not a closed lab's: that port could be given to
    # another process's lab, which would log (and store) these POSTs
    with refusing_port() as port:
        url = f"http://127.0.0.1:{port}/measurements"
        for rule, attempts in ((production_rule, 3), (None, 3), (decide, 1)):
            slept: list[int] = []
            t = RetryTransport(
                RetryPolicy(max_attempts=3, rule=rule), Mulberry32(20260114), sleep=slept.append
            )
            with httpx.Client(transport=t) as c, pytest.raises(httpx.ConnectError):
                c.post(url, json={"value": -4.2})
            assert len(slept) == attempts - 1  # never sent: the production rule retries a POST


def test_threads_sharing_a_client_make_one_inner_transport(monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    import time

    made: list[Inner] = []

    class Inner(httpx.BaseTransport):
        """Stands for httpx.HTTPTransport: slow to make, so racing threads overlap."""

        def __init__(self) -> None:
            time.sleep(0.05)  # widens the race; asserts nothing about time
            self.closed = False
            made.append(self)

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            return httpx.Response(200, content=b"{}")

        def close(self) -> None:
            self.closed = True

    monkeypatch.setattr(httpx, "HTTPTransport", Inner)
    shared = httpx.Client(transport=RetryTransport(FIXED, Mulberry32(1), sleep=lambda ms: None))
    start = threading.Barrier(16)

    def first_request() -> None:
        start.wait()
        shared.get("http://lab.invalid/measurements")

    threads = [threading.Thread(target=first_request) for _ in range(16)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    shared.close()
    # before: each racing thread made (and kept) its own; only the last one was closed
    assert len(made) == 1 and made[0].closed
