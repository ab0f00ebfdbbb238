"""Experiments against the live lab: the lesson's loop, 1,000 faulty writes, asyncio, metrics."""

from __future__ import annotations

import asyncio
import functools
import logging
import time

import pytest

# The lesson's printed output, as copied once into tests/lessons/test_lesson_outputs.py.
from _idle import idle_closes
from _waiting import wait_until
from test_lesson_outputs import RETRY

from retrylab import Mulberry32, Outcome, RetryMetrics, RetryPolicy, StopReason
from retrylab.lab.client import Connection, async_sender, http_send
from retrylab.lab.server import LabServer
from retrylab.lessons import lab_experiments
from retrylab.lessons.lab_experiments import (
    OWN_IDLE_TIMEOUT,
    WriteReport,
    lesson_scenarios,
    write_experiment,
    write_policy,
)
from retrylab.lessons.outputs import retry_loop_text

# -- the lesson's four scenarios ----------------------------------------------------


def test_four_scenarios_print_exactly_the_lessons_output() -> None:
    slept: list[int] = []
    with LabServer() as lab:
        results, requests = lesson_scenarios(lab, Mulberry32(20260114), slept.append)
        log = lab.log
    assert retry_loop_text(results, requests, "tr") == RETRY
    assert [r.attempts for r in results] == [3, 1, 3, 1]
    assert [r.waits for r in results] == [(70, 184), (), (2000, 2000), ()]
    assert slept == [70, 184, 2000, 2000]
    assert requests == 3
    # what really crossed the wire: 3 + 1 + 3 + 1 requests
    assert log[["method", "path", "status"]].values.tolist() == [
        ["GET", "/measurements", 503],
        ["GET", "/measurements", 503],
        ["GET", "/measurements", 200],
        ["POST", "/measurements", 422],
        ["GET", "/report", 429],
        ["GET", "/report", 429],
        ["GET", "/report", 429],
        ["GET", "/missing", 404],
    ]
    assert results[0].outcome.data == [{"id": "o-114", "value": -4.2}]
    assert retry_loop_text(results, requests, "en").splitlines()[-2:] == [
        "measurement requests that reached the server: 3",  # "ulaşan": reached, not served
        "all recorded waits                          : 70, 184, 2000, 2000",
    ]


def test_scenarios_need_a_fresh_lesson_server() -> None:
    with LabServer() as lab:
        lesson_scenarios(lab, sleep=None)
        with pytest.raises(ValueError, match=r"lab.measurement_requests=3 is out of range"):
            lesson_scenarios(lab, sleep=None)
        lab.reset()
        assert lesson_scenarios(lab, sleep=None).requests == 3
    with LabServer("store") as lab, pytest.raises(ValueError, match=r"lab.mode='store'"):
        lesson_scenarios(lab)


# -- 1,000 writes while 20% of the answers are lost after storing --------------------


def distinct_and_copies(lab: LabServer) -> tuple[int, int]:
    """The server's truth: distinct writes stored, and records beyond the first."""
    per_ref = lab.records.groupby("ref").size()
    return len(per_ref), int((per_ref - 1).sum())


@pytest.fixture(scope="module")
def writes() -> dict[str, tuple[object, int, int, int, int]]:
    """One 1,000-write run per mode, on its own server; checked by several tests."""
    out = {}
    for mode in ("key", "unsafe", "lesson"):
        with LabServer("store", seed=5) as lab:
            report = write_experiment(1000, 0.2, mode, seed=20260114, lab=lab)
            distinct, copies = distinct_and_copies(lab)
            drops = int(lab.log["fault"].eq("drop").sum())
            out[mode] = (report, distinct, copies, drops, lab.record_count)
    return out


def test_with_keys_exactly_1000_are_stored(writes) -> None:
    report, distinct, copies, drops, records = writes["key"]
    assert (report.stored, records, distinct, copies) == (1000, 1000, 1000, 0)
    assert report.duplicates == 0 and report.lost == 0
    assert report.sent == 1000 + report.retried_after_network
    assert drops == report.retried_after_network + report.unacknowledged
    assert 150 < drops < 350
    # only a write whose four attempts were all dropped stays unacknowledged
    assert report.unacknowledged < 10
    assert report.acknowledged + report.unacknowledged == 1000


