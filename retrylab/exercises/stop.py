"""One stop for a student's code: a time bound and a memory bound, and nothing left
running once the verdict is given.

:func:`watched` runs a block (a checker, and the student's code it calls) under:

- **a timer signal** where the process can use one (POSIX, the calling thread is the
  main thread, as a notebook's kernel runs its cells): ``signal.setitimer(ITIMER_REAL)``
  ticks every :data:`TICK` seconds and its ``SIGALRM`` handler raises :class:`Stopped`
  (a ``BaseException``, so ``except Exception`` does not swallow it) into whatever
  runs once a deadline has passed. The kernel delivers the signal to a Python loop, to
  ``time.sleep`` (the sleep is interrupted and the handler raises) and to code that
  called ``sys.settrace(None)`` alike. The timer keeps ticking: an answer that swallows
  one ``Stopped`` gets another at the next tick, and from the second one on every
  instruction of the student's frames raises it too (a trace on those frames, as a
  debugger sets one), so even a raise caught inside a ``while True`` leaves the loop.
- **a fallback where signals cannot be used** (another thread, or no ``SIGALRM``, as on
  Windows): a :func:`sys.settrace` hook on the calling thread checks the deadline at
  every line and instruction of code outside this package (slow, but only there). It
  is weaker: it cannot interrupt ``time.sleep`` or one long C call, and an answer that
  calls ``sys.settrace(None)`` turns it off (the watchdog below then stops it). No
  process is started, and no thread but the one watchdog.
- **a watchdog** for an answer that turns the timer off (``signal.setitimer(..., 0, 0)``,
  ``signal.signal(SIGALRM, SIG_IGN)``, a handler of its own, SIGALRM blocked) or the
  trace off in the fallback: one daemon thread, started with the first watch and asleep
  while no block runs, looks every :data:`PATROL` seconds. A block still running
  :data:`GRACE` seconds past its deadline has escaped the timer: the watchdog re-arms a
  disarmed timer and raises :class:`Stopped` in the block's thread with
  ``PyThreadState_SetAsyncExc`` (CPython's documented C API for raising in another
  thread, through :mod:`ctypes`), again every :data:`GRACE` seconds while it runs; from
  its first raise on, every instruction of the student's frames raises too, as after a
  swallowed tick.
  Python raises such an exception at the thread's next instruction, as it runs a signal
  handler; like a signal, it does not cut a ``time.sleep`` short (a sleeping answer that
  also ignored SIGALRM is stopped when it wakes). A raise still on its way when the block
  ends lands in the block's own last steps, so it never reaches the notebook.
- **a memory bound** where the kernel offers one (``RLIMIT_AS``, Linux): the soft
  limit of the process's address space is lowered to its size now plus
  :data:`MEMORY_LIMIT` bytes for the block and put back after, so an allocation beyond
  it fails at once with ``MemoryError`` (a peak measured by ``tracemalloc`` on the
  timer's tick would come too late for one huge allocation, and slows every
  allocation of a correct answer). Where ``RLIMIT_AS`` does nothing (macOS) or is
  missing (Windows), there is no memory bound here; the grading sandbox's is the one.

The block's settings an answer may change and the kernel needs are put back after it:
SIGALRM's handler and the signal mask, SIGINT's handler (the kernel's interrupt button),
the trace, the memory limit and the interpreter's thread switch interval.

What cannot be contained in a process at all, ``os._exit`` or a signal sent to the
kernel, is the grading sandbox's job; so is an answer that both turns the timer off
and starves the watchdog of the interpreter's lock (``sys.setswitchinterval(1000)``
before a loop: the watchdog then waits that long to run). One loop escapes the timer
on Python 3.10 only: a loop that calls nothing and whose body begins with ``try``
(``while True: try: ...``) never reaches a point where 3.10 runs a signal handler (it
defers them at the start of a ``try``), so neither this stop nor the kernel's
interrupt button reaches it; 3.11 and newer stop it like any other loop.

>>> with watched(1.0) as watch:
...     sum(range(10))
45
>>> active() is None
True

:func:`guarded` wraps a student's function that library code calls (a policy's
``rule``, maybe in a worker thread): each call runs under its own watch.
"""

from __future__ import annotations

import ctypes
import inspect
import math
import os
import signal
import sys
import threading
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager, suppress
from dataclasses import dataclass
from pathlib import Path
from types import FrameType
from typing import Any

try:
    import resource
except ImportError:  # Windows: no memory bound here
    resource = None  # type: ignore[assignment]

#: Seconds a whole check may take, the student's code included; tests may lower it.
CHECK_LIMIT = 60.0
#: Seconds between two ticks of the timer.
TICK = 0.05
#: Seconds a block may run past its deadline before the watchdog stops it.
GRACE = 0.25
#: Seconds between two looks of the watchdog while a block runs.
PATROL = 0.02
#: Bytes of address space a checked block may add to the process (RLIMIT_AS).
MEMORY_LIMIT = 768 * 2**20

