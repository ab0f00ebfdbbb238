"""A hostile-answer battery against every public checker, enumerated from the package.

Each answer is one object that is also callable, so it reaches both the checkers that
call a student's function and those that read a value: every way a checker can touch
it (calling it, ``repr``, ``str``, ``len``, ``iter``, ``==``, ``bool``, ``float``,
``int``, ``hash``, indexing, attribute look-up) does the hostile thing: raise, loop in
Python, sleep, turn the trace off and loop, ignore the stop's timer signal and sleep in a
loop that swallows every exception, ``sys.exit``, ``KeyboardInterrupt``,
allocate without bound, or patch the package (``Backoff.next_wait``,
``RetryPolicy.run``). Each check must return a Feedback (never raise, never hang: the
limits are lowered so a runaway is stopped in a fraction of a second), not Correct,
and leave nothing behind: no thread (but the stop's one watchdog, asleep), no timer,
no SIGALRM handler or blocked signal, no trace, no memory limit, no patch.

``os._exit`` is not in the battery: it ends the process at once, without unwinding,
so no code of the process (no ``finally``, no handler, no ``atexit``) runs after it;
nothing in-process can turn it into a verdict. The same holds for a signal sent to the
kernel (``os.kill``). The grading sandbox (nbgrader's per-notebook kernel) contains
those; a notebook's kernel simply dies, and the student sees it restart.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from typing import Any

import pytest

import retrylab.exercises as exercises
from retrylab import Backoff, RetryPolicy
from retrylab.exercises import Feedback, pristine, stop
from retrylab.exercises.build import harness
from retrylab.i18n import current, set_language


def public_checkers() -> list[tuple[str, Callable[..., Feedback]]]:
    """Every ``check_*`` each module of retrylab.exercises defines (not re-exports)."""
    found = []
    for info in pkgutil.walk_packages(exercises.__path__, "retrylab.exercises."):
        module = importlib.import_module(info.name)
        for name, fn in vars(module).items():
            if (
                name.startswith("check_")
                and callable(fn)
                and getattr(fn, "__module__", "") == module.__name__
            ):
                found.append((f"{info.name.removeprefix('retrylab.exercises.')}.{name}", fn))
    return sorted(found)


CHECKERS = public_checkers()

_REAL = {(Backoff, "next_wait"): Backoff.next_wait, (RetryPolicy, "run"): RetryPolicy.run}


def act_raise() -> Any:
    raise RuntimeError("boom")


def act_loop() -> Any:
    while True:
        pass


def act_sleep() -> Any:
    time.sleep(3600)


def act_untrace_loop() -> Any:
    sys.settrace(None)
    while True:
        pass


def act_timer_off() -> Any:
    signal.signal(signal.SIGALRM, signal.SIG_IGN)  # the stop's timer, ignored
    while True:
        try:  # noqa: SIM105  # and every stop that lands in the sleep, swallowed
            time.sleep(0.01)
        except BaseException:
            pass


def act_exit() -> Any:
    sys.exit(3)


def act_interrupt() -> Any:
    raise KeyboardInterrupt


def act_generator_exit() -> Any:
    raise GeneratorExit


def act_huge() -> Any:
    return bytearray(2**44)  # 16 TiB: refused by the memory bound, or by the kernel


def act_grow() -> Any:
    hoard = []
    while True:
        hoard.append(bytearray(2**20))


def act_patch() -> Any:
    Backoff.next_wait = lambda *a, **k: 7  # type: ignore[method-assign]
    RetryPolicy.run = lambda *a, **k: None  # type: ignore[method-assign]
    return 7


ACTS: dict[str, Callable[[], Any]] = {
    "raise": act_raise,
    "loop": act_loop,
    "sleep": act_sleep,
    "settrace-off-loop": act_untrace_loop,
    "timer-off-sleep": act_timer_off,
    "sys.exit": act_exit,
    "KeyboardInterrupt": act_interrupt,
    "GeneratorExit": act_generator_exit,
    "huge": act_huge,
    "grow": act_grow,
    "patch": act_patch,
}


def hostile(act: Callable[[], Any]) -> Any:
    """An answer every use of which runs ``act``."""

    def do(self: Any, *args: Any, **kwargs: Any) -> Any:
        return act()

    names = (
        "__call__",
        "__repr__",
        "__str__",
        "__len__",
        "__iter__",
        "__eq__",
        "__ne__",
        "__lt__",
        "__le__",
        "__gt__",
        "__ge__",
        "__bool__",
        "__float__",
        "__int__",
        "__index__",
        "__hash__",
        "__getitem__",
        "__contains__",
        "__getattr__",
    )
    return type("Hostile", (), {n: do for n in names})()


@pytest.fixture
def low_limits(monkeypatch: pytest.MonkeyPatch) -> None:
    """Limits that stop a runaway in a fraction of a second: a check 0.25 s, one call of
    the student's code 0.1 s, a tick every 20 ms (the verdicts asserted here do not
    depend on the limits' values; the 0.3 s ones of test_exercises_runaway.py do)."""
    monkeypatch.setattr(stop, "CHECK_LIMIT", 0.25)
    monkeypatch.setattr(stop, "TICK", 0.02)
    monkeypatch.setattr(stop, "GRACE", 0.1)
    monkeypatch.setattr(stop, "PATROL", 0.01)
    monkeypatch.setattr(harness, "TIME_LIMIT", 0.1)
    monkeypatch.setattr(stop, "MEMORY_LIMIT", 256 * 2**20)