def test_without_keys_retried_posts_duplicate_and_are_counted_exactly(writes) -> None:
    report, distinct, copies, drops, records = writes["unsafe"]
    assert report.duplicates > 100
    assert report.duplicates == copies == records - 1000
    assert distinct == 1000 and report.lost == 0
    # every dropped answer was stored: each retry after one is one extra record
    assert report.duplicates == report.retried_after_network
    assert drops == report.retried_after_network + report.unacknowledged
    # the same seed drops the same answers as with keys: only the keys differ
    assert report.sent == writes["key"][0].sent


def test_the_lessons_rule_loses_acknowledgements_not_records(writes) -> None:
    report, _, copies, drops, _ = writes["lesson"]
    assert (report.stored, copies, report.duplicates, report.lost) == (1000, 0, 0, 0)
    assert report.sent == 1000 and report.retried_after_network == 0
    assert report.unacknowledged == drops == 1000 - report.acknowledged
    assert 150 < report.unacknowledged < 250


def test_write_report_series(writes) -> None:
    s = writes["key"][0].series()
    assert s.name == "key"
    assert s.index.tolist() == [
        "writes",
        "sent",
        "stored",
        "duplicates",
        "acknowledged",
        "unacknowledged",
        "lost",
        "retried_after_network",
    ]
    assert s["stored"] == 1000


def test_1000_writes_report_progress_and_their_time() -> None:
    """How fast is bench_lab's question; here: progress, and a time that is its own."""
    calls: list[tuple[int, int]] = []
    t0 = time.perf_counter()
    report = write_experiment(
        1000, 0.2, "key", seed=1, progress=lambda done, total: calls.append((done, total))
    )
    took = time.perf_counter() - t0
    assert 0 < report.seconds <= took
    assert len(calls) == 100 and calls[0] == (10, 1000) and calls[-1] == (1000, 1000)


def test_same_seed_same_counts() -> None:
    a = write_experiment(300, 0.2, "unsafe", seed=9)
    b = write_experiment(300, 0.2, "unsafe", seed=9)
    assert a.series().tolist() == b.series().tolist()
    assert write_experiment(300, 0.0, "unsafe", seed=9).duplicates == 0


def plain_and_paused(mode: str, monkeypatch: pytest.MonkeyPatch) -> tuple[WriteReport, WriteReport]:
    """100 writes, then again with the client resting as long as the lab's idle timeout
    after every 10th write (while it is still connected), the lab closing the connection
    at the worst moment (:mod:`_idle`); the client's clock is the test's."""
    with LabServer("store", seed=5) as lab:
        plain = write_experiment(100, 0.2, mode, seed=20260114, lab=lab)
    now = [0.0]
    monkeypatch.setattr(
        lab_experiments, "Connection", functools.partial(Connection, clock=lambda: now[0])
    )
    with idle_closes() as idle, LabServer("store", seed=5, idle_timeout=60) as lab:

        def rest(done: int, _total: int) -> None:
            if done % 10 == 0 and lab.log["fault"].iloc[-1] != "drop":  # kept alive
                now[0] += lab.idle_timeout
                idle.fire()

        paused = write_experiment(100, 0.2, mode, seed=20260114, lab=lab, progress=rest)
    return plain, paused


@pytest.mark.parametrize("mode", ["key", "unsafe", "lesson"])
def test_a_pause_past_the_idle_timeout_changes_no_count(mode: str, monkeypatch) -> None:
    """A client that rests (a progress bar, a debugger) must not lose a write on a
    connection the lab is closing for idleness. Before ``keepalive``, the lesson's run
    counted 94 sent, 94 stored, 6 lost and 72 acknowledged (unpaused: 100, 100, 0, 77);
    key and unsafe 42 retries after a network error instead of 33, 9 of them after
    requests that never reached the server."""
    plain, paused = plain_and_paused(mode, monkeypatch)
    assert paused.series().tolist() == plain.series().tolist()
    assert paused.lost == 0 and paused.acknowledged + paused.unacknowledged == paused.writes
    if mode == "lesson":
        assert paused.sent == paused.stored == paused.writes
    else:
        assert paused.sent == paused.writes + paused.retried_after_network
    if mode == "key":
        assert (paused.stored, paused.duplicates) == (paused.writes, 0)