#: The package's own code: never stopped line by line (only the student's code is).
PACKAGE = str(Path(__file__).resolve().parents[1]) + os.sep


class Stopped(BaseException):
    """Raised into the student's code once a deadline has passed.

    ``what`` is ``"call"`` (one call of the student's function took too long) or
    ``"check"`` (the whole check did); the watchdog raises the class, with no argument,
    and the block's watch then says which.
    """

    def __init__(self, what: str | None = None) -> None:
        if what is None:  # the watchdog raised it (PyThreadState_SetAsyncExc: no argument)
            what = _raised_by_watchdog()
        super().__init__(what)
        self.what = what


@dataclass
class Watch:
    """The deadlines of one checked block (``time.monotonic()`` seconds)."""

    check_deadline: float
    call_deadline: float = math.inf
    mode: str = "signal"  #: "signal" or "trace" (the fallback)
    overdue: int = 0  #: ticks since a deadline passed
    stopped: str = ""  #: what was stopped, once something was
    done: bool = False
    trace: Any = None  #: the trace function the block runs with
    thread: int = 0  #: the id of the thread that runs the block
    raised_at: float = -math.inf  #: when the watchdog last raised into the block

    def clear(self) -> None:
        """A stop was turned into a verdict: the check goes on without it."""
        self.overdue, self.stopped, self.call_deadline = 0, "", math.inf
        with _raising:  # no raise of the watchdog's for this deadline any more
            self.raised_at = time.monotonic()
        _take_pending()
        sys.settrace(self.trace)

    def expired(self, now: float) -> str:
        """ "call" or "check" if that deadline has passed, else ""."""
        if now > self.call_deadline:
            return "call"
        if now > self.check_deadline:
            return "check"
        return ""

    def start_call(self, limit: float) -> None:
        """A call of the student's code begins: it has ``limit`` seconds."""
        self.call_deadline = time.monotonic() + limit

    def end_call(self) -> None:
        self.call_deadline = math.inf


#: The watch of the block each thread runs now, by thread id.
_watches: dict[int, Watch] = {}


def active() -> Watch | None:
    """The watch of the block this thread runs now, if any."""
    return _watches.get(threading.get_ident())


def _main_watch() -> Watch | None:
    main = threading.main_thread().ident
    return None if main is None else _watches.get(main)


def _spared(frame: FrameType) -> bool:
    return frame.f_code.co_filename.startswith(PACKAGE)


def _raised_by_watchdog() -> str:
    """What was stopped; and, as the watchdog's raise is made in the student's code, from
    now on every instruction of it raises too: an answer that got past the timer would
    swallow one raise as easily as one tick."""
    watch = active()
    if watch is None or watch.done:
        return "check"
    frame = inspect.currentframe()
    while frame is not None and frame.f_code.co_filename == __file__:
        frame = frame.f_back
    if frame is not None and not _spared(frame):  # made in the student's frame
        _raise_everywhere(frame, watch)
    return watch.stopped or "check"


def _raise_everywhere(frame: FrameType | None, watch: Watch | None) -> None:
    """From now on every instruction of the student's frames raises :class:`Stopped`."""

    def local(f: FrameType, event: str, arg: Any) -> Any:
        if watch is None or watch.done:
            return None
        if event == "exception":
            # A trace function that raises is removed (sys.settrace's contract). Raised
            # here, as the stop unwinds into a try, the next raise would wait for the
            # next tick, and an answer that sleeps in a try would swallow every one of
            # them: the first instruction of the handler raises instead, outside the try.
            return local
        raise Stopped(watch.stopped or "check")

    def hook(f: FrameType, event: str, arg: Any) -> Any:
        if watch is None or watch.done or _spared(f):
            return None
        raise Stopped(watch.stopped or "check")

    sys.settrace(hook)
    while frame is not None and _spared(frame):  # the package's code it called
        frame = frame.f_back
    while frame is not None and not _spared(frame):  # up to the checker that called it
        frame.f_trace = local
        frame.f_trace_opcodes = True
        frame = frame.f_back


def _on_tick(signum: int, frame: FrameType | None) -> None:
    watch = _main_watch()
    if watch is None or watch.done:
        return
    what = watch.expired(time.monotonic())
    if not what:
        return
    watch.overdue += 1
    watch.stopped = watch.stopped or what
    if watch.overdue > 1:  # the last one was swallowed
        _raise_everywhere(frame, watch)
    raise Stopped(watch.stopped)