@pytest.fixture
def clean() -> Iterator[None]:
    """Whatever the answer did, the process is as before the check."""
    import resource

    threads = stop.running()
    handler = signal.getsignal(signal.SIGALRM)
    interrupt, switch = signal.getsignal(signal.SIGINT), sys.getswitchinterval()
    mask = signal.pthread_sigmask(signal.SIG_BLOCK, set())
    trace = sys.gettrace()
    limit = resource.getrlimit(resource.RLIMIT_AS)
    yield
    assert stop.running() == threads
    assert signal.getitimer(signal.ITIMER_REAL) == (0.0, 0.0)
    assert signal.getsignal(signal.SIGALRM) == handler
    assert signal.getsignal(signal.SIGINT) == interrupt
    assert sys.getswitchinterval() == switch
    assert signal.pthread_sigmask(signal.SIG_BLOCK, set()) == mask
    assert sys.gettrace() is trace
    assert resource.getrlimit(resource.RLIMIT_AS) == limit
    assert stop.active() is None
    for (owner, name), real in _REAL.items():
        assert vars(owner)[name] is real, name
    assert pristine.restore() == []


def arity(fn: Callable[..., Any]) -> int:
    return len(
        [
            p
            for p in inspect.signature(fn).parameters.values()
            if p.default is inspect.Parameter.empty
        ]
    )


@pytest.mark.parametrize("act", list(ACTS), ids=list(ACTS))
@pytest.mark.parametrize(("name", "fn"), CHECKERS, ids=[n for n, _ in CHECKERS])
def test_every_checker_survives_every_hostile_answer(
    name: str, fn: Callable[..., Feedback], act: str, low_limits: None, clean: None
) -> None:
    answer = hostile(ACTS[act])
    fb = fn(*[answer] * arity(fn))
    assert type(fb) is Feedback, (name, act, fb)
    assert not fb.correct, (name, act, fb.message)
    assert isinstance(fb.message, str) and fb.message
    if act == "patch" and "changed" in fb.message:
        assert "Backoff.next_wait" in fb.message or "RetryPolicy.run" in fb.message


def test_the_battery_covers_every_module() -> None:
    modules = {name.split(".check_")[0] for name, _ in CHECKERS}
    assert {
        "ex00",
        "ex01",
        "ex02",
        "ex03",
        "ex04",
        "ex05",
        "ex06",
        "ex07",
        "ex08",
        "ex09",
        "build.waits",
        "build.rule",
        "build.loop",
        "build.breaker",
    } <= modules
    assert len(CHECKERS) >= 40


