"""The adapters a team copies into production (issue 21, items 2, 3, 4, 7, 8 and the
transport's "Also"): RetryTransport, to_urllib3 / PolicyRetry and to_tenacity."""

from __future__ import annotations

import asyncio
import contextlib
import time
from unittest import mock

import httpx
import pytest
import tenacity

from retrylab import (
    Backoff,
    LabServer,
    Mulberry32,
    Outcome,
    RetryPolicy,
    RetryTransport,
    decide,
    to_tenacity,
    to_urllib3,
)
from retrylab.lab.bridge import PolicyRetry

FIXED = RetryPolicy(max_attempts=4, backoff=Backoff(100, 2, 5000, jitter="none"))


def _answers(*statuses: int) -> tuple[httpx.MockTransport, list[httpx.Request]]:
    seen: list[httpx.Request] = []
    queue = list(statuses)

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(queue.pop(0), json={})

    return httpx.MockTransport(handler), seen


# -- item 2: the adapters default to production_rule ---------------------------------


def test_the_transport_does_not_retry_a_keyless_post_after_a_500_by_default() -> None:
    inner, seen = _answers(500, 201)
    t = RetryTransport(FIXED, transport=inner, sleep=lambda ms: None)
    assert httpx.Client(transport=t).post("http://lab/m", json={}).status_code == 500
    assert len(seen) == 1
    inner, seen = _answers(500, 201)  # the lesson's rule, asked for by name
    t = RetryTransport(FIXED.with_(rule=decide), transport=inner, sleep=lambda ms: None)
    assert httpx.Client(transport=t).post("http://lab/m", json={}).status_code == 201
    assert len(seen) == 2


def test_to_urllib3_does_not_retry_a_keyless_post_after_a_500_by_default() -> None:
    assert not to_urllib3(RetryPolicy()).is_retry("POST", 500)
    assert to_urllib3(RetryPolicy()).is_retry("GET", 500)
    assert to_urllib3(RetryPolicy(rule=decide)).is_retry("POST", 500)
    assert not PolicyRetry().is_retry("POST", 500)


# -- item 3: a cut-off 2xx body is read in the transport and retried ----------------


def test_a_truncated_2xx_is_retried_by_the_transport() -> None:
    with LabServer(fail_first=0) as lab:
        lab.script("GET", "/measurements", faults=["truncate"])
        slept: list[int] = []
        t = RetryTransport(FIXED, sleep=slept.append)
        with httpx.Client(transport=t) as c:
            response = c.get(lab.url + "/measurements")
        assert response.status_code == 200 and response.json()[0]["id"] == "o-114"
        assert lab.measurement_requests == 2 and slept == [100]
        result = response.extensions["retry_result"]
        assert result.history[0].outcome.label() == "network"


def test_a_streamed_request_is_left_to_the_caller() -> None:
    with LabServer(fail_first=0) as lab:
        t = RetryTransport(FIXED, sleep=lambda ms: None)
        with (
            httpx.Client(transport=t) as c,
            c.stream(
                "GET", lab.url + "/measurements", extensions={"retrylab.stream": True}
            ) as response,
        ):
            assert not response.is_stream_consumed
            assert b"o-114" in response.read()


# -- item 4: a cancellation is never lost, the exchange runs in its own task ----------


def test_a_cancel_that_lands_as_the_answer_arrives_stops_the_loop() -> None:
    """The wrapped transport swallows the cancel and returns the answer (as anyio's
    cancel scopes did on Python 3.10); the loop must stop anyway, not retry."""
    calls: list[int] = []

    class Swallowing(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            calls.append(1)
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.2)  # the cancel is lost here, and an answer returned
            return httpx.Response(503)

    t = RetryTransport(FIXED, transport=Swallowing(), async_sleep=lambda ms: asyncio.sleep(0))

    async def main() -> None:
        async with httpx.AsyncClient(transport=t) as c:
            task = asyncio.create_task(c.get("http://lab/m"))
            await asyncio.sleep(0.05)
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    assert calls == [1]