def test_the_experiments_own_lab_closes_no_connection_for_idleness(monkeypatch) -> None:
    """A stall of the whole process (both the lab's thread and the client stop) outlasts
    any idle timeout, and a stall between a request's head and its body, or between
    keepalive's check and the write, cannot be avoided by the client. Before, with the
    lab's 5 s, one of ten 5.5 s SIGSTOPs of a 1,000-write lesson run counted 1,000 sent,
    999 stored, 1 lost (the lab logged "client gone": its idle timeout cut the request
    between head and body)."""
    made: list[LabServer] = []

    class Recorded(LabServer):
        def __init__(self, *args: object, **kwargs: object) -> None:
            super().__init__(*args, **kwargs)  # type: ignore[arg-type]
            made.append(self)

    monkeypatch.setattr(lab_experiments, "LabServer", Recorded)
    report = write_experiment(20, 0.2, "lesson", seed=1)
    assert [lab.idle_timeout for lab in made] == [OWN_IDLE_TIMEOUT] == [3600]
    assert made[0].closed and report.sent == report.stored == 20


@pytest.mark.parametrize("mode", ["key", "unsafe", "lesson"])
def test_a_request_from_elsewhere_is_not_counted_as_sent(mode: str) -> None:
    """``sent`` once counted every request the lab logged during the run, so each stray
    request to its port (such as a test's probe of a port it believes closed, in another
    process that had the port before) added one: here the lesson's 100 writes were 102
    sent; one stray in 1,000 writes is the notebook's 1,001, other counts unchanged."""
    with LabServer("store", seed=5) as lab:
        plain = write_experiment(100, 0.2, mode, seed=20260114, lab=lab)
    with LabServer("store", seed=5) as lab:

        def stray(done: int, _total: int) -> None:
            if done == 50:
                assert http_send(lab.url + "/measurements").status == 503
                assert http_send(lab.url + "/x", "POST", {"value": 1}).status == 404

        strayed = write_experiment(100, 0.2, mode, seed=20260114, lab=lab, progress=stray)
        assert lab.requests == plain.sent + 2
    assert strayed.series().tolist() == plain.series().tolist()


def test_a_keyless_post_from_elsewhere_is_not_one_of_the_keyed_runs_requests() -> None:
    with LabServer("store", seed=5) as lab:

        def stray(done: int, _total: int) -> None:
            if done == 50:  # it draws from the drop script too: the server cannot tell
                http_send(lab.url + "/measurements", "POST", {"value": 1})

        report = write_experiment(100, 0.2, "key", seed=20260114, lab=lab, progress=stray)
        assert lab.requests == report.sent + 1
    assert report.sent == report.writes + report.retried_after_network
    assert (report.stored, report.duplicates, report.lost) == (100, 0, 0)


@pytest.mark.parametrize("mode", ["key", "lesson"])
def test_a_second_run_on_the_same_lab_counts_its_own_writes(mode: str) -> None:
    with LabServer("store", seed=5) as lab:
        first = write_experiment(50, 0.2, mode, seed=9, lab=lab)
        again = write_experiment(50, 0.2, mode, seed=9, lab=lab)
        assert lab.record_count == first.stored + again.stored
    # before: the same keys were replayed, nothing stored: stored=0 lost=50
    # unacknowledged=-50 for 50 acknowledged writes
    assert again.stored == again.writes - again.lost > 0 and again.duplicates == 0
    assert again.lost == (0 if mode == "key" else again.lost) and again.unacknowledged >= 0
    assert again.acknowledged + again.unacknowledged == again.writes - again.lost
    assert min(again.series()) >= 0
    assert first.series().tolist() == again.series().tolist()  # the same drops, seeded


def test_write_experiment_checks_arguments() -> None:
    with pytest.raises(ValueError, match=r"mode='maybe' is out of range"):
        write_experiment(10, mode="maybe")
    with pytest.raises(ValueError, match=r"drop_rate=2 is out of range"):
        write_experiment(10, drop_rate=2)
    with LabServer() as lab, pytest.raises(ValueError, match=r"lab.mode='lesson'"):
        write_experiment(10, lab=lab)
    assert write_policy("key") == (RetryPolicy(), True)
    assert "POST" not in write_policy("lesson")[0].safe_methods