def test_a_patch_is_named_and_put_back(clean: None) -> None:
    """Review 8: an answer that patched the reference was judged Correct, and the
    patch stayed in the kernel for every later check."""
    from retrylab.exercises.build import check_decorrelated, check_full_jitter

    def full_jitter(n: int, r: float) -> int:
        cls = getattr(importlib.import_module("retrylab"), "Back" + "off")
        cls.next_wait = lambda *a, **k: 7  # hidden from a reading of the code
        return 7

    fb = check_full_jitter(full_jitter)
    assert not fb.correct and "Backoff.next_wait" in fb.message and "changed" in fb.message
    assert Backoff.next_wait is _REAL[Backoff, "next_wait"]
    fb = check_decorrelated(full_jitter)
    assert not fb.correct and "Backoff.next_wait" in fb.message


def test_a_patch_made_before_the_check_is_named_and_put_back(clean: None) -> None:
    """Cheat C1 of the teacher's review: ``Feedback.__bool__ = lambda self: True`` in an
    answer cell made every ``assert feedback`` pass."""
    from retrylab.exercises.ex00 import check_longest_wait

    real = Feedback.__bool__
    Feedback.__bool__ = lambda self: True  # type: ignore[method-assign]
    fb = check_longest_wait(1)
    assert Feedback.__bool__ is real
    assert not fb and "Feedback.__bool__" in fb.message


def test_the_verdicts_speak_the_notebooks_language(low_limits: None, clean: None) -> None:
    from retrylab.exercises.ex07 import check_capstone

    before = current()
    set_language("tr")
    try:
        looping = check_capstone(hostile(act_loop))
        patched = check_capstone(hostile(act_patch))
        exited = check_capstone(hostile(act_exit))
    finally:
        set_language(before)
    assert "durduruldu" in looping.message or "okuyamadı" in looping.message, looping
    assert "değiştirdi" in patched.message or "okuyamadı" in patched.message, patched
    assert "SystemExit" in exited.message


def test_the_capstone_rule_that_loops_or_exits_gets_a_verdict(
    low_limits: None, clean: None
) -> None:
    """Review 3: check_capstone and check_outage_policy ran the student's rule with no
    watchdog: a looping rule hung them, a SystemExit escaped into the notebook."""
    from retrylab.exercises.ex05 import check_outage_policy
    from retrylab.exercises.ex07 import check_capstone

    def loops(*args: Any) -> bool:
        while True:
            pass

    def exits(*args: Any) -> bool:
        sys.exit(3)

    for rule in (loops, exits):
        policy = RetryPolicy(
            max_attempts=5, backoff=Backoff(5000, 3, 60_000, jitter="full"), rule=rule
        )
        for check in (check_capstone, check_outage_policy):
            fb = check(policy)
            assert type(fb) is Feedback and not fb.correct, fb
            assert ("stopped after" in fb.message) == (rule is loops), fb.message


def test_the_fallback_stop_works_off_the_main_thread(low_limits: None) -> None:
    """Where signals cannot be used (a thread that is not the main one) the trace-hook
    fallback stops a Python loop, and the watchdog one that turned the trace off (a
    ``time.sleep`` is stopped once it returns)."""
    from retrylab.exercises.build import check_full_jitter

    def loops(n: int, r: float) -> int:
        while True:
            pass

    def untraces(n: int, r: float) -> int:
        sys.settrace(None)
        while True:
            pass

    for answer in (loops, untraces):
        box: list[Feedback] = []
        worker = threading.Thread(target=lambda a=answer, b=box: b.append(check_full_jitter(a)))
        worker.start()
        worker.join(30)
        assert not worker.is_alive() and box, answer.__name__
        assert "stopped after 0.1 s" in box[0].message, (answer.__name__, box[0].message)