# -- item 7: the time budget is a deadline ---------------------------------------------


def test_the_time_budget_shortens_each_attempts_timeout() -> None:
    with LabServer(fail_first=0) as lab:
        lab.script("GET", "/measurements", latency=10, cycle=True, statuses=[None])
        timeouts: list[float] = []

        class Recording(httpx.HTTPTransport):
            def handle_request(self, request: httpx.Request) -> httpx.Response:
                timeouts.append(request.extensions["timeout"]["read"])
                return super().handle_request(request)

        t = RetryTransport(
            FIXED.with_(time_budget=400),
            transport=Recording(),
            sleep=lambda ms: time.sleep(ms / 1000),
        )
        with httpx.Client(transport=t, timeout=5.0) as c, pytest.raises(httpx.ReadTimeout):
            c.get(lab.url + "/measurements")
        # each attempt waits what is left of the 400 ms budget, not the client's 5 s for
        # one 10 s answer (before: one answer, then more); read from the requests, not
        # the clock
        assert timeouts and all(0 < read <= 0.4 for read in timeouts), timeouts


def test_the_deadline_keeps_a_shorter_timeout_of_the_callers() -> None:
    seen: list[dict[str, float]] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(dict(request.extensions["timeout"]))
        return httpx.Response(200)

    t = RetryTransport(FIXED.with_(time_budget=10_000), transport=httpx.MockTransport(handler))
    httpx.Client(transport=t, timeout=0.5).get("http://lab/m")
    assert seen[0]["read"] == 0.5 and seen[0]["connect"] == 0.5


# -- the transport's "Also" ---------------------------------------------------------------


@pytest.mark.parametrize("method", ["M-SEARCH", "X_CUSTOM"])
def test_the_transport_accepts_every_method_token(method: str) -> None:
    inner, seen = _answers(200)
    t = RetryTransport(FIXED, transport=inner)
    assert httpx.Client(transport=t).request(method, "http://lab/m").status_code == 200
    assert seen[0].method == method


def test_a_local_protocol_error_is_raised_at_once() -> None:
    calls: list[int] = []

    def handler(request: httpx.Request) -> httpx.Response:
        calls.append(1)
        raise httpx.LocalProtocolError("Illegal header value b'a\\nb'")

    t = RetryTransport(FIXED, transport=httpx.MockTransport(handler), sleep=lambda ms: None)
    with pytest.raises(httpx.LocalProtocolError):
        httpx.Client(transport=t).get("http://lab/m")
    assert calls == [1]


def test_one_attempt_does_not_buffer_the_upload() -> None:
    class Streaming(httpx.BaseTransport):
        def __init__(self) -> None:
            self.buffered: list[bool] = []

        def handle_request(self, request: httpx.Request) -> httpx.Response:
            self.buffered.append(hasattr(request, "_content"))  # set by request.read()
            size = sum(len(chunk) for chunk in request.stream)  # type: ignore[union-attr]
            return httpx.Response(200, content=str(size).encode())

    def chunks():  # type: ignore[no-untyped-def]
        for _ in range(64):
            yield b"x" * 1024

    inner = Streaming()
    t = RetryTransport(FIXED.with_(max_attempts=1), transport=inner)
    response = httpx.Client(transport=t).post("http://lab/m", content=chunks())
    assert response.text == str(64 * 1024) and inner.buffered == [False]
    t = RetryTransport(FIXED, transport=inner)  # two attempts: buffered
    httpx.Client(transport=t).post("http://lab/m", content=chunks())
    assert inner.buffered == [False, True]


def test_a_duplicated_retry_after_reaches_the_transport_as_one_value() -> None:
    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(503, headers=[("Retry-After", "3600"), ("Retry-After", "3600")])

    t = RetryTransport(
        FIXED.with_(max_retry_after=60_000),
        transport=httpx.MockTransport(handler),
        sleep=lambda ms: None,
    )
    result = httpx.Client(transport=t).get("http://lab/m").extensions["retry_result"]
    assert (result.attempts, result.reason.value) == (1, "retry_after_too_long")


