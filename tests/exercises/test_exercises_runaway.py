"""A runaway answer is stopped with its verdict: no thread or process is left, the CPU rests.

The checkers run the student's code under one stop (retrylab.exercises.stop): in the
main thread a SIGALRM timer raises into the code past its time limit, again at every
tick, so a Python loop, a sleep, a loop that turned the trace off and one that
swallows the first stop all end with their verdict. An answer that turns the timer off
(disarms it, ignores or blocks its signal, installs a handler of its own) is stopped by
the stop's one watchdog thread, asleep between checks. No other thread and no process
is started (the old watcher thread per check, "retrylab-build-check", is gone:
check_threads() asserts none appears).
"""

from __future__ import annotations

import contextlib
import multiprocessing
import os
import signal
import sys
import threading
import time
import warnings
from typing import Any

import pytest

from retrylab import js_round
from retrylab.exercises import stop
from retrylab.exercises.build import (
    check_breaker,
    check_full_jitter,
    check_retry_loop,
    check_should_retry,
)
from retrylab.exercises.build import harness as _build_harness
from retrylab.exercises.ex09 import check_failure_rate


@pytest.fixture
def short_limit(monkeypatch: pytest.MonkeyPatch) -> float:
    monkeypatch.setattr(_build_harness, "TIME_LIMIT", 0.3)
    return 0.3


def spin(*args: Any) -> Any:
    while True:  # the student's endless loop
        pass


def spin_one_line(*args: Any) -> Any:
    # One line: no line events, stopped by instruction.
    while True: pass  # noqa: E701  # fmt: skip


def spin_calling(*args: Any) -> Any:
    total = 0
    while True:
        total += abs(-1)


def spin_catching(*args: Any) -> Any:
    while True:
        with contextlib.suppress(Exception):  # a loop that swallows errors still ends
            time.sleep(0)


class Spinner:
    def __init__(self, threshold: int, cooldown: int) -> None:
        pass

    def allow(self, now: int) -> bool:
        while True:
            pass

    def record(self, success: bool, now: int) -> None:
        pass


def check_threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "retrylab-build-check"]


def join_checks(timeout: float = 10.0) -> None:
    """Wait, bounded, for the checks' threads that a test let run past its verdict."""
    for thread in threading.enumerate():
        if thread.name == "retrylab-build-check":
            thread.join(timeout)


@pytest.mark.parametrize(
    "check", [check_full_jitter, check_should_retry, check_retry_loop, check_failure_rate]
)
@pytest.mark.parametrize("runaway", [spin, spin_one_line, spin_calling, spin_catching])
def test_a_runaway_function_is_stopped(short_limit: float, check: Any, runaway: Any) -> None:
    threads = stop.running()
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no DeprecationWarning of a fork, nor any other
        fb = check(runaway)
    # Stopped by the call's 0.3 s limit ("did not return"), not by the whole check's
    # 60 s one ("the check did not finish"): the verdict says which, not the clock.
    assert not fb.correct and fb.answered
    assert "stopped after 0.3 s" in fb.message and "did not return" in fb.message
    assert "a loop that never ends" in fb.message and "was stopped" in fb.message
    assert check_threads() == [] and multiprocessing.active_children() == []
    # Nothing keeps running: no thread, no timer ticking, no stop armed.
    assert stop.running() == threads
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert stop.active() is None


def swallow_sleeping(n: int, r: float) -> int:
    while True:
        try:  # noqa: SIM105  # a try statement, not a with: its handler is in this frame
            time.sleep(0.001)
        except:  # noqa: E722  # the student's bare except, around a sleep
            pass


def swallow_spinning(n: int, r: float) -> int:
    count = 0
    while True:
        try:  # noqa: SIM105  # the loop's first statement is a try (see stop.py on 3.10)
            count = count + 1
        except BaseException:
            pass


@pytest.mark.parametrize(
    "swallow",
    [
        swallow_sleeping,
        pytest.param(
            swallow_spinning,
            marks=pytest.mark.skipif(
                sys.version_info < (3, 11),
                reason="3.10 runs no signal handler at the start of a try (stop.py says so)",
            ),
        ),
    ],
)
def test_a_bare_except_in_a_loop_is_stopped_within_two_ticks(
    short_limit: float, swallow: Any
) -> None:
    """The timer's first stop lands in the try and is swallowed; at the next tick the
    handler's first instruction raises, outside the try. Before, the trace raised as
    the stop unwound into the try, was removed for it, and the answer swallowed every
    tick's stop until one happened to land between two sleeps (2 to 60 s)."""
    began = time.monotonic()
    fb = check_full_jitter(swallow)
    took = time.monotonic() - began
    assert "stopped after 0.3 s" in fb.message and "did not return" in fb.message
    assert took < 0.3 + 30 * stop.TICK, f"stopped after {took:.2f} s"
    assert check_threads() == [] and stop.active() is None


def timer_disarmed(n: int, r: float) -> int:
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    while True:
        pass


def timer_ignored(n: int, r: float) -> int:
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        pass


def timer_handled(n: int, r: float) -> int:
    signal.signal(signal.SIGALRM, lambda *args: None)  # a handler that does nothing
    while True:
        pass


def timer_blocked(n: int, r: float) -> int:
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    while True:
        pass


def timer_ignored_swallowing(n: int, r: float) -> int:
    signal.signal(signal.SIGALRM, signal.SIG_IGN)
    while True:
        try:  # noqa: SIM105  # every stop that lands in the sleep, swallowed
            time.sleep(0.001)
        except:  # noqa: E722
            pass


def timer_disarmed_sleeping(n: int, r: float) -> int:
    signal.setitimer(signal.ITIMER_REAL, 0, 0)
    time.sleep(3600)
    return 0


