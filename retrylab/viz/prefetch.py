"""Compute, in a background process, the settings one key press away from an explorer's.

Use it for an explorer whose computation alone is slower than a redraw should
be (the retry storm simulates 60,000 clients over 6,000 steps: about 0.15 s):
and for one whose drawing and PNG take most of the 100 ms a key press may
cost: set ``prefetch = True`` on the class. After every good redraw, a
single worker process (spawned once per kernel at the lowest priority, so it
has its own CPU and no share of the kernel's GIL) computes, draws and renders
the settings of every control moved one step up and one step down, the
slider that just moved first. When the student presses the key, result,
readout and PNG are there; the kernel only updates its artists (no render)
and sends the image. They are the same pure functions' output, so what is
shown does not depend on whether it was prefetched.

Only for an explorer on screen in a live kernel (IPython with a ``kernel``;
an explorer that a cell makes only to check it prefetches nothing), or for
every explorer when the environment variable ``RETRYLAB_PREFETCH=1``;
``RETRYLAB_PREFETCH=0`` turns it off. Tests and scripts compute in-process.

>>> enabled() in (True, False)
True
"""

from __future__ import annotations

import atexit
import contextlib
import multiprocessing
import os
import signal
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import Any

from .controls import neighbours

__all__ = ["MAX_PATIENCE_S", "PATIENCE_S", "Prefetcher", "enabled", "forced"]

Key = tuple[tuple[str, Hashable], ...]

_POOL: ProcessPoolExecutor | None = None
#: True in the worker process: its own explorers (which draw the prefetched images)
#: must never start a worker of their own, or each worker would spawn another.
_IN_WORKER = False
_LOCK = threading.Lock()
#: The prefetcher of the explorer moved last: only its work is worth doing.
_ACTIVE: Prefetcher | None = None
#: How many times the worker was started again after it died.
_RESTARTS = 0
#: The shortest and the longest a key press waits for the worker's computation of that
#: very setting (s); in between, about what computing it in the kernel would take.
PATIENCE_S = 0.25
MAX_PATIENCE_S = 2.0


def forced() -> bool | None:
    """``RETRYLAB_PREFETCH``: True for 1 (every explorer), False for 0, None if unset."""
    flag = os.environ.get("RETRYLAB_PREFETCH", "")
    return None if flag not in ("0", "1") else flag == "1"


def enabled() -> bool:
    """Prefetch here? Never in the worker itself; else ``RETRYLAB_PREFETCH`` 1/0 decides;
    else only inside a Jupyter kernel."""
    if _IN_WORKER:
        return False
    flag = forced()
    if flag is not None:
        return flag
    try:
        from IPython import get_ipython
    except ImportError:  # pragma: no cover - IPython comes with ipywidgets
        return False
    shell = get_ipython()
    return shell is not None and getattr(shell, "kernel", None) is not None


def _pool() -> ProcessPoolExecutor:
    global _POOL
    with _LOCK:
        if _POOL is None:
            _POOL = ProcessPoolExecutor(max_workers=1,
                                        mp_context=multiprocessing.get_context("spawn"),
                                        initializer=_worker_init)
            atexit.register(_POOL.shutdown, wait=False, cancel_futures=True)
        return _POOL


@contextlib.contextmanager
def _born_deaf_to_interrupts() -> Any:
    """Around a submission, which may start the worker: the worker is born ignoring SIGINT.

    Jupyter interrupts (and, on shutdown, stops) a kernel by signalling its
    process group, the worker's too. :func:`_worker_init` makes the worker
    ignore SIGINT, but only after it has imported matplotlib and the package
    (about a second): an interrupt in that second killed it with a
    KeyboardInterrupt traceback, and the next key press found the pool broken.
    A signal ignored when a process starts stays ignored in it (Python keeps
    an inherited SIG_IGN), so the kernel ignores SIGINT for the microseconds
    a submission takes, only while the worker may not be running yet.
    """
    pool = _POOL
    started = pool is not None and len(getattr(pool, "_processes", None) or ()) >= getattr(
        pool, "_max_workers", 1)
    if started or threading.current_thread() is not threading.main_thread():
        yield
        return
    try:
        old = signal.signal(signal.SIGINT, signal.SIG_IGN)
    except (ValueError, OSError):  # no signals here (an embedded interpreter)
        yield
        return
    try:
        yield
    finally:
        signal.signal(signal.SIGINT, old)