# -- item 8: PolicyRetry sleeps through time.sleep at call time; retry_after_max -------


def test_policy_retry_sleeps_through_a_patched_time_sleep() -> None:
    retry = to_urllib3(RetryPolicy())
    retry = retry.increment(method="GET").increment(method="GET")
    with mock.patch("time.sleep") as sleep:
        retry.sleep()
    sleep.assert_called_once_with(0.4)


def test_max_retry_after_is_not_rounded_to_zero() -> None:
    assert to_urllib3(RetryPolicy(max_retry_after=500)).retry_after_max == 0.5
    assert to_urllib3(RetryPolicy(max_retry_after=3000)).retry_after_max == 3.0


def test_a_keyed_409_with_retry_after_is_retried_by_urllib3() -> None:
    keyed = to_urllib3(RetryPolicy(), idempotency_key=True)
    assert keyed.is_retry("POST", 409, has_retry_after=True)
    assert not keyed.is_retry("POST", 409)


@pytest.mark.parametrize(
    "make",
    [
        lambda: to_tenacity(RetryPolicy(), Mulberry32(1), "POST", "False"),  # type: ignore[arg-type]
        lambda: to_urllib3(RetryPolicy(), idempotency_key="False"),  # type: ignore[arg-type]
        lambda: PolicyRetry(idempotency_key="False"),  # type: ignore[arg-type]
    ],
)
def test_an_idempotency_key_given_as_text_is_refused_by_the_adapters(make: object) -> None:
    with pytest.raises(TypeError, match=r"idempotency_key='False'"):
        make()  # type: ignore[operator]


# -- to_tenacity: an async form, and copy(stop=...) --------------------------------------


def test_to_tenacity_has_an_async_form_equal_to_run_async() -> None:
    from retrylab.lab.bridge import to_tenacity_async

    answers = [Outcome.http(503), Outcome.http(429, retry_after=1), Outcome.success([1])]
    slept: list[int] = []

    async def nap(seconds: float) -> None:
        slept.append(round(seconds * 1000))

    async def main() -> Outcome:
        it = iter(answers)

        async def send() -> Outcome:
            return next(it)

        retrying = to_tenacity_async(RetryPolicy(), Mulberry32(20260114), sleep=nap)
        return await retrying(send)

    assert asyncio.run(main()).ok
    want = RetryPolicy().run(iter(answers).__next__, "GET", Mulberry32(20260114), sleep=None)
    assert slept == list(want.waits)


def test_a_copy_with_another_stop_keeps_the_policys_limits() -> None:
    # before: the policy's "stop" became a 0 s wait, and 503s were retried 10 times at once
    slept: list[float] = []
    r = to_tenacity(RetryPolicy(max_attempts=3), Mulberry32(20260114), sleep=slept.append)
    calls: list[int] = []

    def send() -> Outcome:
        calls.append(1)
        return Outcome.http(503)

    copy = r.copy(stop=tenacity.stop_after_attempt(10))
    assert copy(send).status == 503
    assert len(calls) == 3 and all(s > 0 for s in slept)