def _tracer(watch: Watch) -> Any:
    def local(frame: FrameType, event: str, arg: Any) -> Any:
        what = watch.expired(time.monotonic())
        if what and not watch.done:
            watch.stopped = watch.stopped or what
            raise Stopped(watch.stopped)
        return local

    def on_call(frame: FrameType, event: str, arg: Any) -> Any:
        if watch.done or _spared(frame):
            return None
        frame.f_trace_opcodes = True  # a loop on one line has no line events
        return local(frame, event, arg)

    return on_call


def signals_usable() -> bool:
    """True where the timer signal can be used: POSIX, in the main thread."""
    return (
        hasattr(signal, "setitimer")
        and hasattr(signal, "SIGALRM")
        and threading.current_thread() is threading.main_thread()
    )


#: Serialises the watchdog's raise with the end of a block: none is made once it is done.
_raising = threading.Lock()
#: Set when a block begins: the watchdog wakes.
_wake = threading.Event()
_watchdog: list[threading.Thread] = []
#: The watchdog thread's name.
WATCHDOG = "retrylab-stop-watchdog"


def running() -> set[threading.Thread]:
    """The process's threads but the stop's watchdog (asleep between checks): what an
    answer may have left running."""
    return {t for t in threading.enumerate() if t not in _watchdog}


def _async_raise(ident: int) -> None:
    """Raise :class:`Stopped` in thread ``ident`` at its next instruction.

    A raise is never cancelled with ``PyThreadState_SetAsyncExc(id, NULL)``: on
    CPython 3.11 that leaves the interpreter's eval breaker set with nothing to raise,
    and the thread spins at its next function call until another raise comes. A raise
    on its way is taken by :func:`_take_pending` instead.
    """
    api = getattr(ctypes, "pythonapi", None)  # CPython only
    if api is not None:
        api.PyThreadState_SetAsyncExc(ctypes.c_ulong(ident), ctypes.py_object(Stopped))


def _take_pending() -> None:
    """A raise of the watchdog's on its way to this thread lands here and goes no
    further: a Python call is where the interpreter delivers it."""
    with suppress(Stopped):
        _barrier()


def _step_in(watch: Watch, now: float, grace: float) -> None:
    """The block outran its deadline by ``grace``: the timer was turned off, ignored or
    blocked, or the trace was: re-arm the timer and raise in the block's thread."""
    with _raising:
        if watch.done or now - watch.raised_at < grace:
            return
        watch.stopped = watch.stopped or watch.expired(now) or "check"
        if (
            watch.mode == "signal"
            and signal.getsignal(signal.SIGALRM) is _on_tick
            and signal.getitimer(signal.ITIMER_REAL)[0] == 0
        ):
            signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
        watch.raised_at = now
        _async_raise(watch.thread)


def _setting(value: Any, low: float, high: float) -> float:
    """A tunable setting the watchdog reads, within [low, high] (an answer may set it)."""
    try:
        number = float(value)
    except Exception:  # anything an answer put there
        return high
    return high if math.isnan(number) else min(high, max(low, number))


def _patrol() -> None:
    expired, step_in = Watch.expired, _step_in  # as imported: an answer may patch them
    while True:
        _wake.clear()  # before the look: a block that begins after it sets it again
        watches = _watches.copy()
        if not watches:
            _wake.wait()
            continue
        time.sleep(_setting(PATROL, 0.001, 0.1))
        now = time.monotonic()
        grace = _setting(GRACE, 0.0, 2.0)
        for watch in watches.values():
            if not watch.done and expired(watch, now - grace):
                with suppress(Exception):  # the watchdog outlives any one block
                    step_in(watch, now, grace)


def _start_watchdog() -> None:
    if not _watchdog:
        with _raising:  # two threads' first blocks start one watchdog
            if not _watchdog:
                dog = threading.Thread(target=_patrol, name=WATCHDOG, daemon=True)
                _watchdog[:] = [dog]
                dog.start()
    _wake.set()


def _after_fork() -> None:
    """A forked child has no watchdog thread, and its locks may have been held by the
    parent's: new ones, and a new watchdog with its first block."""
    global _raising, _wake
    _raising, _wake = threading.Lock(), threading.Event()
    _watchdog.clear()


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_after_fork)


def _address_space() -> int | None:
    try:
        with open("/proc/self/statm", "rb") as f:
            pages = int(f.read().split()[0])
    except (OSError, ValueError, IndexError):
        return None
    return pages * os.sysconf("SC_PAGE_SIZE")