@pytest.mark.parametrize(
    "escape",
    [
        timer_disarmed,
        timer_ignored,
        timer_handled,
        timer_blocked,
        timer_ignored_swallowing,
        timer_disarmed_sleeping,
    ],
)
def test_an_answer_that_turns_the_timer_off_is_stopped(short_limit: float, escape: Any) -> None:
    """Found in stop 45: an answer that disarmed the timer, or ignored its signal, and
    then looped hung the check (the kernel's interrupt button was the only way out).
    The watchdog steps in GRACE seconds past the deadline; the check puts back the
    signal's handler, the timer and the signal mask, so the next check stops a runaway
    by its timer again."""
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    handler = signal.getsignal(signal.SIGALRM)
    began = time.monotonic()
    fb = check_full_jitter(escape)
    took = time.monotonic() - began
    assert "stopped after 0.3 s" in fb.message and "did not return" in fb.message, fb.message
    assert took < 0.3 + stop.GRACE + 30 * stop.TICK, f"stopped after {took:.2f} s"
    assert signal.getsignal(signal.SIGALRM) is handler
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == mask
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert stop.active() is None and check_threads() == []
    fb = check_full_jitter(spin_catching)  # the timer's own stop works again
    assert "stopped after 0.3 s" in fb.message


def test_the_watchdog_rests_between_checks(short_limit: float) -> None:
    """The watchdog looks at a running check only: between checks it waits on an event
    and takes no CPU, and no raise of it is left pending to reach the notebook."""
    check_full_jitter(timer_ignored)  # the watchdog raised into this one
    assert check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2**n))).correct
    dogs = [t for t in threading.enumerate() if t.name == stop.WATCHDOG]
    assert len(dogs) == 1 and dogs[0].daemon
    cpu = time.process_time()
    time.sleep(0.3)  # a raise left pending would land here, in the test
    assert time.process_time() - cpu < 0.1


def test_the_kernels_settings_an_answer_changed_are_put_back(short_limit: float) -> None:
    """An answer that ignored SIGINT left the kernel's interrupt button dead for the
    session; one that raised the thread switch interval slowed every thread of the
    kernel (its output among them) and could starve the watchdog."""
    interrupt, switch = signal.getsignal(signal.SIGINT), sys.getswitchinterval()

    def meddles(n: int, r: float) -> int:
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        sys.setswitchinterval(1000)
        return js_round(r * min(5000, 200 * 2**n))

    assert check_full_jitter(meddles).correct
    assert signal.getsignal(signal.SIGINT) is interrupt
    assert sys.getswitchinterval() == switch
    fb = check_full_jitter(timer_ignored)  # and the watchdog is not starved
    assert "stopped after 0.3 s" in fb.message


@pytest.mark.skipif(not hasattr(os, "fork"), reason="no fork on this system")
def test_a_forked_kernel_has_a_watchdog_of_its_own(short_limit: float) -> None:
    """A child forked while the watchdog ran has no watchdog thread, and maybe a lock its
    parent's held: it starts its own with its first check and stops the answer."""
    check_full_jitter(timer_ignored)  # the parent's watchdog runs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)  # 3.12: a threaded fork
        pid = os.fork()
    if pid == 0:  # the child: its verdict is its exit status
        status = 1
        try:
            fb = check_full_jitter(timer_ignored)
            status = 0 if "stopped after 0.3 s" in fb.message else 2
        finally:
            os._exit(status)
    deadline = time.monotonic() + 30
    while time.monotonic() < deadline:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            break
        time.sleep(0.05)
    else:
        os.kill(pid, signal.SIGKILL)
        os.waitpid(pid, 0)
        pytest.fail("the forked child's check did not end within 30 s")
    assert os.waitstatus_to_exitcode(status) == 0


def test_a_runaway_breaker_is_stopped(short_limit: float) -> None:
    fb = check_breaker(Spinner)
    assert "stopped after 0.3 s" in fb.message and "allow(0)" in fb.message
    assert check_threads() == []


def test_an_answer_that_swallows_the_stop_is_stopped_all_the_same(short_limit: float) -> None:
    """A bare except: swallows the first stop; the timer's next tick raises again and
    from then on every instruction of the answer's frames does: it ends with its verdict
    (before the timer signal, the verdict said it "could not be stopped" and it spun on)."""

    def swallow(n: int, r: float) -> int:
        while True:
            with contextlib.suppress(BaseException):  # the student's bare except
                time.sleep(0.001)

    fb = check_full_jitter(swallow)
    assert "stopped after 0.3 s" in fb.message and "did not return" in fb.message
    assert check_threads() == []


def test_settrace_off_and_a_loop_is_stopped(short_limit: float) -> None:
    """Turning the trace off defeated the old trace-hook stop (review 15): not the timer."""
    import sys

    def escape(n: int, r: float) -> int:
        sys.settrace(None)
        while True:
            pass

    fb = check_full_jitter(escape)
    assert "stopped after 0.3 s" in fb.message and check_threads() == []
    assert sys.gettrace() is None


def test_a_correct_answer_passes_and_leaves_nothing() -> None:
    assert check_threads() == []  # none left by an earlier test: this one's is judged
    assert check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2**n))).correct
    assert check_threads() == [] and multiprocessing.active_children() == []


def test_the_trace_is_removed_after_the_check() -> None:
    import sys

    check_full_jitter(lambda n, r: js_round(r * min(5000, 200 * 2**n)))
    assert sys.gettrace() is None


# == a function that returns None: told so, not "not yet" =====================


def forgot_return(n: int, r: float) -> Any:
    wait = js_round(r * min(5000, 200 * 2**n))  # noqa: F841  (the student's slip)


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
