"""A runaway answer is stopped with its verdict: no child is left, the kernel's CPU rests.

The build checkers run the student's code in a short-lived child process (fork):
when a call exceeds the time limit the verdict says so and the child ends with it.
"""

from __future__ import annotations

import multiprocessing
import os
import time
from typing import Any

import pytest

from retrylab import js_round
from retrylab.exercises import _build_harness
from retrylab.exercises.build import (
    check_breaker,
    check_full_jitter,
    check_retry_loop,
    check_should_retry,
)
from retrylab.exercises.ex09 import check_failure_rate

needs_fork = pytest.mark.skipif("fork" not in multiprocessing.get_all_start_methods(),
                                reason="the platform cannot fork")


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(_build_harness, "TIME_LIMIT", 0.3)
    return 0.3


def spin(*args: Any) -> Any:
    while True:   # the student's endless loop: nothing outside can end it but a kill
        pass


class Spinner:
    def __init__(self, threshold: int, cooldown: int) -> None:
        pass

    def allow(self, now: int) -> bool:
        while True:
            pass

    def record(self, success: bool, now: int) -> None:
        pass


@needs_fork
@pytest.mark.parametrize("check", [check_full_jitter, check_should_retry, check_retry_loop,
                                   check_failure_rate])
def test_a_runaway_function_is_stopped_and_reaped(short_limit: float, check: Any) -> None:
    start = time.monotonic()
    fb = check(spin)
    assert time.monotonic() - start < 5
    assert not fb.correct and fb.answered
    assert "stopped after 0.3 s" in fb.message and "did not return" in fb.message
    assert "a loop that never ends" in fb.message
    assert multiprocessing.active_children() == []
    before = time.process_time()
    time.sleep(0.5)
    assert time.process_time() - before < 0.1   # nothing keeps burning this process's CPU


@needs_fork
def test_a_runaway_breaker_is_stopped_and_its_child_reaped(
        short_limit: float, monkeypatch: pytest.MonkeyPatch) -> None:
    real = multiprocessing.get_context("fork")
    started: list[int] = []

    class Spy:
        def Pipe(self, duplex: bool) -> Any:
            return real.Pipe(duplex=duplex)

        def Process(self, **kwargs: Any) -> Any:
            proc = real.Process(**kwargs)
            start = proc.start

            def recorded() -> None:
                start()
                started.append(proc.pid or 0)
            proc.start = recorded  # type: ignore[method-assign]
            return proc
    monkeypatch.setattr(_build_harness, "_fork_context", Spy)
    fb = check_breaker(Spinner)
    assert "stopped after 0.3 s" in fb.message and "allow(0)" in fb.message
    assert len(started) == 1
    with pytest.raises(ChildProcessError):   # reaped: not even a zombie is left
        os.waitpid(started[0], os.WNOHANG)


def test_without_fork_the_thread_fallback_says_it_cannot_stop_it(
        short_limit: float, monkeypatch: pytest.MonkeyPatch) -> None:
    import threading
    done = threading.Event()
    monkeypatch.setattr(_build_harness, "_fork_context", lambda: None)

    def spin_until_done(n: int, r: float) -> int:
        while not done.is_set():
            pass
        return 0
    try:
        fb = check_full_jitter(spin_until_done)
    finally:
        done.set()
    assert "did not return within 0.3 s" in fb.message
    assert "restart the kernel" in fb.message


def test_a_correct_answer_still_passes_in_the_child() -> None:
    assert check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2 ** n))).correct
    assert multiprocessing.active_children() == []


# == a function that returns None: told so, not "not yet" =====================


def forgot_return(n: int, r: float) -> Any:
    wait = js_round(r * min(5000, 200 * 2 ** n))  # noqa: F841  (the student's slip)


def test_a_function_without_return_is_told_so() -> None:
    fb = check_full_jitter(forgot_return)
    assert fb.answered and not fb.correct
    assert "returned None: did it `return` the wait?" in fb.message
    assert "replace the ..." not in fb.message


def test_a_rule_without_return_is_told_so() -> None:
    def rule(outcome: Any, method: str, key: bool) -> Any:
        if outcome.kind == "http":
            retry = outcome.status == 429  # noqa: F841
    fb = check_should_retry(rule)
    assert "returned None: did it `return` True or False?" in fb.message


def test_an_untouched_scaffold_is_not_yet() -> None:
    def scaffold(n: int, r: float) -> Any:
        """The wait."""
        # write your code here
        ...
    fb = check_full_jitter(scaffold)
    assert not fb.answered and "replace the ..." in fb.message
