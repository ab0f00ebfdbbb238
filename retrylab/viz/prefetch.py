"""Compute, in a background process, the settings one key press away from an explorer's.

Use it for an explorer whose computation alone is slower than a redraw should
be (the retry storm simulates 60,000 clients over 6,000 steps: about 0.3 s):
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
import sys
import threading
from collections import OrderedDict
from collections.abc import Hashable, Mapping
from concurrent.futures import Future, ProcessPoolExecutor
from typing import Any

from .controls import neighbours

__all__ = ["Prefetcher", "enabled", "forced"]

Key = tuple[tuple[str, Hashable], ...]

_POOL: ProcessPoolExecutor | None = None
#: True in the worker process: its own explorers (which draw the prefetched images)
#: must never start a worker of their own, or each worker would spawn another.
_IN_WORKER = False
_LOCK = threading.Lock()
#: The prefetcher of the explorer moved last: only its work is worth doing.
_ACTIVE: Prefetcher | None = None


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


def _worker_init() -> None:
    """In the worker: never prefetch, die with the kernel, give way to everything else.

    A worker whose kernel is killed (a restart, a crash, ``kill -9``) would
    otherwise live on as an orphan; on Linux the kernel asks to be told
    (``PR_SET_PDEATHSIG``) and the worker ends with it.
    """
    global _IN_WORKER
    _IN_WORKER = True
    os.environ["RETRYLAB_PREFETCH"] = "0"
    if sys.platform.startswith("linux"):
        with contextlib.suppress(OSError, AttributeError):
            import ctypes
            import signal

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
        self.hits = 0

    def take(self, key: Key) -> tuple[bool, Any]:
        """``(True, (result, readout, png))`` if ``key`` was prefetched (waiting for it
        if it is being computed now), else ``(False, None)``. A ValueError is raised."""
        if key in self.results:  # kept (not popped): a step back finds it again
            self.hits += 1
            self.results.move_to_end(key)
            return True, self.results[key]
        fut = self.pending.pop(key, None)
        if fut is not None and (fut.running() or fut.done()):
            result = fut.result()  # under way: sooner than starting again here
            self.hits += 1
            self._keep(key, result)
            return True, result
        if fut is not None:
            fut.cancel()
        return False, None

    def around(self, values: Mapping[str, Any], controls: Mapping[str, Any],
               moved: str | None, known: set[Key]) -> None:
        """Start computing the settings one step from ``values`` (the moved control first,
        in the direction it moved); drop what is queued for older settings."""
        wanted: list[dict[str, Any]] = []
        names = list(controls)
        if moved is not None and moved in controls:
            names.remove(moved)
            names.insert(0, moved)
        for name in names:
            for v in neighbours(controls[name], values[name]):
                wanted.append({**values, name: v})
        keys = [key_of(w) for w in wanted]
        global _ACTIVE
        if _ACTIVE is not None and _ACTIVE is not self:
            _ACTIVE.cancel()  # another explorer moved: its neighbours can wait
        _ACTIVE = self
        for key, fut in list(self.pending.items()):
            if key not in keys and fut.cancel():
                del self.pending[key]
        pool = _pool()
        for key in reversed(keys):  # keep this state's neighbours longest, the first last
            if key in self.results:
                self.results.move_to_end(key)
        for key, want in zip(keys, wanted, strict=True):
            if key in known or key in self.results or key in self.pending:
                continue
            fut = pool.submit(_compute, self.cls, want)
            self.pending[key] = fut
            fut.add_done_callback(lambda f, k=key: self._done(k, f))  # type: ignore[misc]

    def cancel(self) -> None:
        """Drop what is queued and not started yet."""
        for key, fut in list(self.pending.items()):
            if fut.cancel():
                del self.pending[key]

    def _done(self, key: Key, fut: Future[Any]) -> None:
        if fut.cancelled() or self.pending.get(key) is not fut:
            return
        self.pending.pop(key, None)
        if fut.exception() is None:
            self._keep(key, fut.result())

    def _keep(self, key: Key, result: Any) -> None:
        self.results[key] = result
        self.results.move_to_end(key)
        while len(self.results) > self.size:
            self.results.popitem(last=False)

    def wait(self, timeout: float = 120.0) -> None:
        """Block until nothing is being prefetched (benchmarks; a person never waits)."""
        for fut in list(self.pending.values()):
            with contextlib.suppress(Exception):  # a bad setting's ValueError: nothing kept
                fut.result(timeout=timeout)
