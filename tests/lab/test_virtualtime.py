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
        await asyncio.get_running_loop().create_future()  # nobody will ever resolve it

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


# -- timers of any distance; threads refused with the reason ---------------------------


def _in_child(code: str) -> str:
    """Run ``code`` in a fresh interpreter; a loop that spins for ever is killed, not awaited.

    Before the fix the loops below never returned (100% CPU), so the test runs them
    where a hang becomes a failure instead of a stuck suite.
    """
    import subprocess
    import sys
    from pathlib import Path

    root = str(Path(__file__).resolve().parents[2])
    try:
        done = subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            timeout=120,
            cwd=root,
            env={**__import__("os").environ, "PYTHONPATH": root},
        )
    except subprocess.TimeoutExpired:
        pytest.fail("the virtual loop never returned (it spins on a far timer)")
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_timers_of_any_distance_fire() -> None:
    # before: a timer past ~2**24 s (194 days) was landed on and never fired
    out = _in_child(
        "import asyncio\n"
        "from retrylab.lab.virtualtime import run_virtual, now_ms, sleep_ms\n"
        "async def go():\n"
        "    seen = []\n"
        "    await asyncio.sleep(20_000_000); seen.append(now_ms())\n"
        "    await sleep_ms(1e11); seen.append(now_ms())\n"
        "    await asyncio.sleep(1e-10); await sleep_ms(1); seen.append(now_ms())\n"
        "    return seen\n"
        "print(run_virtual(go()))\n"
    )
    assert out == "[20000000000, 120000000000, 120000000001]"


def test_a_policy_obeys_a_one_year_retry_after_in_virtual_time() -> None:
    # the package's own clamp (MAX_RETRY_AFTER_S) and A1's Kotlin loop with no cap
    out = _in_child(
        "from retrylab import Mulberry32, Outcome, RetryPolicy\n"
        "from retrylab.core.outcome import MAX_RETRY_AFTER_S\n"
        "from retrylab.lab.virtualtime import run_virtual, now_ms, sleep_ms\n"
        "from retrylab.lessons.mobile_code import kotlin_run\n"
        "answers = iter([Outcome.http(503, retry_after=MAX_RETRY_AFTER_S), Outcome.success()])\n"
        "async def send():\n"
        "    return next(answers)\n"
        "async def go():\n"
        "    r = await RetryPolicy().run_async(send, 'GET', Mulberry32(1), sleep=sleep_ms)\n"
        "    return r.attempts, now_ms()\n"
        "print(run_virtual(go()))\n"
        "print(kotlin_run([Outcome.http(503)], max_retries=26).requests)\n"
    )
    assert out.splitlines() == ["(2, 31536000000)", "27"]


def test_threads_are_refused_with_the_reason() -> None:
    import time

    async def in_a_thread() -> None:
        await asyncio.to_thread(time.sleep, 0.01)

    # before: "nothing is scheduled ... would wait forever", naming no thread
    with pytest.raises(RuntimeError, match=r"cannot wait for a thread: asyncio.to_thread"):
        run_virtual(in_a_thread())

    async def in_an_executor() -> int:
        return await asyncio.get_running_loop().run_in_executor(None, int, "7")

    with pytest.raises(RuntimeError, match=r"run_in_executor run their work in real time"):
        run_virtual(in_an_executor())
