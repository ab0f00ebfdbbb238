"""Run one exchange in a task of its own, so a cancellation of the caller is never lost.

Two libraries can lose a cancel that lands as an answer arrives: ``asyncio.wait_for``
on Python 3.10 and 3.11 (it returns the answer instead), and anyio's cancel scopes on
3.10 (httpx's connect and httpcore's close run in them). So the lab client and
:class:`~retrylab.lab.transport.RetryTransport` run each exchange in a task of its
own and wait on a plain future that a cancel always reaches.

A second task brings a race of its own: the exchange's task is made, then the
caller waits, and a cancel can land in between, before the task has taken its first
step. The caller's wakeup is queued behind that step, so the step would start the
exchange (a request sent after the cancel). :func:`run_apart` closes it: the caller
waits on a future of its own, which ``Task.cancel`` cancels at once, and the task
checks that future before it starts. A cancel that comes before the exchange
starts stops it from starting; one that comes after stops it where it is.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

T = TypeVar("T")


async def run_apart(
    start: Callable[[], Awaitable[T]], abandon: Callable[[T], Awaitable[None]] | None = None
) -> T:
    """Await ``start()`` in a task of its own; a cancel of the caller always stops it.

    If the caller is cancelled, the task is cancelled until it has ended (a
    library may swallow one cancel), ``abandon(result)`` is awaited for a result
    it produced all the same (to close an answer, say), and ``CancelledError``
    is raised here. If the cancel came before the task's first step,
    ``start`` is never called.

    >>> async def main() -> list[str]:
    ...     began: list[str] = []
    ...     async def exchange() -> str:
    ...         began.append("sent")
    ...         return "answer"
    ...     loop = asyncio.get_running_loop()
    ...     task = asyncio.current_task()
    ...     assert task is not None
    ...     loop.call_soon(task.cancel)       # lands before the exchange's first step
    ...     try:
    ...         await run_apart(exchange)
    ...     except asyncio.CancelledError:
    ...         began.append("cancelled")
    ...     return began
    >>> asyncio.run(main())
    ['cancelled']
    """
    waiting: asyncio.Future[None] = asyncio.get_running_loop().create_future()

    async def begin() -> T:
        if waiting.cancelled():  # the caller was cancelled before this step
            raise asyncio.CancelledError
        return await start()

    def wake(_: asyncio.Future[T]) -> None:
        if not waiting.done():
            waiting.set_result(None)

    task = asyncio.ensure_future(begin())
    task.add_done_callback(wake)
    try:
        await waiting
    except asyncio.CancelledError:
        await stop(task, abandon)
        raise
    return task.result()


async def stop(
    task: asyncio.Future[T], abandon: Callable[[T], Awaitable[None]] | None = None
) -> None:
    """Cancel ``task`` until it has ended, then hand a result it made to ``abandon``.

    Its exception, if any, is retrieved (asyncio does not log it as forgotten).
    """
    while not task.done():
        task.cancel()
        await asyncio.wait({task}, timeout=0.05)
    if task.cancelled() or task.exception() is not None:
        return
    if abandon is not None:
        await abandon(task.result())


def retrieve(task: asyncio.Future[Any]) -> None:
    """A done callback: read the task's exception so asyncio does not log it."""
    if not task.cancelled():
        task.exception()


__all__ = ["retrieve", "run_apart", "stop"]