def _bound_memory() -> tuple[int, int] | None:
    """Lower RLIMIT_AS to the address space now + MEMORY_LIMIT; the old limits, or None."""
    if resource is None or not hasattr(resource, "RLIMIT_AS"):
        return None
    size = _address_space()
    if size is None:
        return None
    soft, hard = resource.getrlimit(resource.RLIMIT_AS)
    new = size + MEMORY_LIMIT
    if hard != resource.RLIM_INFINITY:
        new = min(new, hard)
    if soft != resource.RLIM_INFINITY and soft <= new:
        return None
    try:
        resource.setrlimit(resource.RLIMIT_AS, (new, hard))
    except (ValueError, OSError):
        return None
    return soft, hard


def _barrier() -> None:
    """A Python call: a signal that arrived just before is handled here."""


@contextmanager
def watched(limit: float) -> Iterator[Watch]:
    """Run the block with ``limit`` seconds and :data:`MEMORY_LIMIT` bytes (see the
    module's docstring); :class:`Stopped` is raised into it past a deadline.

    Blocks nest: an inner one runs under the outer one's watch.

    >>> import time
    >>> try:
    ...     with watched(0.1):
    ...         time.sleep(5)
    ... except Stopped as e:
    ...     print("stopped:", e.what)
    stopped: check
    """
    outer = active()
    if outer is not None:
        yield outer
        return
    me = threading.get_ident()
    watch = Watch(time.monotonic() + limit)
    trace = sys.gettrace()
    switch = sys.getswitchinterval()  # an answer may starve the watchdog: put back
    memory = _bound_memory()
    old_handler: Any = None
    interrupt: Any = None
    old_timer = (0.0, 0.0)
    old_mask: set[int | signal.Signals] | None = None
    began = time.monotonic()
    if signals_usable():
        interrupt = signal.getsignal(signal.SIGINT)  # the kernel's interrupt button
        old_handler = signal.signal(signal.SIGALRM, _on_tick)
        old_timer = signal.setitimer(signal.ITIMER_REAL, TICK, TICK)
        if hasattr(signal, "pthread_sigmask"):  # an answer may block SIGALRM: put back
            old_mask = signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})
    else:
        watch.mode = "trace"
        sys.settrace(_tracer(watch))
    watch.trace = sys.gettrace()
    watch.thread = me
    _watches[me] = watch
    _start_watchdog()
    try:
        yield watch
    finally:
        for _attempt in range(100):  # a tick may land in here: do it all again
            try:
                if watch.mode == "signal":
                    signal.setitimer(signal.ITIMER_REAL, 0, 0)
                with _raising:  # the watchdog raises into a running block only
                    watch.done = True
                _barrier()  # and a raise it made before lands here (caught below)
                _watches.pop(me, None)
                sys.settrace(trace)
                if sys.getswitchinterval() != switch:
                    sys.setswitchinterval(switch)
                if watch.mode == "signal":
                    signal.signal(signal.SIGALRM, old_handler)
                    if interrupt is not None and signal.getsignal(signal.SIGINT) is not interrupt:
                        signal.signal(signal.SIGINT, interrupt)
                    if old_mask is not None:
                        signal.pthread_sigmask(signal.SIG_SETMASK, old_mask)
                    if old_timer[0] > 0:
                        left = max(1e-6, old_timer[0] - (time.monotonic() - began))
                        signal.setitimer(signal.ITIMER_REAL, left, old_timer[1])
                if memory is not None and resource is not None:
                    resource.setrlimit(resource.RLIMIT_AS, memory)
                break
            except Stopped:
                continue


#: Seconds one call of a student's function wrapped by :func:`guarded` may take.
CALL_LIMIT = 3.0


def guarded(fn: Callable[..., Any]) -> Callable[..., Any]:
    """``fn`` whose every call runs under :func:`watched` (:data:`CALL_LIMIT` seconds),
    in whichever thread calls it: for a student's function handed to library code that
    may call it from a worker thread (there the trace fallback stops a Python loop).

    >>> import time
    >>> def slow(x):
    ...     while True:
    ...         pass
    >>> import retrylab.exercises.stop as stop
    >>> stop.CALL_LIMIT = 0.1
    >>> try:
    ...     guarded(slow)(1)
    ... except Stopped:
    ...     print("stopped")
    stopped
    >>> stop.CALL_LIMIT = 3.0
    """

    def call(*args: Any, **kwargs: Any) -> Any:
        main = _main_watch()  # no longer than the check that runs it
        left = CALL_LIMIT if main is None else main.check_deadline - time.monotonic()
        with watched(max(0.01, min(CALL_LIMIT, left))):
            return fn(*args, **kwargs)

    return call


def settle(before: set[threading.Thread], timeout: float = 2.0) -> None:
    """Wait, bounded, until the threads started since ``before`` have ended (a worker
    whose guarded student code was stopped needs a moment to unwind), so nothing of
    the answer runs after its verdict."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline and any(
        t not in before and t is not threading.current_thread() for t in running()
    ):
        time.sleep(0.005)