def _restart_pool() -> bool:
    """After the worker died: start a new one, once per kernel; False if it died again."""
    global _POOL, _RESTARTS
    with _LOCK:
        if _RESTARTS >= 1:
            return False
        _RESTARTS += 1
        old, _POOL = _POOL, None
    if old is not None:
        old.shutdown(wait=False, cancel_futures=True)
    return True


def _worker_init() -> None:
    """In the worker: never prefetch, die with the kernel, ignore the kernel's interrupts,
    give way to everything else.

    A worker whose kernel is killed (a restart, a crash, ``kill -9``) would
    otherwise live on as an orphan; on Linux the kernel asks to be told
    (``PR_SET_PDEATHSIG``) and the worker ends with it.
    """
    global _IN_WORKER
    _IN_WORKER = True
    os.environ["RETRYLAB_PREFETCH"] = "0"
    # Jupyter interrupts a kernel by signalling its process group, which holds the
    # worker too: Ctrl-C (Kernel > Interrupt) stops the student's cell, not this.
    signal.signal(signal.SIGINT, signal.SIG_IGN)
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes

            ctypes.CDLL(None, use_errno=True).prctl(1, signal.SIGTERM)  # PR_SET_PDEATHSIG
            if os.getppid() == 1:  # the kernel died before the line above ran
                os._exit(0)
    _lower_priority()


def _lower_priority() -> None:
    """In the worker: give way to the kernel, the browser and everything else."""
    if hasattr(os, "nice"):
        with contextlib.suppress(OSError):
            os.nice(19)


#: In the worker: one explorer of each class, to draw and render on.
_DRAWERS: dict[Any, Any] = {}


def _compute(cls: Any, values: dict[str, Any]) -> tuple[Any, str, bytes | None]:
    """Run in the worker: the explorer's result, readout and PNG for ``values``.

    The PNG is drawn on the worker's own explorer of that class; explorers
    whose layout is frozen render the same bytes whatever they showed before,
    so it is the image the kernel would have rendered. A blitting explorer's
    PNG (``None``) is left to the kernel: it costs little there.
    """
    result = cls.compute(**values)
    text = cls.readout_text(result)
    if cls.figsize is None:
        return result, text, b""
    if cls.blit:  # its image depends on what it showed before (anti-aliasing): kernel
        return result, text, None
    from .figure import classroom

    drawer = _DRAWERS.get(cls)
    if drawer is None:
        drawer = _DRAWERS[cls] = cls()
    with classroom():
        drawer.draw(result)
    return result, text, drawer._render()


def key_of(values: Mapping[str, Any]) -> Key:
    """The cache key of a set of control values (their items, in control order)."""
    return tuple(values.items())