# -- asyncio: the same loop, and cancellation stops it at once ----------------------


def test_run_async_against_the_server() -> None:
    slept: list[float] = []

    async def record(ms: float) -> None:
        slept.append(ms)

    with LabServer() as lab:
        result = asyncio.run(
            RetryPolicy().run_async(
                async_sender(lab.url + "/measurements"), "GET", Mulberry32(20260114), record
            )
        )
        assert lab.measurement_requests == 3
    assert (result.attempts, result.waits, slept) == (3, (70, 184), [70, 184])
    assert result.outcome.data == [{"id": "o-114", "value": -4.2}]


async def cancel_when(coro, ready, stops_within: float, timeout: float = 10.0) -> None:  # type: ignore[no-untyped-def]
    """Start ``coro`` as a task, cancel it once ``ready()`` holds, and wait (bounded by
    ``stops_within`` seconds) for it to end cancelled. Waiting for a condition, not a
    fixed delay, keeps this right on a loaded machine (a fixed 0.15 s once cancelled
    before the request was sent)."""
    task = asyncio.create_task(coro)
    deadline = time.perf_counter() + timeout
    while not ready():
        assert time.perf_counter() < deadline, "the condition never held"
        await asyncio.sleep(0.005)
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await asyncio.wait_for(task, stops_within)  # TimeoutError: it did not stop


def test_cancelling_during_a_request_stops_at_once() -> None:
    with LabServer() as lab:
        lab.script("GET", "/measurements", latency=30)
        loop = RetryPolicy().run_async(
            async_sender(lab.url + "/measurements", timeout=10), "GET", Mulberry32(1)
        )
        # cancel while the request is inside the server's 30 s latency: it ends well
        # before the client's 10 s timeout would have ended it (a bounded wait)
        asyncio.run(cancel_when(loop, lambda: lab.in_flight == 1, stops_within=5))
    # the one request the server got was still waiting when the lab closed: no retry.
    # Its handler thread writes that row as it wakes, just after close() returns.
    wait_until(lambda: lab.in_flight == 0, what="the closed request's handler ending")
    assert lab.log["fault"].tolist() == ["server closed"]


def test_cancelling_during_the_wait_stops_at_once_and_sends_nothing_more() -> None:
    waiting: list[float] = []

    async def endless_wait(ms: float) -> None:
        """A wait that never ends by itself: only a cancel ends the loop (no clock)."""
        waiting.append(ms)
        await asyncio.Event().wait()

    with LabServer() as lab:
        loop = RetryPolicy(max_attempts=3).run_async(
            async_sender(lab.url + "/report"), "GET", Mulberry32(1), endless_wait
        )
        # cancel once the 429 has come back and the loop is in its wait
        asyncio.run(cancel_when(loop, lambda: bool(waiting), stops_within=10))
        assert lab.requests == 1 and len(waiting) == 1


# -- metrics and logging --------------------------------------------------------------


def test_metrics_tabulate_the_lessons_batch() -> None:
    metrics = RetryMetrics()
    with LabServer() as lab:
        rng = Mulberry32(20260114)
        from retrylab.lab.client import sender
        from retrylab.lessons.outputs import RETRY_SCENARIOS

        for _, _, method, path, attempts in RETRY_SCENARIOS:
            RetryPolicy(max_attempts=attempts).run(
                sender(lab.url + path, method), method, rng, None, metrics=metrics
            )
    s = metrics.summary()
    assert s[
        ["runs", "attempts", "retries", "successes", "success after retry", "gave up"]
    ].tolist() == [4, 8, 4, 1, 1, 3]
    assert s["median wait (ms)"] == 1092.0
    assert metrics.reasons_table().to_dict() == {
        "max_attempts": 1,
        "not_retryable": 2,
        "success": 1,
    }
    assert metrics.wait_histogram(500).to_dict() == {0: 2, 2000: 2}
    assert metrics.outcomes == {
        "http/503": 2,
        "success": 1,
        "http/422": 1,
        "http/429": 3,
        "http/404": 1,
    }
    assert metrics.by_method == {"GET": 3, "POST": 1}


