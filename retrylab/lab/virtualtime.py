"""Virtual time for asyncio: a loop whose clock jumps to the next timer instead of waiting.

Use it to run code that really awaits ``asyncio.sleep`` (and really gets
cancelled, or times out) without waiting: a 10-minute outage runs in
milliseconds and the order of events is exactly reproducible. The clock starts
at 0; :func:`now_ms` reads it in integer ms.

>>> async def two_naps():
...     await asyncio.sleep(0.25)
...     await asyncio.sleep(600)
...     return now_ms()
>>> run_virtual(two_naps())
600250
"""

from __future__ import annotations

import asyncio
import math
import selectors
import time
from collections.abc import Callable, Coroutine, Mapping
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, TypeVar

from ..core._check import type_error

__all__ = ["VirtualTimeLoop", "now_ms", "run_virtual", "sleep_ms"]

T = TypeVar("T")

#: The margin asyncio's loop fires a timer within: a timer due at ``when`` runs once
#: ``when < loop.time() + resolution`` (the monotonic clock's resolution, 1 ns here).
_RESOLUTION = time.get_clock_info("monotonic").resolution

_THREADS_REFUSED = (
    "virtual time cannot wait for a thread: asyncio.to_thread and run_in_executor run "
    "their work in real time while the virtual clock jumps from timer to timer, so what "
    "the program sees would depend on the machine's speed. Run the thread's work before "
    "or after run_virtual, or replace it with a coroutine that awaits asyncio.sleep for "
    "the time it stands for"
)


class _NeverBlockSelector(selectors.BaseSelector):
    """A selector that never waits: asked to wait ``timeout`` s, it moves the clock instead."""

    def __init__(self) -> None:
        self._real = selectors.DefaultSelector()
        self.advance: Callable[[float], None] = lambda seconds: None

    def register(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.register(fileobj, events, data)

    def unregister(self, fileobj: Any) -> selectors.SelectorKey:
        return self._real.unregister(fileobj)

    def modify(self, fileobj: Any, events: int, data: Any = None) -> selectors.SelectorKey:
        return self._real.modify(fileobj, events, data)

    def select(self, timeout: float | None = None) -> list[tuple[selectors.SelectorKey, int]]:
        if timeout is None:
            raise RuntimeError(
                "virtual time: nothing is scheduled and nothing can happen; "
                "the program would wait forever (a future nobody sets, or "
                "work in a thread: " + _THREADS_REFUSED + ")"
            )
        self.advance(max(0.0, timeout))
        return self._real.select(0)

    def get_map(self) -> Mapping[Any, selectors.SelectorKey]:
        return self._real.get_map()

    def close(self) -> None:
        self._real.close()


class _NoThreads(ThreadPoolExecutor):
    """The virtual loop's default executor: refuses work, so ``asyncio.to_thread`` says why."""

    def submit(self, fn: Callable[..., T], /, *args: Any, **kwargs: Any) -> Future[T]:
        raise RuntimeError(_THREADS_REFUSED)


class VirtualTimeLoop(asyncio.SelectorEventLoop):
    """An asyncio loop on a virtual clock that starts at 0 and jumps from timer to timer.

    Use it to run retry loops that really ``await asyncio.sleep`` (and really
    get cancelled) without waiting: a 10-minute outage runs in milliseconds,
    and the order of events is exactly reproducible. Nothing else changes:
    tasks, cancellation and timeouts behave as on any asyncio loop. A program
    that waits for something no timer will ever bring raises RuntimeError
    instead of hanging. Timers of any distance fire: a one-year
    ``asyncio.sleep`` returns at once with the clock one year on.

    Threads are refused: ``asyncio.to_thread`` (and ``run_in_executor`` with
    the default executor, which asyncio also uses for a DNS lookup) raises
    RuntimeError at once, because a thread's work
    takes real time the virtual clock cannot wait for, so the order of events
    would depend on the machine. Do that work before or after, or stand for it
    with a coroutine that awaits ``asyncio.sleep``.

    >>> loop = VirtualTimeLoop()
    >>> loop.run_until_complete(asyncio.sleep(90)), loop.time()
    (None, 90.0)
    >>> loop.close()
    """

    def __init__(self) -> None:
        self._virtual_now = 0.0
        selector = _NeverBlockSelector()
        super().__init__(selector)
        selector.advance = self._advance
        self.set_default_executor(_NoThreads(max_workers=1))

    def _advance(self, seconds: float) -> None:
        scheduled = getattr(self, "_scheduled", None)
        if scheduled and not math.isfinite(scheduled[0].when()):
            raise RuntimeError(
                "virtual time: the next timer is at infinity, so the program "
                "would wait forever (asyncio.sleep(inf)?)"
            )
        target = self._virtual_now + seconds
        if scheduled:
            # The loop fires a timer once ``when < time() + resolution``. Past 2**24 s
            # (194 days) a float no longer holds 1 ns, so ``target + resolution ==
            # target``: a clock landed exactly on a due timer would never fire it,
            # the loop would ask to wait 0 s, and spin for ever. Step to the next
            # float instead (a few ns at most, invisible in ms).
            when = scheduled[0].when()
            if when <= target and not when < target + _RESOLUTION:
                target = math.nextafter(target, math.inf)
        self._virtual_now = target

    def time(self) -> float:
        """The virtual clock in seconds."""
        return self._virtual_now


def run_virtual(coro: Coroutine[Any, Any, T]) -> T:
    """Run ``coro`` to completion on a fresh :class:`VirtualTimeLoop`; return its value.

    It runs in a worker thread, because a notebook's kernel already runs an
    event loop in its own. Waits of any length return at once (a one-year
    Retry-After included); work in threads (``asyncio.to_thread``) is refused
    with a RuntimeError saying why (see :class:`VirtualTimeLoop`). Tasks still
    pending at the end are cancelled and awaited, as ``asyncio.run`` does, so
    nothing is left behind.

    >>> async def nap():
    ...     await asyncio.sleep(600)          # ten virtual minutes
    ...     return now_ms()
    >>> run_virtual(nap())
    600000
    """

    def main() -> T:
        loop = VirtualTimeLoop()
        try:
            return loop.run_until_complete(coro)
        finally:
            pending = asyncio.all_tasks(loop)
            for task in pending:
                task.cancel()
            if pending:
                loop.run_until_complete(asyncio.gather(*pending, return_exceptions=True))
            loop.run_until_complete(loop.shutdown_asyncgens())
            loop.close()

    with ThreadPoolExecutor(max_workers=1) as pool:
        return pool.submit(main).result()


def now_ms() -> int:
    """The running loop's clock in integer ms (the virtual clock under :func:`run_virtual`)."""
    return round(asyncio.get_running_loop().time() * 1000)


async def sleep_ms(ms: int) -> None:
    """``asyncio.sleep`` in integer ms, the unit of every wait in retrylab.

    >>> async def wait_then_read():
    ...     await sleep_ms(1500)
    ...     return now_ms()
    >>> run_virtual(wait_then_read())
    1500
    """
    if isinstance(ms, bool) or not isinstance(ms, (int, float)):
        raise type_error("ms", ms, "a number of ms >= 0")
    if not (math.isfinite(ms) and ms >= 0):
        raise ValueError(
            f"ms={ms!r} is out of range: ms must be a finite number of ms "
            ">= 0 (an endless sleep never ends, even in virtual time)"
        )
    await asyncio.sleep(ms / 1000)
