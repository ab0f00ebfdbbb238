"""retrylab.lab.virtualtime: an asyncio loop whose clock jumps to the next timer."""

from __future__ import annotations

import asyncio

import pytest

from retrylab.lab.virtualtime import VirtualTimeLoop, now_ms, run_virtual, sleep_ms


def test_virtual_clock_jumps_instead_of_waiting() -> None:
    async def go() -> list[int]:
        seen = []
        for s in (0.25, 600, 0.001):
            await asyncio.sleep(s)
            seen.append(now_ms())
        return seen
    assert run_virtual(go()) == [250, 600_250, 600_251]


def test_virtual_loop_reports_a_deadlock() -> None:
    async def stuck() -> None:
        await asyncio.get_running_loop().create_future()   # nobody will ever resolve it
    with pytest.raises(RuntimeError, match="wait forever"):
        run_virtual(stuck())


def test_pending_tasks_are_cancelled_at_the_end() -> None:
    cancelled: list[int] = []

    async def forever() -> None:
        try:
            await asyncio.sleep(10**6)
        except asyncio.CancelledError:
            cancelled.append(now_ms())
            raise

    async def go() -> int:
        task = asyncio.ensure_future(forever())
        await asyncio.sleep(2)
        assert not task.done()
        return now_ms()
    assert run_virtual(go()) == 2000
    assert cancelled == [2000]


def test_timeouts_work_on_the_virtual_clock() -> None:
    async def go() -> tuple[bool, int]:
        try:
            await asyncio.wait_for(asyncio.sleep(60), timeout=1.5)
        except asyncio.TimeoutError:
            return True, now_ms()
        return False, now_ms()
    assert run_virtual(go()) == (True, 1500)


def test_sleep_ms_waits_whole_milliseconds() -> None:
    async def go() -> tuple[int, int]:
        await sleep_ms(1)
        first = now_ms()
        await sleep_ms(60_999)
        return first, now_ms()
    assert run_virtual(go()) == (1, 61_000)


def test_each_run_starts_a_fresh_clock_at_zero() -> None:
    async def nap() -> int:
        await asyncio.sleep(5)
        return now_ms()
    assert [run_virtual(nap()) for _ in range(2)] == [5000, 5000]


def test_the_loop_is_an_ordinary_selector_loop() -> None:
    loop = VirtualTimeLoop()
    try:
        assert isinstance(loop, asyncio.SelectorEventLoop) and loop.time() == 0.0
        loop.run_until_complete(asyncio.sleep(3600))
        assert loop.time() == 3600.0
    finally:
        loop.close()