class Prefetcher:
    """One explorer's prefetched results (at most ``size``) and the computations under way."""

    def __init__(self, cls: type, size: int) -> None:
        self.cls = cls
        self.size = size
        self.results: OrderedDict[Key, Any] = OrderedDict()
        self.pending: dict[Key, Future[Any]] = {}
        #: settings found prefetched, and settings the kernel had to compute itself
        self.hits = 0
        self.misses = 0
        #: what went wrong in the worker other than a bad setting (newest last, at most 20)
        self.failures: list[str] = []
        #: False once the worker cannot be used (it died twice): the kernel computes all
        self.working = True
        # results and pending change in the pool's thread too (its done callbacks): a
        # result evicted between "is it there?" and "take it" must not raise here
        self._lock = threading.RLock()

    def take(self, key: Key, patience: float = PATIENCE_S) -> tuple[bool, Any]:
        """``(True, (result, readout, png))`` if ``key`` was prefetched, else ``(False, None)``.

        A computation of ``key`` under way is waited for at most ``patience``
        seconds, clamped to [:data:`PATIENCE_S`, :data:`MAX_PATIENCE_S`]: about
        what computing it here would take (the worker runs at the lowest
        priority, so on a busy machine it may be starved, and a key press must
        never hang on it). After that, or if it failed in any way, the kernel
        computes it itself (a bad setting's ValueError is then raised there,
        with its message).
        """
        patience = min(MAX_PATIENCE_S, max(PATIENCE_S, patience))
        with self._lock:
            kept = self.results.get(key)
            if kept is not None:  # kept (not popped): a step back finds it again
                self.hits += 1
                self.results.move_to_end(key)
                return True, kept
            fut = self.pending.pop(key, None)
        if fut is not None and (fut.running() or fut.done()):
            try:
                result = fut.result(timeout=patience)
            except FutureTimeout:
                self.misses += 1
                return False, None  # left running: its result is dropped (_done)
            except Exception as exc:  # any failure: compute here instead
                self._failed(exc)
                self.misses += 1
                return False, None
            self.hits += 1
            self._keep(key, result)
            return True, result
        if fut is not None:
            fut.cancel()
        self.misses += 1
        return False, None

    @staticmethod
    def neighbour_settings(values: Mapping[str, Any], controls: Mapping[str, Any],
                           moved: str | None, back: Any = None) -> list[dict[str, Any]]:
        """The settings one key press from ``values``, the likeliest next press first.

        With ``moved`` (the control that just changed, from the value ``back``): one
        more step the same way; then the next control down the panel, both ways;
        then ``moved`` stepping back; then the other controls in panel order after
        it (wrapping round). Without it, every control in panel order, up then down.

        >>> from retrylab.viz.controls import int_slider
        >>> c = {n: int_slider(n, 5, 0, 10) for n in "abc"}
        >>> order = Prefetcher.neighbour_settings({"a": 5, "b": 6, "c": 5}, c, "b", back=5)
        >>> [next(f"{n}={w[n]}" for n in "abc" if w[n] != {"a": 5, "b": 6, "c": 5}[n])
        ...  for w in order]
        ['b=7', 'c=6', 'c=4', 'b=5', 'a=6', 'a=4']
        """
        def steps(name: str) -> list[dict[str, Any]]:
            return [{**values, name: v} for v in neighbours(controls[name], values[name])]

        names = list(controls)
        if moved is None or moved not in controls:
            return [w for name in names for w in steps(name)]
        i = names.index(moved)
        after = names[i + 1:] + names[:i]
        on = [w for w in steps(moved) if w[moved] != back]
        stepping_back = [w for w in steps(moved) if w[moved] == back]
        nxt = steps(after[0]) if after else []
        rest = [w for name in after[1:] for w in steps(name)]
        return on + nxt + stepping_back + rest

    def around(self, wanted: list[dict[str, Any]], known: set[Key]) -> None:
        """Start computing the settings ``wanted`` (those one key press away, the likeliest
        first), but those in ``known`` (the explorer holds them); drop what is queued for
        older settings."""
        keys = [key_of(w) for w in wanted]
        global _ACTIVE
        if _ACTIVE is not None and _ACTIVE is not self:
            _ACTIVE.cancel()  # another explorer moved: its neighbours can wait
        _ACTIVE = self
        with self._lock:
            for key, fut in list(self.pending.items()):
                if key not in keys and fut.cancel():
                    self.pending.pop(key, None)
            for key in reversed(keys):  # keep this state's neighbours longest, first last
                if key in self.results:
                    self.results.move_to_end(key)
            if not self.working:
                return
            try:
                for key, want in zip(keys, wanted, strict=True):
                    if key in known or key in self.results or key in self.pending:
                        continue
                    with _born_deaf_to_interrupts():
                        fut = _pool().submit(_compute, self.cls, want)
                    self.pending[key] = fut
                    fut.add_done_callback(
                        lambda f, k=key: self._done(k, f))  # type: ignore[misc]
            except Exception as exc:  # the worker died (BrokenProcessPool)
                self._failed(exc)
                self.working = _restart_pool()

    def cancel(self) -> None:
        """Drop what is queued and not started yet."""
        with self._lock:
            for key, fut in list(self.pending.items()):
                if fut.cancel():
                    self.pending.pop(key, None)

    def _done(self, key: Key, fut: Future[Any]) -> None:
        if fut.cancelled():
            return
        exc = fut.exception()
        if exc is not None:
            self._failed(exc)
        with self._lock:
            if self.pending.get(key) is not fut:
                return
            self.pending.pop(key, None)
            if exc is None:
                self._keep(key, fut.result())

    def _failed(self, exc: BaseException) -> None:
        """Note a failure in the worker; a bad setting (ValueError) is not one."""
        if not isinstance(exc, ValueError):
            self.failures.append(f"{type(exc).__name__}: {exc}")
            del self.failures[:-20]

    def _keep(self, key: Key, result: Any) -> None:
        with self._lock:
            self.results[key] = result
            self.results.move_to_end(key)
            while len(self.results) > self.size:
                self.results.popitem(last=False)

    def wait(self, timeout: float = 120.0) -> None:
        """Block until nothing is being prefetched (benchmarks; a person never waits)."""
        with self._lock:
            waiting = list(self.pending.values())
        for fut in waiting:
            with contextlib.suppress(Exception):  # a bad setting's ValueError: nothing kept
                fut.result(timeout=timeout)