def test_a_cancel_swallowed_while_a_discarded_answer_closes_still_stops_the_loop() -> None:
    """httpcore closes a connection in a shielded scope; on Python 3.10 a cancel that
    lands there was lost and the loop went on (repro: 6 of 600 over real sockets)."""
    calls: list[int] = []
    closing = asyncio.Event()

    class SlowClose(httpx.AsyncByteStream):
        async def __aiter__(self):  # type: ignore[no-untyped-def]
            yield b"{}"

        async def aclose(self) -> None:
            closing.set()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.sleep(0.2)  # the cancel is lost here

    class Answers(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            calls.append(1)
            return httpx.Response(503, stream=SlowClose())

    t = RetryTransport(
        FIXED, transport=Answers(), async_sleep=lambda ms: asyncio.sleep(0), read_body=False
    )

    async def main() -> None:
        async with httpx.AsyncClient(transport=t) as c:
            task = asyncio.create_task(c.get("http://lab/m"))
            await closing.wait()
            task.cancel()
            with pytest.raises(asyncio.CancelledError):
                await task

    asyncio.run(main())
    assert calls == [1]


def test_a_cancel_after_the_wait_but_before_the_next_attempt_begins_sends_nothing() -> None:
    """The loop has slept and made the next attempt's task; the cancel lands before that
    task's first step (the caller's wakeup is queued behind it). Before, the step began
    the exchange: a request after the cancel (2 of 1,500 over real sockets on 3.10)."""
    calls: list[int] = []

    class Refused(httpx.AsyncBaseTransport):
        async def handle_async_request(self, request: httpx.Request) -> httpx.Response:
            calls.append(1)
            raise httpx.ConnectError("refused")

    tasks: list[asyncio.Task[httpx.Response]] = []

    async def nap(ms: int) -> None:
        # queued ahead of the next attempt's first step, as a timer's cancel can be
        asyncio.get_running_loop().call_soon(tasks[0].cancel)

    t = RetryTransport(FIXED, transport=Refused(), async_sleep=nap)

    async def main() -> None:
        async with httpx.AsyncClient(transport=t) as c:
            tasks.append(asyncio.create_task(c.get("http://lab/m")))
            with pytest.raises(asyncio.CancelledError):
                await tasks[0]

    asyncio.run(main())
    assert calls == [1]


def test_the_lab_clients_async_send_opens_no_connection_after_an_early_cancel() -> None:
    import socket

    from retrylab.lab.client import async_send

    with socket.create_server(("127.0.0.1", 0)) as listener:
        listener.settimeout(0.3)
        port = listener.getsockname()[1]

        async def main() -> None:
            task = asyncio.current_task()
            assert task is not None
            asyncio.get_running_loop().call_soon(task.cancel)  # before the exchange's step
            await async_send(f"http://127.0.0.1:{port}/measurements")

        with pytest.raises(asyncio.CancelledError):
            asyncio.run(main())
        with pytest.raises(TimeoutError):
            listener.accept()[0].close()  # no connection was opened


# -- a header value HTTP/1.1 cannot carry --------------------------------------------


def test_httpx_refuses_a_non_ascii_header_before_the_transport_runs() -> None:
    """The documented limit: the UnicodeEncodeError is httpx's, raised while it builds
    the request; the transport is never called (so nothing of ours is in the way)."""
    inner, seen = _answers(200)
    t = RetryTransport(FIXED, transport=inner)
    with pytest.raises(UnicodeEncodeError):
        httpx.Client(transport=t).get("http://lab/m", headers={"X-Name": "Ayşe"})
    assert seen == []


def test_check_headers_sends_latin1_through_the_transport_and_names_the_rest() -> None:
    from retrylab.lab.client import check_headers

    inner, seen = _answers(200)
    t = RetryTransport(FIXED, transport=inner)
    httpx.Client(transport=t).get("http://lab/m", headers=check_headers({"X-Name": "café"}))
    assert seen[0].headers.raw[-1] == (b"X-Name", "café".encode("latin-1"))
    with pytest.raises(
        ValueError,
        match=r"headers\['X-Name'\]='Ayşe' .* \('ş' \(U\+015F\) "
        r"at position 2 is not Latin-1: percent-encode",
    ):
        check_headers({"X-Name": "Ayşe"})


def test_outcome_sender_refuses_a_header_it_cannot_send_when_it_is_made() -> None:
    from retrylab.lab.transport import outcome_sender

    inner, seen = _answers(200, 200)
    client = httpx.Client(transport=inner)
    with pytest.raises(ValueError, match=r"'Ayşe' .* \('ş' \(U\+015F\)"):
        outcome_sender(client, "GET", "http://lab/m", headers={"X-Name": "Ayşe"})
    send = outcome_sender(client, "GET", "http://lab/m", headers={"X-Name": "café"})
    assert send().ok and seen[0].headers.raw[-1] == (b"X-Name", "café".encode("latin-1"))