def test_metrics_of_1000_writes_match_the_report() -> None:
    metrics = RetryMetrics()
    report = write_experiment(1000, 0.2, "key", seed=3, metrics=metrics)
    assert metrics.runs == 1000
    assert metrics.retries == report.sent - 1000
    assert metrics.successes == report.acknowledged
    assert metrics.outcomes["network"] == report.sent - report.acknowledged
    assert 0 < metrics.success_after_retry < report.acknowledged


def test_the_loop_and_the_lab_log_through_the_retrylab_logger(caplog) -> None:
    caplog.set_level(logging.DEBUG, logger="retrylab")
    with LabServer() as lab:
        lesson_scenarios(lab, sleep=None)
    messages = [r.getMessage() for r in caplog.records]
    assert "GET stopped after 3 attempt(s): success on attempt 3" in messages
    assert any(m.startswith("GET attempt 1: http/503; retrying in 70 ms") for m in messages)
    assert (
        "POST stopped after 1 attempt(s): 422: a problem with the request itself; "
        "repeating it gives the same answer" in messages
    )
    lab_lines = [r.getMessage() for r in caplog.records if r.name == "retrylab.lab.server"]
    assert (
        len(lab_lines) == 8 and lab_lines[0] == "lab GET /measurements -> 503 key=None fault=None"
    )
    assert all(r.name.startswith("retrylab") for r in caplog.records)


def test_outcome_of_a_cancelled_run_is_never_retried() -> None:
    # the fourth kind of failure, for completeness: the loop stops on it at once
    r = RetryPolicy().run(lambda: Outcome.cancelled("user left"), "GET", Mulberry32(1), sleep=None)
    assert (r.attempts, r.reason) == (1, StopReason.NOT_RETRYABLE)


# -- 5xx after the server acted: the other duplicate risk ------------------------------


def test_a_5xx_after_storing_duplicates_a_keyless_post_but_not_a_keyed_one() -> None:
    from retrylab.lab.client import sender

    with LabServer("store") as lab:
        url = lab.url + "/measurements"
        lab.script("POST", "/measurements", faults=["fail_after"])
        plain = RetryPolicy().run(
            sender(url, "POST", {"value": 1.5, "ref": "plain"}), "POST", Mulberry32(1), sleep=None
        )
        lab.script("POST", "/measurements", faults=["fail_after"])
        keyed = RetryPolicy().run(
            sender(url, "POST", {"value": 1.5, "ref": "keyed"}, {"Idempotency-Key": "k-1"}),
            "POST",
            Mulberry32(1),
            idempotency_key=True,
            sleep=None,
        )
        per_ref = lab.records.groupby("ref").size().to_dict()
    assert (plain.attempts, plain.ok, keyed.attempts, keyed.ok) == (2, True, 2, True)
    assert per_ref == {"plain": 2, "keyed": 1}


def test_retrying_everything_retries_a_422_four_times() -> None:
    from retrylab.core.outcome import retry_everything_rule
    from retrylab.lab.client import sender

    with LabServer() as lab:
        send = sender(lab.url + "/measurements", "POST")
        right = RetryPolicy().run(send, "POST", Mulberry32(20260114), sleep=None)
        slept: list[int] = []
        blind = RetryPolicy(rule=retry_everything_rule).run(
            send, "POST", Mulberry32(20260114), slept.append
        )
        assert lab.log["status"].tolist() == [422] * 5
    assert (right.attempts, right.outcome.status) == (1, 422)
    assert blind.attempts == 4 and slept == [70, 184, 592]
    assert blind.outcome.status == 422 and blind.reason == "max_attempts"


def test_lesson_scenarios_use_the_seeds_routes_in_turkish() -> None:
    """03's server log shows the lesson's routes in the Turkish edition: /olcumler, /rapor."""
    from retrylab.i18n import language
    from retrylab.lab.server import LabServer
    from retrylab.lessons.lab_experiments import lesson_scenarios

    with language("tr"), LabServer() as lab:
        _, requests = lesson_scenarios(lab, sleep=lambda ms: None)
        paths = set(lab.log["path"])
    assert paths == {"/olcumler", "/rapor", "/missing"}, paths
    assert requests == 3
